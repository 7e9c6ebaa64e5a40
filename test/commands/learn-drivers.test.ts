/**
 * Issue 15: `panelbridge learn` prints the right canonical id and a snippet that loads for events of
 * the MIDI driver (`note:CH:N`, `cc:CH:N`) and the generic HID driver (through its report map), each
 * over an in-memory transport behind the real driver; and `learn --raw` shows which bytes and bits of
 * a HID device's input reports change, through the HID driver's raw-report hook.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runLearn } from '../../src/commands/learn.js'
import { RAW_MAX_CHANGES_SHOWN, RawReportDiff } from '../../src/commands/learn-raw.js'
import { loadConfigText } from '../../src/mappings/load.js'
import type { HidListing } from '../../src/surfaces/report-map/driver.js'
import { MidiDriver } from '../../src/surfaces/midi/driver.js'
import { FakeMidiBackend } from '../surfaces/helpers/fake-midi.js'
import { harness, type Harness } from './hardware-helpers.js'
import { until } from '../helpers/until.js'

const PEDAL: HidListing = { path: '/dev/hidraw7', vendorId: 0x05f3, productId: 0x00ff, product: 'VEC USB Footpedal' }
const KEYBOARD: HidListing = { path: '/dev/hidraw1', vendorId: 0x046d, productId: 0xc31c, usagePage: 1 }

const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const s of stops.splice(0)) await s()
})

function learn(h: Harness, args: string[]) {
  const stop = new AbortController()
  const done = runLearn(args, { ...h.deps, stop: stop.signal })
  stops.push(async () => {
    stop.abort()
    await done
  })
  return { stop, done }
}

/** A HID device's input reports, one after another. */
function feed(device: { report(bytes: number[]): void }, ...reports: number[][]): void {
  for (const r of reports) device.report(r)
}

/** The snippets printed, pasted under `bindings:` of `config`: the loader's problems. */
async function pasted(h: Harness, config: string) {
  const snippet = h.out.filter((l) => l.startsWith('    ')).map((l) => l.slice(2))
  return loadConfigText(`${config}\nbindings:\n${snippet.join('\n')}\n`, 'pasted.yaml')
}

describe('learn with the MIDI driver', () => {
  const CONFIG = ['version: 1', 'surfaces:', '  pads: { driver: midi, input: APC mini }'].join('\n')

  it('prints note:CH:N and cc:CH:N under the configured name, with snippets that load', async () => {
    const h = harness()
    const backend = new FakeMidiBackend({ inputs: ['APC mini mk2 MIDI 1'], outputs: ['APC mini mk2 MIDI 1'] })
    h.extra.push({ driver: new MidiDriver({ backend }), controlsOf: () => Promise.resolve(undefined) })
    const { stop, done } = learn(h, ['--config', h.config(CONFIG), '--url', 'http://127.0.0.1:1'])
    await until('the port open', () => h.out.some((l) => l.endsWith('learning as pads')))
    expect(h.out).toContain('  claimed by surfaces: { pads: { driver: midi, input: APC mini } }')

    const port = backend.last!
    port.receive([0x90, 60, 100]) // note on, channel 1
    port.receive([0x80, 60, 0]) // note off
    port.receive([0xb3, 7, 127]) // CC 7 on channel 4
    port.receive([0xe0, 0, 0x20]) // pitch bend on channel 1, below centre
    await until('the pitch bend', () => h.out.some((l) => l.startsWith('pads/pitchbend:1 value')))
    expect(h.out.filter((l) => l.startsWith('pads/'))).toEqual([
      'pads/note:1:60 down',
      'pads/note:1:60 up',
      'pads/cc:4:7 value 1.000 (raw 127)',
      expect.stringMatching(/^pads\/pitchbend:1 value -0\.500/),
    ])
    expect(h.out).toContain('    - on: pads/note:1:60')
    expect(h.out).toContain('    - on: pads/cc:4:7')
    // The range comes from the control's own: 0..1 for a CC, -1..1 (reverse to forward) for a pitch bend.
    expect(h.out).toContain('      # the control sends 0..1; raw 127 now: range maps its ends')
    expect(h.out).toContain('      value: { command: replay_set_replay_speed, param: speed, range: [0, 2] }')
    expect(h.out).toContain('      value: { command: replay_set_replay_speed, param: speed, range: [-2, 2] }')
    const { config, problems } = await pasted(h, CONFIG)
    expect(problems).toEqual([])
    expect(config!.bindings.map((b) => b.on)).toEqual(['pads/note:1:60', 'pads/cc:4:7', 'pads/pitchbend:1'])
    stop.abort()
    expect(await done).toBe(0)
  })

  it('suggests a midi entry by port name for a port the config does not name', async () => {
    const h = harness()
    const backend = new FakeMidiBackend({ inputs: ['X-TOUCH MINI MIDI 1'], outputs: [] })
    h.extra.push({ driver: new MidiDriver({ backend }), controlsOf: () => Promise.resolve(undefined) })
    learn(h, ['--url', 'http://127.0.0.1:1'])
    await until('the port open', () => h.out.some((l) => l.endsWith('learning as midi1')))
    expect(h.out).toContain(
      '  not in the config; add under surfaces: { midi1: { driver: midi, input: X-TOUCH MINI MIDI 1 } }',
    )
    backend.last!.receive([0x99, 36, 64]) // note on, channel 10
    await until('the note', () => h.out.includes('midi1/note:10:36 down'))
    const entry = h.out.find((l) => l.includes('add under surfaces:'))!.split('add under surfaces: ')[1]!
    const { problems } = await pasted(h, `version: 1\nsurfaces:\n  ${entry.slice(2, -2)}`)
    expect(problems).toEqual([])
  })
})

