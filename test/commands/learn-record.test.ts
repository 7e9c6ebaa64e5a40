/**
 * Issue 28, item 3: `learn --record FILE` writes the raw input reports of the HID panels it opens, each
 * with the events the driver made of it, and the fixtures' trace reader (`test/surfaces/helpers/hid-trace.ts`,
 * the one `hid-traces.test.ts` uses) takes the file as it is: each device's reports, replayed into the
 * same driver over a fresh in-memory device, give the same events. The real drivers and device libraries
 * over in-memory HID devices.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runLearn } from '../../src/commands/learn.js'
import {
  LEARN_RECORD,
  LearnRecording,
  parseLearnRecording,
  type LearnRecordFs,
} from '../../src/commands/learn-record.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { until } from '../helpers/until.js'
import { brief, hex, openers, readTraces, type Trace } from '../surfaces/helpers/hid-trace.js'
import { hidHarness } from './hid-harness.js'
import { nobody } from './learn-helpers.js'
import { xk24Report } from '../surfaces/helpers/fake-xkeys.js'

/** Replays a trace through its driver: the events of each report, in the fixtures' notation. */
async function replay(trace: Trace): Promise<string[][]> {
  const { surface, deliver } = await openers[trace.driver]!(trace)
  onTestFinished(() => surface.close())
  expect(surface.description.model).toBe(trace.name)
  if (trace.controls) expect(surface.description.controls.map((c) => c.id)).toEqual(trace.controls)
  const events: SurfaceEvent[] = []
  surface.events.on('input', (e) => events.push(e))
  return trace.steps.map((step) => {
    events.length = 0
    deliver(hex(step.report))
    return events.map(brief)
  })
}

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'pb-learn-record-'))

describe('panelbridge learn --record', () => {
  it('writes the raw reports with their events; the fixture reader replays them into the same driver', async () => {
    const h = hidHarness()
    h.shuttles.plug('shuttlepro_v2', '/dev/hidraw2', 'SP2-1')
    h.xkeys.plug('XK24', '/dev/hidraw4', { unitId: 3 })
    const dir = tempDir()
    const file = join(dir, 'trace.jsonl')
    const stop = new AbortController()
    const done = runLearn(['--url', await nobody(), '--record', file], { ...h.deps, stop: stop.signal })
    await until('two devices open', () => h.out.filter((l) => l.includes(': learning as ')).length === 2)
    expect(h.out).toContain(`recording the HID panels' raw input reports to ${file}`)

    const wheel = h.shuttles.lastOpened('/dev/hidraw2')!
    wheel.report(2, 100) // the ring at 2; the jog counter only seeds
    wheel.report(0, 101)
    wheel.report(-3, 103)
    wheel.input([0, 103]) // too short to decode: recorded, no event
    wheel.report(0, 103, 1 << 4)
    wheel.report(0, 103)
    const pad = h.xkeys.lastOpened('/dev/hidraw4')!
    pad.input(xk24Report(3, [7]))
    pad.input(xk24Report(3, [7, 8]))
    pad.input(xk24Report(3, []))
    await until('the last key up', () => h.out.some((l) => l.startsWith('xkeys2/key:5 up')))
    stop.abort()
    expect(await done).toBe(0)
    expect(h.out).toContain(`recorded 6 from shuttle1, 3 from xkeys2 to ${file} (a trace for test/fixtures/hid/)`)

    // The file as the fixtures' directory reads it: one trace per device, with its model and ids.
    const traces = readTraces(pathToFileURL(`${dir}/`))
    expect(traces.map((t) => t.file)).toEqual(['trace.jsonl#SP2-1', 'trace.jsonl#05f3:0405@/dev/hidraw4#unit3'])
    const [shuttle, xkeys] = traces.map((t) => t.trace)
    expect(shuttle).toMatchObject({ driver: 'shuttle', model: 'shuttlepro_v2', name: 'ShuttlePro v2' })
    expect(xkeys).toMatchObject({ driver: 'xkeys', model: 'XK24', name: 'XK-24', unitId: 3 })
    expect(shuttle!.steps.map((s) => s.report)).toEqual([
      '02 64 00 00 00',
      '00 65 00 00 00',
      'fd 67 00 00 00',
      '00 67',
      '00 67 00 10 00',
      '00 67 00 00 00',
    ])
    expect(shuttle!.steps.map((s) => s.events)).toEqual([
      ['value shuttle 2'],
      ['value shuttle 0', 'rotate jog +1'],
      ['value shuttle -3', 'rotate jog +2'],
      [],
      ['value shuttle 0', 'down button:4'],
      ['up button:4'],
    ])
    expect(xkeys!.steps.map((s) => s.events)).toEqual([['down key:1'], ['down key:5'], ['up key:1', 'up key:5']])

    // Replayed into the same driver, each report makes the events recorded with it.
    for (const trace of [shuttle!, xkeys!]) expect(await replay(trace)).toEqual(trace.steps.map((s) => s.events))
  })

  it('is refused with --raw, and while a daemon holds the devices', async () => {
    const h = hidHarness()
    const file = join(tempDir(), 'trace.jsonl')
    expect(await runLearn(['--raw', '--record', file], h.deps)).toBe(2)
    expect(h.err[0]).toBe('panelbridge learn: --record goes without --raw')

    const daemon = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ version: '1.0.0', config: '', surfaces: [] }))
    })
    await new Promise<void>((r) => daemon.listen(0, '127.0.0.1', r))
    onTestFinished(() => new Promise<void>((r) => daemon.close(() => r())))
    const url = `http://127.0.0.1:${(daemon.address() as AddressInfo).port}`
    h.err.length = 0
    expect(await runLearn(['--url', url, '--record', file], h.deps)).toBe(1)
    expect(h.err[0]).toBe(
      `panelbridge learn --record: a panelbridge daemon at ${url} holds the devices, and their raw reports.`,
    )
  })
})

