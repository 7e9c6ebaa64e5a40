/**
 * `replay --compare`'s comparison (src/replay/compare.ts) and the trace reader's bounds
 * (src/replay/trace.ts), on hand-made command lists and trace files.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { replayCommand } from '../../src/commands/replay.js'
import {
  compareCommands,
  compareRuns,
  formatDifference,
  paramsText,
  runsOf,
  type ComparedCommand,
} from '../../src/replay/compare.js'
import { readTrace, REPLAY_MAX_LINE_CHARS } from '../../src/replay/trace.js'

const c = (origin: string, command: string, params: Record<string, unknown> = {}, run?: number): ComparedCommand => ({
  origin,
  command,
  params,
  ...(run !== undefined ? { run } : {}),
})
const scrub = (position: number, run: number): ComparedCommand =>
  c('deck/jog', 'replay_set_scrub_position', { position }, run)

describe('the comparison', () => {
  it('counts each run of scrub positions by its last, and the seed reads in either order', () => {
    const before = [
      c('deck/jog', 'replay_get_play_info'),
      c('deck/jog', 'replay_get_settings'),
      scrub(0.1, 0),
      scrub(0.2, 0),
      scrub(0.3, 0),
      c('deck/key:0', 'play', {}, 1),
      scrub(0.25, 1),
    ]
    const after = [
      c('deck/jog', 'replay_get_settings'),
      c('deck/jog', 'replay_get_play_info'),
      scrub(0.3, 0),
      c('deck/key:0', 'play', {}, 1),
      scrub(0.22, 1),
      scrub(0.25, 1),
      c('streaming poll', 'streaming_get_status'),
    ]
    expect(compareCommands(before, after)).toEqual([])
    // A run's last position that differs is a difference, even when a later run ends the same.
    const moved = after.map((x) => (x.run === 0 && x.command === 'replay_set_scrub_position' ? scrub(0.31, 0) : x))
    expect(compareCommands(before, moved)).toEqual([
      { binding: 'deck/jog', kind: 'changed', before: scrub(0.3, 0), after: scrub(0.31, 0) },
    ])
  })

  it('says changed, gone and new per binding, and order across bindings; parameters in any key order are the same', () => {
    const before = [c('a/k', 'schedule', { title: 'A', action: 'cutin' }), c('b/k', 'play'), c('c/k', 'stop')]
    expect(
      compareCommands(before, [
        c('a/k', 'schedule', { action: 'cutin', title: 'A' }),
        c('b/k', 'play'),
        c('c/k', 'stop'),
      ]),
    ).toEqual([])
    const diffs = compareCommands(before, [c('a/k', 'schedule', { title: 'B', action: 'cutin' }), c('d/k', 'play')])
    expect(diffs.map(formatDifference)).toEqual([
      'a/k: changed: schedule {"title":"A","action":"cutin"} → schedule {"title":"B","action":"cutin"}',
      'b/k: gone: play {}',
      'c/k: gone: stop {}',
      'd/k: new: play {}',
    ])
    const swapped = compareCommands(before, [
      c('b/k', 'play'),
      c('a/k', 'schedule', { title: 'A', action: 'cutin' }),
      c('c/k', 'stop'),
    ])
    expect(swapped).toHaveLength(1)
    expect(swapped[0]).toMatchObject({ kind: 'order', binding: 'a/k' })
  })

  it('flags a command that went through when recorded and failed when replayed as an outcome change', () => {
    const ok = { ...c('a/k', 'schedule', { title: 'A', action: 'cutin' }), outcome: 'ok' }
    const failed = { ...ok, outcome: 'APP_ERROR', message: 'no such title' }
    const diffs = compareCommands([ok, c('b/k', 'play')], [failed, c('b/k', 'play')])
    expect(diffs).toEqual([{ binding: 'a/k', kind: 'outcome', before: ok, after: failed }])
    expect(diffs.map(formatDifference)).toEqual([
      'a/k: outcome changed, ok → error: schedule {"title":"A","action":"cutin"}: recorded ok, replayed APP_ERROR (no such title)',
    ])
    // The other way round says so; another error than the recorded one is no difference (the
    // simulator words its refusals otherwise); an outcome not known is not compared.
    expect(compareCommands([failed], [ok]).map(formatDifference)).toEqual([
      'a/k: outcome changed, error → ok: schedule {"title":"A","action":"cutin"}: recorded APP_ERROR (no such title), replayed ok',
    ])
    expect(compareCommands([failed], [{ ...failed, outcome: 'TIMEOUT' }])).toEqual([])
    expect(compareCommands([c('a/k', 'schedule', { title: 'A', action: 'cutin' })], [failed])).toEqual([])
    // Changed and failed too: both are said.
    const other = { ...failed, params: { title: 'B', action: 'cutin' } }
    expect(compareCommands([ok], [other]).map(formatDifference)).toEqual([
      'a/k: changed: schedule {"title":"A","action":"cutin"} → schedule {"title":"B","action":"cutin"} (and its outcome: recorded ok, replayed APP_ERROR (no such title))',
    ])
  })

  it('counts what it compared the same way on both sides, and prints positions to the millisecond', () => {
    const before = [
      c('streaming poll', 'streaming_get_status'),
      c('streaming poll', 'streaming_get_status'),
      scrub(0.1, 0),
      scrub(0.16683350016683351, 0),
      c('deck/key:0', 'play', {}, 1),
    ]
    const after = [scrub(0.16683350016683351, 0), c('deck/key:0', 'play', {}, 1)]
    expect(compareRuns(before, after)).toEqual({ differences: [], compared: { recorded: 2, replayed: 2 } })
    const moved = compareRuns(before, [scrub(0.2504, 0), c('deck/key:0', 'play', {}, 1)])
    expect(moved.compared).toEqual({ recorded: 2, replayed: 2 })
    expect(moved.differences.map(formatDifference)).toEqual([
      'deck/jog: changed: replay_set_scrub_position {"position":0.167} → replay_set_scrub_position {"position":0.25}',
    ])
    // Two positions the same to the millisecond are shown whole, not as one text.
    expect(compareCommands([scrub(0.1671, 0)], [scrub(0.1672, 0)]).map(formatDifference)).toEqual([
      'deck/jog: changed: replay_set_scrub_position {"position":0.1671} → replay_set_scrub_position {"position":0.1672}',
    ])
    expect(paramsText({ position: 12.3456789, speed: 0.123456 })).toBe('{"position":12.346,"speed":0.123456}')
  })

  it('runsOf counts the inputs that are not turns before each command', () => {
    const inputs = [
      { t: 1, event: { type: 'rotate' } },
      { t: 2, event: { type: 'down' } },
      { t: 3, event: { type: 'up' } },
      { t: 4, event: { type: 'rotate' } },
    ]
    expect(runsOf(inputs, [{ t: 1.5 }, { t: 2.5 }, { t: 9 }])).toEqual([0, 1, 2])
  })
})

describe('a trace read', () => {
  it('keeps the records and skips, counted, what is not one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-trace-read-'))
    const file = join(dir, 't.jsonl')
    const lines = [
      '{"t":0,"kind":"start","format":"panelbridge-record","version":1,"config":"/x.yaml","pages":{"deck":"b"}}',
      '{"t":5,"kind":"input","surface":"deck","control":"key:0","type":"down","source":"surface"}',
      '{"t":3,"kind":"input","surface":"deck","control":"jog","type":"rotate","delta":2,"source":"api","by":"b1"}',
      '{"t":6,"kind":"command","command":"play","params":{},"origin":"deck/key:0","outcome":"ok","ms":1}',
      '{"t":7,"kind":"input","surface":"deck","control":"jog","type":"rotate","delta":1e300,"source":"api"}',
      '{"t":7,"kind":"input","surface":"deck","control":"key:0","type":"explode","source":"api"}',
      '{"t":7,"kind":"start","format":"other"}',
      'not json',
      '[1,2]',
      `{"t":8,"kind":"page","surface":"deck","page":"${'p'.repeat(REPLAY_MAX_LINE_CHARS)}"}`,
      '{"t":9,"kind":"page","surface":"deck","page":"a"}',
    ]
    await writeFile(file, `${lines.join('\n')}\n`)
    const trace = await readTrace(file)
    expect(trace.config).toBe('/x.yaml')
    expect(trace.pages).toEqual({ deck: 'b' })
    expect(trace.inputs.map((i) => [i.t, i.event.type])).toEqual([
      [3, 'rotate'],
      [5, 'down'],
    ])
    expect(trace.inputs[0]!.event).toMatchObject({ delta: 2, source: 'b1' })
    expect(trace.commands).toHaveLength(1)
    expect(trace.skipped).toBe(6)
  })
})

describe('replay’s command line', () => {
  it('refuses --against URL without --yes, and a bad speed', async () => {
    const err: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
      err.push(String(s))
      return true
    })
    try {
      expect(await replayCommand.run(['t.jsonl', '--against', 'http://gfx-box:9022'])).toBe(2)
      expect(await replayCommand.run(['t.jsonl', '--speed', '3'])).toBe(2)
      expect(await replayCommand.run(['t.jsonl', '--against', 'ftp://x', '--yes'])).toBe(2)
    } finally {
      spy.mockRestore()
    }
    expect(err.join('')).toContain('acts on a real application: add --yes')
    expect(err.join('')).toContain("--speed is 1, 2 or max, not '3'")
    expect(err.join('')).toContain('--against is sim or an http:// URL')
  })
})