describe('learn with the generic HID driver', () => {
  const CONFIG = [
    'version: 1',
    'surfaces:',
    '  pedal:',
    '    driver: hid',
    '    vendor_id: 1523',
    '    product_id: 255',
    '    map: { fields: [{ control: "button:0", byte: 0, bit: 0 }, { control: "button:1", byte: 0, bit: 1 }, { control: "fader:0", byte: 1, bits: 8 }] }',
  ].join('\n')

  it('prints the ids its report map names, under the configured name, with snippets that load', async () => {
    const h = harness()
    const transport = h.hid
    transport.listings = [KEYBOARD, PEDAL]
    const { stop, done } = learn(h, ['--config', h.config(CONFIG), '--url', 'http://127.0.0.1:1'])
    await until('the pedal open', () => h.out.some((l) => l.endsWith('learning as pedal')))
    // Only the configured device is opened: the keyboard is left alone.
    expect(transport.opened.map((o) => o.path)).toEqual([PEDAL.path])

    const pedal = transport.current(PEDAL.path)!
    feed(pedal, [0b10, 0], [0b00, 0], [0b00, 255])
    await until('the fader', () => h.out.some((l) => l.startsWith('pedal/fader:0')))
    expect(h.out.filter((l) => l.startsWith('pedal/'))).toEqual([
      'pedal/button:1 down',
      // The first report gives each absolute field its starting value.
      'pedal/fader:0 value 0.000 (raw 0)',
      'pedal/button:1 up',
      'pedal/fader:0 value 1.000 (raw 255)',
    ])
    expect(h.out.filter((l) => l === '    - on: pedal/fader:0')).toHaveLength(1)
    const { config, problems } = await pasted(h, CONFIG)
    expect(problems).toEqual([])
    expect(config!.bindings.map((b) => b.on)).toEqual(['pedal/button:1', 'pedal/fader:0'])
    stop.abort()
    expect(await done).toBe(0)
    expect(pedal.closed).toBe(true)
  })
})

