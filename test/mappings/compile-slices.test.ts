/**
 * Issue 24, item 3 (a reload's engine work): the new mapping is built in slices, the loop getting a turn
 * between them, beside the running mapping, which takes every input meanwhile; the swap is one
 * synchronous step; an abort leaves the running mapping as it was.
 *
 * The real engine; the clock of the slices is a counter (each reading one "ms" later) and the loop's turn
 * a function the test sees, so the number of turns is exact and nothing is timed. The only stand-in is
 * the command port (the transport boundary), which records the title of each command.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { setImmediate as realTurn } from 'node:timers/promises'
import { AppState } from '../../src/api/app-state.js'
import { CompileAborted, inSlices, prepareMapping } from '../../src/mappings/compile-slices.js'
import { Engine } from '../../src/mappings/engine.js'
import { answeringPort, loadOrThrow, RecordingSurfaces } from './helpers.js'

/** An 8×8 web surface with a key per binding, keys `from` to `to`, each sending `schedule` of "<word> <n>". */
function deskYaml(word: string, from: number, to: number): string {
  const lines = ['version: 1', 'surfaces:', '  desk: { driver: web, rows: 8, columns: 8 }', 'bindings:']
  for (let n = from; n <= to; n++) {
    lines.push(`  - on: desk/key:${n}`, `    label: "${word[0]}${n}"`)
    lines.push(`    press: { command: schedule, params: { action: cutin, title: "${word} ${n}" } }`)
  }
  return `${lines.join('\n')}\n`
}

/** The engine over the old mapping (keys 0-31, "Old"), and the titles of the commands it sends. */
async function rig(): Promise<{ engine: Engine; surfaces: RecordingSurfaces; sent: string[]; press(n: number): void }> {
  const sent: string[] = []
  const client = answeringPort((_name, params) => sent.push(String(params?.title)))
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ client, state: new AppState(), surfaces })
  onTestFinished(() => engine.stop())
  engine.apply(await loadOrThrow(deskYaml('Old', 0, 31)))
  const press = (n: number): void => {
    for (const type of ['down', 'up'] as const)
      engine.handle({ type, surface: 'desk', control: `key:${n}`, at: performance.now() })
  }
  return { engine, surfaces, sent, press }
}

/** A clock one "ms" later at each reading: a slice of 5 ms holds 5 steps. */
function counterClock(): () => number {
  let t = 0
  return () => t++
}

