/**
 * What a client can make the simulator keep is bounded, with an `error` naming the limit, and the
 * per-call work stays proportional (issue 9, findings 5 and 8). Mechanisms are asserted here (limits,
 * the icon cache), never times: timings belong in bench/.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SIM_LIMITS } from '../../../src/app-kit/simulator/limits.js'
import { iconCacheStats } from '../../../src/app-kit/simulator/png.js'
import { SimulatorState } from '../../../src/app-kit/simulator/state.js'

/** The simulator's file format tag (`src/app-kit/simulator/files.ts`): the files below are its own. */
const SIM_FILE_FORMAT = 'panelbridge-simulator'
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
      `too many events in a sender (limit ${SIM_LIMITS.maxSenderItems})`,
    )
    expect(s.senders).toHaveLength(before)
  })

  it('appending past the limit to an existing sender changes nothing', () => {
    const s = state()
    const half = Array.from({ length: SIM_LIMITS.maxSenderItems - 1 }, (_, i) => `{id-${i}}`)
    expect(run(s, 'subscribe', { sender: 'a', events: 'play', id: half }).error).toBeUndefined()
    expect(run(s, 'subscribe', { sender: 'a', id: ['{x}', '{y}'] }).error).toBe(
      `too many ids in a sender (limit ${SIM_LIMITS.maxSenderItems})`,
    )
    expect(s.senders.find((x) => x.name === 'a')!.ids).toHaveLength(SIM_LIMITS.maxSenderItems - 1)
    // A repeat of known items is not growth.
    expect(run(s, 'subscribe', { sender: 'a', id: half.slice(0, 10) }).error).toBeUndefined()
  })

  it('unSubscribe removes a full list at once', () => {
    const s = state()
    const ids = Array.from({ length: SIM_LIMITS.maxSenderItems }, (_, i) => `{id-${i}}`)
    run(s, 'subscribe', { sender: 'b', events: 'play,data', id: ids })
    expect(run(s, 'unSubscribe', { sender: 'b', id: ids }).error).toBeUndefined()
    expect(s.senders.find((x) => x.name === 'b')!.ids).toEqual([])
  })

  it(`at most ${SIM_LIMITS.maxSenders} senders, and a sender name is bounded`, () => {
    const s = state()
    for (let i = s.senders.length; i < SIM_LIMITS.maxSenders; i++)
      run(s, 'subscribe', { sender: `s${i}`, events: 'play' })
    expect(s.senders).toHaveLength(SIM_LIMITS.maxSenders)
    expect(run(s, 'subscribe', { sender: 'one-more', events: 'play' }).error).toBe(
      `too many notification senders (limit ${SIM_LIMITS.maxSenders})`,
    )
    expect(run(s, 'subscribe', { sender: 'x'.repeat(SIM_LIMITS.maxNameChars + 1), events: 'play' }).error).toBe(
      `sender name too long (limit ${SIM_LIMITS.maxNameChars} characters)`,
    )
  })
})

describe('titles (finding 5)', () => {
  it(`newTitle stops at ${SIM_LIMITS.maxTitles} titles with an error; the titles stay as they were`, () => {
    const s = state()
    while (s.titles.length < SIM_LIMITS.maxTitles) expect(run(s, 'newTitle').error).toBeUndefined()
    expect(run(s, 'newTitle').error).toBe(`too many titles (limit ${SIM_LIMITS.maxTitles})`)
    expect(run(s, 'duplicateTitle', { title: s.titles[0]!.name }).error).toBe(
      `too many titles (limit ${SIM_LIMITS.maxTitles})`,
    )
    expect(s.titles).toHaveLength(SIM_LIMITS.maxTitles)
    // Positions stay dense 0..n-1 on the channel (appending no longer sorts the channel).
    const positions = s.channelTitles(0).map((t) => t.position)
    expect(positions).toEqual(positions.map((_, i) => i))
  })

  it('names and inputs are bounded', () => {
    const s = state()
    const long = 'n'.repeat(SIM_LIMITS.maxNameChars + 1)
    expect(run(s, 'newTitle', { newName: long }).error).toBe(
      `title name too long (limit ${SIM_LIMITS.maxNameChars} characters)`,
    )
    const title = s.titles[0]!
    expect(run(s, 'setTitleName', { id: title.id, newName: long }).error).toBe(
      `title name too long (limit ${SIM_LIMITS.maxNameChars} characters)`,
    )
    const inputs = Array.from({ length: SIM_LIMITS.maxInputsPerTitle + 1 }, (_, i) => `in${i}`)
    expect(run(s, 'setTitleInput', { id: title.id, input: inputs }).error).toBe(
      `too many inputs on a title (limit ${SIM_LIMITS.maxInputsPerTitle})`,
    )
  })

  it('a project file with too many titles is refused before the open titles are removed', () => {
    const s = state()
    const before = s.titles.map((t) => t.id)
    const title = (i: number) => ({ id: `{t-${i}}`, name: `T${i}`, inputs: [], variables: [] })
    const file = join(s.dataDir, 'huge.nbproj')
    const videoFormat = { width: 1920, height: 1080, frameRate: 25 }
    const titles = Array.from({ length: SIM_LIMITS.maxTitles + 1 }, (_, i) => title(i))
    writeFileSync(file, JSON.stringify({ format: SIM_FILE_FORMAT, kind: 'project', version: 1, videoFormat, titles }))
    expect(run(s, 'loadProject', { file: 'huge.nbproj' }).error).toBe(`too many titles (limit ${SIM_LIMITS.maxTitles})`)
    expect(s.titles.map((t) => t.id)).toEqual(before)
  })

  it('a title file with too many variables is refused', () => {
    const s = state()
    const variables = Array.from({ length: SIM_LIMITS.maxVariablesPerTitle + 1 }, (_, i) => ({
      name: `v${i}`,
      value: '',
      type: 'text',
    }))
    const t = { id: '{00000000-0000-4000-8000-000000000001}', name: 'Many', inputs: [], variables }
    writeFileSync(join(s.dataDir, 'many.nbtitle'), JSON.stringify({ format: SIM_FILE_FORMAT, kind: 'title', title: t }))
    const count = s.titles.length
    expect(run(s, 'loadTitle', { file: 'many.nbtitle' }).error).toBe(
      `too many variables on a title (limit ${SIM_LIMITS.maxVariablesPerTitle})`,
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

  it(`the cache keeps at most ${SIM_LIMITS.iconCacheEntries} icons`, () => {
    const s = state()
    for (let i = 0; i < SIM_LIMITS.iconCacheEntries * 2; i++) {
      s.titles[0]!.color = `#${i.toString(16).padStart(6, '0')}`
      run(s, 'getTitleControlInfo', { width: 8, height: 8 })
    }
    expect(iconCacheStats().size).toBe(SIM_LIMITS.iconCacheEntries)
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
