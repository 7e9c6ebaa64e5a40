/**
 * What a client can make the simulator keep is bounded, with an `error` naming the limit, and the
 * per-call work stays proportional (issue 9, findings 5 and 8). Mechanisms are asserted here (limits,
 * the icon cache), never times: timings belong in bench/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FILE_FORMAT } from '../../../src/app-kit/simulator/files.js'
import {
  MAX_INPUTS_PER_TITLE,
  MAX_NAME_CHARS,
  MAX_SENDER_ITEMS,
  MAX_SENDERS,
  MAX_TITLES,
  MAX_VARIABLES_PER_TITLE,
} from '../../../src/app-kit/simulator/limits.js'
import { ICON_CACHE_ENTRIES, iconCacheStats } from '../../../src/app-kit/simulator/png.js'
import { SimulatorState } from '../../../src/app-kit/simulator/state.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function state(): SimulatorState {
  const dataDir = mkdtempSync(join(tmpdir(), 'panelbridge-bounds-'))
  dirs.push(dataDir)
  return new SimulatorState({ dataDir, animationMs: 10 })
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are read loosely
type Loose = any
function run(s: SimulatorState, command: string, params: Record<string, unknown> = {}): Loose {
  return (s.dispatch(command, params) as { result?: Loose }).result ?? {}
}

describe('notification senders (finding 5)', () => {
  it('a subscribe with 110,000 events is refused with the limit, and no sender is made', () => {
    const s = state()
    const events = Array.from({ length: 110_000 }, (_, i) => `e${i}`)
    const before = s.senders.length
    expect(run(s, 'subscribe', { sender: 'flood', events }).error).toBe(
      `too many events in a sender (limit ${MAX_SENDER_ITEMS})`,
    )
    expect(s.senders).toHaveLength(before)
  })

  it('appending past the limit to an existing sender changes nothing', () => {
    const s = state()
    const half = Array.from({ length: MAX_SENDER_ITEMS - 1 }, (_, i) => `{id-${i}}`)
    expect(run(s, 'subscribe', { sender: 'a', events: 'play', id: half }).error).toBeUndefined()
    expect(run(s, 'subscribe', { sender: 'a', id: ['{x}', '{y}'] }).error).toBe(
      `too many ids in a sender (limit ${MAX_SENDER_ITEMS})`,
    )
    expect(s.senders.find((x) => x.name === 'a')!.ids).toHaveLength(MAX_SENDER_ITEMS - 1)
    // A repeat of known items is not growth.
    expect(run(s, 'subscribe', { sender: 'a', id: half.slice(0, 10) }).error).toBeUndefined()
  })

  it('unSubscribe removes a full list at once', () => {
    const s = state()
    const ids = Array.from({ length: MAX_SENDER_ITEMS }, (_, i) => `{id-${i}}`)
    run(s, 'subscribe', { sender: 'b', events: 'play,data', id: ids })
    expect(run(s, 'unSubscribe', { sender: 'b', id: ids }).error).toBeUndefined()
    expect(s.senders.find((x) => x.name === 'b')!.ids).toEqual([])
  })

  it(`at most ${MAX_SENDERS} senders, and a sender name is bounded`, () => {
    const s = state()
    for (let i = s.senders.length; i < MAX_SENDERS; i++) run(s, 'subscribe', { sender: `s${i}`, events: 'play' })
    expect(s.senders).toHaveLength(MAX_SENDERS)
    expect(run(s, 'subscribe', { sender: 'one-more', events: 'play' }).error).toBe(
      `too many notification senders (limit ${MAX_SENDERS})`,
    )
    expect(run(s, 'subscribe', { sender: 'x'.repeat(MAX_NAME_CHARS + 1), events: 'play' }).error).toBe(
      `sender name too long (limit ${MAX_NAME_CHARS} characters)`,
    )
  })
})

describe('titles (finding 5)', () => {
  it(`newTitle stops at ${MAX_TITLES} titles with an error; the titles stay as they were`, () => {
    const s = state()
    while (s.titles.length < MAX_TITLES) expect(run(s, 'newTitle').error).toBeUndefined()
    expect(run(s, 'newTitle').error).toBe(`too many titles (limit ${MAX_TITLES})`)
    expect(run(s, 'duplicateTitle', { title: s.titles[0]!.name }).error).toBe(`too many titles (limit ${MAX_TITLES})`)
    expect(s.titles).toHaveLength(MAX_TITLES)
    // Positions stay dense 0..n-1 on the channel (appending no longer sorts the channel).
    const positions = s.channelTitles(0).map((t) => t.position)
    expect(positions).toEqual(positions.map((_, i) => i))
  })

  it('names and inputs are bounded', () => {
    const s = state()
    const long = 'n'.repeat(MAX_NAME_CHARS + 1)
    expect(run(s, 'newTitle', { newName: long }).error).toBe(`title name too long (limit ${MAX_NAME_CHARS} characters)`)
    const title = s.titles[0]!
    expect(run(s, 'setTitleName', { id: title.id, newName: long }).error).toBe(
      `title name too long (limit ${MAX_NAME_CHARS} characters)`,
    )
    const inputs = Array.from({ length: MAX_INPUTS_PER_TITLE + 1 }, (_, i) => `in${i}`)
    expect(run(s, 'setTitleInput', { id: title.id, input: inputs }).error).toBe(
      `too many inputs on a title (limit ${MAX_INPUTS_PER_TITLE})`,
    )
  })

  it('a project file with too many titles is refused before the open titles are removed', () => {
    const s = state()
    const before = s.titles.map((t) => t.id)
    const title = (i: number) => ({ id: `{t-${i}}`, name: `T${i}`, inputs: [], variables: [] })
    const file = join(s.dataDir, 'huge.nbproj')
    const videoFormat = { width: 1920, height: 1080, frameRate: 25 }
    const titles = Array.from({ length: MAX_TITLES + 1 }, (_, i) => title(i))
    writeFileSync(file, JSON.stringify({ format: FILE_FORMAT, kind: 'project', version: 1, videoFormat, titles }))
    expect(run(s, 'loadProject', { file: 'huge.nbproj' }).error).toBe(`too many titles (limit ${MAX_TITLES})`)
    expect(s.titles.map((t) => t.id)).toEqual(before)
  })

  it('a title file with too many variables is refused', () => {
    const s = state()
    const variables = Array.from({ length: MAX_VARIABLES_PER_TITLE + 1 }, (_, i) => ({
      name: `v${i}`,
      value: '',
      type: 'text',
    }))
    const t = { id: '{00000000-0000-4000-8000-000000000001}', name: 'Many', inputs: [], variables }
    writeFileSync(join(s.dataDir, 'many.nbtitle'), JSON.stringify({ format: FILE_FORMAT, kind: 'title', title: t }))
    const count = s.titles.length
    expect(run(s, 'loadTitle', { file: 'many.nbtitle' }).error).toBe(
      `too many variables on a title (limit ${MAX_VARIABLES_PER_TITLE})`,
    )
    expect(s.titles).toHaveLength(count)
  })
})

describe('getTitleControlInfo icons (finding 5)', () => {
  it('200 titles of one colour at 1920×1920 draw one icon, however often asked', () => {
    const s = state()
    while (s.titles.length < 200) run(s, 'newTitle')
    for (const t of s.titles) t.color = '#123456'
    const before = iconCacheStats().renders
    const a = run(s, 'getTitleControlInfo', { width: 1920, height: 1920 })
    const b = run(s, 'getTitleControlInfo', { width: 1920, height: 1920 })
    expect(a.titles).toHaveLength(200)
    expect(b.titles[0].image).toBe(a.titles[0].image)
    expect(iconCacheStats().renders - before).toBe(1)
  })

  it(`the cache keeps at most ${ICON_CACHE_ENTRIES} icons`, () => {
    const s = state()
    for (let i = 0; i < ICON_CACHE_ENTRIES * 2; i++) {
      s.titles[0]!.color = `#${i.toString(16).padStart(6, '0')}`
      run(s, 'getTitleControlInfo', { width: 8, height: 8 })
    }
    expect(iconCacheStats().size).toBe(ICON_CACHE_ENTRIES)
  })
})

describe('removeTitleInput answers as setTitleInput (finding 8)', () => {
  it('in every reply, errors included', () => {
    const s = state()
    const t = s.titles[0]!
    run(s, 'setTitleInput', { id: t.id, input: 'cam1,cam2' })
    const replies = [
      run(s, 'removeTitleInput', { id: t.id, input: 'cam1' }),
      run(s, 'removeTitleInput', { id: '{no-such-title}', input: 'cam1' }),
      run(s, 'removeTitleInput', { id: t.id }),
    ]
    expect(replies[0].error).toBeUndefined()
    expect(replies[1].error).toBeDefined()
    expect(replies[2].error).toBe('invalid params')
    for (const r of replies) expect([r.command, r.reply]).toEqual(['setTitleInput', 'setTitleInput'])
    expect(t.inputs).toEqual(['cam2'])
  })
})