describe('learn --raw', () => {
  function rawHarness(listings: HidListing[]) {
    const h = harness()
    h.hid.listings = listings
    return { h, transport: h.hid }
  }

  it('shows which bytes and bits change between reports of the device named, skipping identical ones', async () => {
    const { h, transport } = rawHarness([KEYBOARD, PEDAL])
    const { stop, done } = learn(h, ['--raw', '--device', '05f3:00ff'])
    await until('the pedal open', () => h.out.some((l) => l.startsWith('reading raw reports of 05f3:00ff')))
    expect(transport.opened.map((o) => o.path)).toEqual([PEDAL.path])
    const pedal = transport.current(PEDAL.path)!
    // Identical reports in a row: the second of each pair shows nothing.
    feed(pedal, [0x00, 0x00, 0x00, 0x00], [0x00, 0x00, 0x00, 0x00])
    feed(pedal, [0x00, 0x00, 0x00, 0x04], [0x00, 0x00, 0x00, 0x04])
    feed(pedal, [0x03, 0x00, 0x80, 0x00])
    await until('the last change', () => h.out.some((l) => l.includes('byte 2')))
    expect(h.out.filter((l) => l.startsWith('05f3:00ff '))).toEqual([
      '05f3:00ff first report, 4 bytes: 00 00 00 00',
      '05f3:00ff byte 3 0x00→0x04 (bit 2 set)',
      '05f3:00ff byte 0 0x00→0x03 (bits 0, 1 set), byte 2 0x00→0x80 (bit 7 set), byte 3 0x04→0x00 (bit 2 cleared)',
    ])
    stop.abort()
    expect(await done).toBe(0)
    expect(pedal.closed).toBe(true)
    expect(pedal.listenerCount('data')).toBe(0)
  })

  it('counts bytes after the report id with --report-ids, per report id', async () => {
    const { h, transport } = rawHarness([PEDAL])
    learn(h, ['--raw', '--device', '0x05F3:0x00FF', '--report-ids'])
    await until('the pedal open', () => transport.opened.length === 1)
    const pedal = transport.current(PEDAL.path)!
    feed(pedal, [1, 0x00, 0x10], [2, 0x7f], [1, 0x00, 0x30], [2, 0x7f])
    await until('the change', () => h.out.some((l) => l.includes('byte 1')))
    expect(h.out.filter((l) => l.startsWith('05f3:00ff '))).toEqual([
      '05f3:00ff report 1: first report, 2 bytes: 00 10',
      '05f3:00ff report 2: first report, 1 byte: 7f',
      '05f3:00ff report 1: byte 1 0x10→0x30 (bit 5 set)',
    ])
  })

  it('reads the config’s hid surfaces by default, counting as their map does', async () => {
    const { h, transport } = rawHarness([KEYBOARD, PEDAL])
    const file = h.config(
      [
        'version: 1',
        'surfaces:',
        '  pedal: { driver: hid, vendor_id: 1523, product_id: 255, map: { report_id: 1, fields: [{ control: "button:0", byte: 0 }] } }',
      ].join('\n'),
    )
    learn(h, ['--raw', '--config', file])
    await until('the pedal open', () => h.out.some((l) => l.startsWith('reading raw reports of pedal:')))
    const pedal = transport.current(PEDAL.path)!
    pedal.report([1, 0])
    pedal.report([1, 1])
    await until('the change', () => h.out.includes('pedal report 1: byte 0 0x00→0x01 (bit 0 set)'))
  })

  it('without a device to read, lists the HID devices present and exits 1; a bad --device is exit 2', async () => {
    const { h, transport } = rawHarness([KEYBOARD, PEDAL])
    expect(await runLearn(['--raw'], h.deps)).toBe(1)
    expect(h.err).toEqual([
      'panelbridge learn --raw: name the device with --device VID:PID (or configure a driver: hid surface).',
      'HID devices present:',
      '  046d:c31c usage page 0x0001 (/dev/hidraw1)',
      '  05f3:00ff VEC USB Footpedal (/dev/hidraw7)',
    ])
    h.err.length = 0
    expect(await runLearn(['--raw', '--device', '1234:5678'], h.deps)).toBe(1)
    expect(h.err).toEqual(['panelbridge learn --raw: no HID device 1234:5678 is present'])
    expect(await runLearn(['--raw', '--device', 'pedal'], h.deps)).toBe(2)
    expect(await runLearn(['--device', '05f3:00ff'], h.deps)).toBe(2)
    expect(transport.opened).toEqual([])
  })
})

describe('RawReportDiff', () => {
  it('names at most RAW_MAX_CHANGES_SHOWN bytes per line, counts the rest, and says when the length changes', () => {
    const diff = new RawReportDiff(false)
    expect(diff.next(new Uint8Array(12))).toBe('first report, 12 bytes: 00 00 00 00 00 00 00 00 00 00 00 00')
    const line = diff.next(new Uint8Array(10).fill(1))!
    expect(line.match(/byte \d+ /g)).toHaveLength(RAW_MAX_CHANGES_SHOWN)
    expect(line).toMatch(/, and 4 more bytes \(length 12→10\)$/)
    expect(diff.next(new Uint8Array(11).fill(1))).toBe('byte 10 --→0x01 (length 10→11)')
    expect(diff.next(new Uint8Array(11).fill(1))).toBeUndefined()
  })

  it('keeps its own copy of each report (a reused buffer does not hide a change)', () => {
    const diff = new RawReportDiff(false)
    const buffer = Buffer.from([0, 0])
    diff.next(buffer)
    buffer[1] = 0xff
    expect(diff.next(buffer)).toBe('byte 1 0x00→0xff (bits 0, 1, 2, 3, 4, 5, 6, 7 set)')
  })
})