describe('the learn --record file', () => {
  const fakeSurface = {
    description: { id: 'X', driver: 'shuttle', model: 'ShuttleXpress', controls: [{ id: 'jog', kind: 'jog' }] },
  }

  it('stops growing at its bound: later reports are dropped, counted and said once', async () => {
    const writes: string[] = []
    const fs: LearnRecordFs = {
      writeFile: (_p, data) => (writes.push(data), Promise.resolve()),
      appendFile: (_p, data) => (writes.push(data), Promise.resolve()),
    }
    const warned: string[] = []
    const rec = await LearnRecording.open({ file: 'f.jsonl', warn: (m) => warned.push(m), fs, maxBytes: 600 })
    // A surface that sends its reports through the events a HID panel sends.
    const listeners = new Map<string, (...a: unknown[]) => void>()
    const events = {
      on: (e: string, l: (...a: unknown[]) => void) => (listeners.set(e, l), events),
      off: () => events,
      once: () => events,
      listenerCount: () => 0,
    }
    rec.attach({ driver: 'shuttle', id: 'X', model: 'ShuttleXpress', modelId: 'shuttlexpress' }, {
      ...fakeSurface,
      events,
    } as never)
    for (let i = 0; i < 20; i++) listeners.get('report')!(Uint8Array.of(0, i, 0, 0, 0))
    const summary = await rec.stop()
    const text = writes.join('')
    expect(text.length).toBeLessThanOrEqual(600)
    const { traces } = parseLearnRecording(text)
    expect(traces[0]!.steps.length).toBe(summary.reports.get('X'))
    expect(summary.reports.get('X')! + summary.dropped).toBe(20)
    expect(summary.dropped).toBeGreaterThan(0)
    expect(warned).toEqual([
      `learn --record: reports dropped (the file reached its bound of 600 bytes); f.jsonl goes on with gaps`,
    ])
  })

  it('is read bounded: a foreign file is refused, lines that are not records are counted and skipped', () => {
    expect(() => parseLearnRecording('{"kind":"start","format":"panelbridge-record","version":1}\n')).toThrow(
      /not a learn --record file/,
    )
    const start = JSON.stringify({ kind: 'start', format: LEARN_RECORD.format, version: 1, started: 'then' })
    const device = JSON.stringify({ kind: 'device', device: 'D', driver: 'shuttle', model: 'm', name: 'M' })
    const good = JSON.stringify({ kind: 'report', t: 1, device: 'D', report: '00 01', events: ['down button:0'] })
    const lines = [
      start,
      JSON.stringify({ kind: 'report', t: 0, device: 'D', report: '00', events: [] }), // before its device line
      device,
      good,
      JSON.stringify({ kind: 'report', t: 2, device: 'D', report: '0g', events: [] }), // not hex
      JSON.stringify({ kind: 'report', t: 3, device: 'D', report: '00', events: [7] }), // not an event
      JSON.stringify({ kind: 'device', device: 'E', driver: 'xkeys', model: 'XK24', name: 'XK-24', unitId: 300 }),
      'not json',
      'x'.repeat(70_000),
      '',
    ]
    const { traces, skipped } = parseLearnRecording(lines.join('\n'))
    expect(traces).toEqual([
      {
        device: 'D',
        driver: 'shuttle',
        model: 'm',
        name: 'M',
        started: 'then',
        steps: [{ t: 1, report: '00 01', events: ['down button:0'] }],
      },
    ])
    expect(skipped).toBe(6)
    const big = join(tempDir(), 'big.jsonl')
    writeFileSync(big, start)
    expect(parseLearnRecording(readFileSync(big, 'utf8')).traces).toEqual([])
  })
})