describe('a mapping compiled in slices', () => {
  it('inSlices gives the loop a turn after each slice of sliceMs, at least one step a slice', async () => {
    const done: number[] = []
    let turns = 0
    const at: number[] = []
    const nextTurn = (): Promise<void> => {
      at.push(done.length)
      turns++
      return Promise.resolve()
    }
    await inSlices(23, (i) => done.push(i), { sliceMs: 5, now: counterClock(), nextTurn })
    expect(done).toHaveLength(23)
    expect(at).toEqual([5, 10, 15, 20])
    expect(turns).toBe(4)
    // A step longer than the slice still makes progress: one step a turn.
    let slow = 0
    let clock = 0
    const steps: number[] = []
    await inSlices(3, (i) => steps.push(i), {
      sliceMs: 5,
      now: () => (clock += 10),
      nextTurn: () => Promise.resolve(slow++),
    })
    expect(steps).toEqual([0, 1, 2])
    expect(slow).toBe(2)
  })

  it('48 bindings yield at least 9 times; input meanwhile goes to the old mapping, whole', async () => {
    const r = await rig()
    const next = await loadOrThrow(deskYaml('New', 16, 63))
    const seen: { has0: boolean; has40: boolean }[] = []
    const prepared = await prepareMapping(r.engine, next, {
      sliceMs: 5,
      now: counterClock(),
      nextTurn: async () => {
        // Between slices: the running mapping is the old one, every key of it, none of the new.
        seen.push({ has0: r.engine.hasControl('desk', 'key:0'), has40: r.engine.hasControl('desk', 'key:40') })
        r.press(20)
        await realTurn()
      },
    })
    expect(seen.length).toBeGreaterThanOrEqual(9)
    expect(seen.every((s) => s.has0 && !s.has40)).toBe(true)
    expect(r.sent).toHaveLength(seen.length)
    expect(new Set(r.sent)).toEqual(new Set(['Old 20']))
    expect(r.surfaces.of('desk/key:20')?.text).toBe('O20')

    // The swap happens on the commit call itself, before anything else of the loop runs.
    const committed = prepared.commit()
    expect(r.engine.hasControl('desk', 'key:0')).toBe(false)
    expect(r.engine.hasControl('desk', 'key:40')).toBe(true)
    r.press(20)
    await committed
    await realTurn()
    expect(r.sent.at(-1)).toBe('New 20')
    expect(r.surfaces.of('desk/key:40')?.text).toBe('N40')
    expect(r.surfaces.of('desk/key:0')).toEqual({})
  })

  it('after the swap, the old bindings are retired and the controls redrawn in slices too', async () => {
    const r = await rig()
    let turns = 0
    let before = 0
    const atFirstTurn: { drawn: number; has40: boolean }[] = []
    const sliced = await prepareMapping(r.engine, await loadOrThrow(deskYaml('New', 0, 63)), {
      sliceMs: 5,
      now: counterClock(),
      nextTurn: () => {
        if (turns++ === 0)
          atFirstTurn.push({ drawn: r.surfaces.history.length - before, has40: r.engine.hasControl('desk', 'key:40') })
        return Promise.resolve()
      },
    })
    turns = 0
    atFirstTurn.length = 0
    before = r.surfaces.history.length
    await sliced.commit()
    // 32 old bindings to retire, then 64 keys to draw, 5 a slice: 20 slices, 19 turns between them.
    expect(turns).toBe(19)
    // At the first turn the new mapping was in force, and nothing was drawn yet (the retiring came first).
    expect(atFirstTurn).toEqual([{ drawn: 0, has40: true }])
    for (let n = 0; n < 64; n++) expect(r.surfaces.of(`desk/key:${n}`)?.text).toBe(`N${n}`)
  })

  it('an abort between slices leaves the running mapping as it was', async () => {
    const r = await rig()
    const abort = new AbortController()
    let turns = 0
    const failed = await prepareMapping(r.engine, await loadOrThrow(deskYaml('New', 16, 63)), {
      signal: abort.signal,
      sliceMs: 5,
      now: counterClock(),
      nextTurn: () => {
        if (++turns === 3) abort.abort()
        return Promise.resolve()
      },
    }).catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(CompileAborted)
    expect(turns).toBe(3)
    expect(r.engine.hasControl('desk', 'key:0')).toBe(true)
    expect(r.engine.hasControl('desk', 'key:40')).toBe(false)
    r.press(20)
    await realTurn()
    expect(r.sent).toEqual(['Old 20'])
    expect(r.surfaces.of('desk/key:20')?.text).toBe('O20')
  })

  it('a mapping applied meanwhile (another apply) does not leave a stale diff: the commit builds again', async () => {
    const r = await rig()
    const prepared = await prepareMapping(r.engine, await loadOrThrow(deskYaml('New', 16, 63)), {
      sliceMs: 5,
      now: counterClock(),
      nextTurn: () => Promise.resolve(),
    })
    r.engine.apply(await loadOrThrow(deskYaml('Other', 0, 7)))
    await prepared.commit()
    expect(r.engine.hasControl('desk', 'key:0')).toBe(false)
    expect(r.engine.hasControl('desk', 'key:63')).toBe(true)
    r.press(20)
    await realTurn()
    expect(r.sent).toEqual(['New 20'])
    expect(r.surfaces.of('desk/key:0')).toEqual({})
    expect(r.surfaces.of('desk/key:20')?.text).toBe('N20')
  })

  it('a press held across the swap ends on the binding that took its down; the replaced one is retired after', async () => {
    const r = await rig()
    const held = (word: string): string =>
      `version: 1\nsurfaces:\n  desk: { driver: web, rows: 8, columns: 8 }\nbindings:\n` +
      `  - on: desk/key:1\n    press: { command: schedule, params: { action: cutin, title: "${word} short" } }\n` +
      `    hold: { after_ms: 30000, command: schedule, params: { action: cutout, title: "${word} long" } }\n`
    r.engine.apply(await loadOrThrow(held('Old')))
    r.engine.handle({ type: 'down', surface: 'desk', control: 'key:1', at: performance.now() })
    const prepared = await prepareMapping(r.engine, await loadOrThrow(held('New')), {
      sliceMs: 5,
      now: counterClock(),
      nextTurn: () => Promise.resolve(),
    })
    await prepared.commit()
    r.engine.handle({ type: 'up', surface: 'desk', control: 'key:1', at: performance.now() })
    await realTurn()
    expect(r.sent).toEqual(['Old short'])
    r.press(1)
    await realTurn()
    expect(r.sent).toEqual(['Old short', 'New short'])
  })
})
