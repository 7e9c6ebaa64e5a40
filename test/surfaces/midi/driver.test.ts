import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import type { LogRecord } from '../../../src/log.js'
import { combineHotplugSources } from '../../../src/surfaces/hotplug.js'
import { MIDI_RESCAN_MS, MidiDriver } from '../../../src/surfaces/midi/driver.js'
import type { SurfaceClaim } from '../../../src/families/claims.js'
import { SurfaceManager } from '../../../src/surfaces/manager.js'
import { FakeMidiBackend } from '../helpers/fake-midi.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'
import { captureLogs } from '../../helpers/logs.js'
import { MANAGER_CLOCK } from '../helpers/manager.js'

let logs: LogRecord[]

// Each test's managers stop first (their onTestFinished is the latest), on the fake clock; then the real clock and the sink return.
beforeEach(() => {
  logs = captureLogs()
  vi.useFakeTimers(MANAGER_CLOCK)
  onTestFinished(() => void vi.useRealTimers())
})

const APC_20 = 'APC mini mk2:APC mini mk2 APC mini mk2 _ 20:0'
const APC_24 = 'APC mini mk2:APC mini mk2 APC mini mk2 _ 24:0'
const THROUGH = 'Midi Through:Midi Through Port-0 14:0'

function setup(claims: SurfaceClaim[], backend: FakeMidiBackend, driverOpts = {}) {
  const driver = new MidiDriver({
    backend,
    surfaces: [{ input: 'apc mini', profile: 'apc-mini-mk2' }],
    ...driverOpts,
  })
  const manager = new SurfaceManager({ drivers: [driver], claims, hotplug: driver.hotplug })
  onTestFinished(() => manager.stop())
  return { driver, manager }
}

describe('MIDI driver', () => {
  it('rescans every 2 s', () => {
    expect(MIDI_RESCAN_MS).toBe(2000)
  })

  it('lists every input port as a device, claimed by a part of its name', async () => {
    const backend = new FakeMidiBackend({ inputs: [THROUGH, APC_20], outputs: [THROUGH, APC_20] })
    const { driver, manager } = setup([{ name: 'pads', driver: 'midi', match: { port: 'APC mini' } }], backend)
    expect(await driver.detect()).toEqual([
      { driver: 'midi', id: THROUGH, model: THROUGH, port: THROUGH },
      { driver: 'midi', id: APC_20, model: APC_20, port: APC_20 },
    ])
    await manager.start()
    expect(manager.list()).toMatchObject([{ id: 'pads', device: APC_20, driver: 'midi', model: 'Akai APC mini mk2' }])
    expect(backend.connections.map((c) => [c.input, c.output])).toEqual([[APC_20, APC_20]])
  })

  it('closes the surface when its port vanishes and reopens it, with its feedback, when the port returns', async () => {
    const backend = new FakeMidiBackend({ inputs: [THROUGH, APC_20], outputs: [THROUGH, APC_20] })
    const { manager } = setup([{ name: 'pads', driver: 'midi', match: { port: 'APC mini' } }], backend)
    await manager.start()
    const first = backend.last!
    manager.setFeedback('pads', 'note:1:0', { color: '#ff0000', led: 'on' })
    expect(first.sent.at(-1)).toEqual([0x96, 0, 5])

    backend.inputs = [THROUGH]
    backend.outputs = [THROUGH]
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS - 1)
    expect(manager.isOpen('pads')).toBe(true)
    await vi.advanceTimersByTimeAsync(1)
    expect(manager.isOpen('pads')).toBe(false)
    expect(first.closed).toBe(true)
    const warnings = logs.filter((l) => l.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toBe(`closed after a fault: Akai APC mini mk2 (${APC_20}); retrying with backoff`)
    expect(String(warnings[0]!.fields?.error)).toContain(`MIDI port "${APC_20}" vanished`)

    // It comes back under another ALSA client number, as a replugged device does.
    await vi.advanceTimersByTimeAsync(10_000)
    expect(manager.isOpen('pads')).toBe(false)
    backend.inputs = [THROUGH, APC_24]
    backend.outputs = [THROUGH, APC_24]
    // The driver's next rescan sees the port; the manager's rescan (0 ms after the change) opens it.
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS - 1)
    expect(manager.isOpen('pads')).toBe(false)
    await vi.advanceTimersByTimeAsync(2)
    expect(manager.isOpen('pads')).toBe(true)
    const second = backend.last!
    expect(second).not.toBe(first)
    expect(second.input).toBe(APC_24)
    // Blanked at open (80 LEDs), then the feedback it had, at once.
    expect(second.sent).toHaveLength(81)
    expect(second.sent[0]).toEqual([0x90, 0, 0])
    expect(second.sent.at(-1)).toEqual([0x96, 0, 5])
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1)
  })

  it('opens an output port named apart from the input', async () => {
    const backend = new FakeMidiBackend({ inputs: ['MIDIIN2 (Desk)'], outputs: ['MIDIOUT2 (Desk)', 'Desk'] })
    const driver = new MidiDriver({ backend, surfaces: [{ input: 'MIDIIN2', output: 'midiout2', profile: 'generic' }] })
    const [device] = await driver.detect()
    const surface = await driver.open(device!)
    expect(backend.last).toMatchObject({ input: 'MIDIIN2 (Desk)', output: 'MIDIOUT2 (Desk)' })
    surface.setFeedback('note:1:1', { led: 'on' })
    expect(backend.last!.sent).toEqual([[0x90, 1, 127]])
    await surface.close()
  })

  it('takes new surface options on configure (a reload)', async () => {
    const backend = new FakeMidiBackend({ inputs: ['Desk'], outputs: ['Desk', 'Desk out'] })
    const driver = new MidiDriver({ backend })
    const [device] = await driver.detect()
    const before = await driver.open(device!)
    expect(before.description.model).toBe('Generic MIDI controller')
    await before.close()
    driver.configure([{ input: 'desk', output: 'desk out', profile: 'behringer-x-touch-mini' }])
    const after = await driver.open(device!)
    expect(after.description.model).toBe('Behringer X-Touch Mini')
    expect(backend.last!.output).toBe('Desk out')
    await after.close()
  })

  it('opens a device without an output port, saying once that it gets no feedback', async () => {
    const backend = new FakeMidiBackend({ inputs: ['Pedal'], outputs: [] })
    const driver = new MidiDriver({ backend })
    const [device] = await driver.detect()
    const surface = await driver.open(device!)
    expect(backend.last).toMatchObject({ input: 'Pedal', output: undefined })
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      'MIDI output port not found: the controller gets no feedback',
    ])
    await surface.close()
  })

  it('refuses an unknown profile with the shipped ones named', async () => {
    const backend = new FakeMidiBackend({ inputs: ['X'], outputs: ['X'] })
    const driver = new MidiDriver({ backend, surfaces: [{ input: 'X', profile: 'nope' }] })
    const [device] = await driver.detect()
    await expect(driver.open(device!)).rejects.toThrow(
      'unknown MIDI profile "nope": a shipped profile (apc-mini-mk2, behringer-x-touch-mini, generic) or a path',
    )
  })

  it('reads the port lists only while something needs them', async () => {
    const backend = new FakeMidiBackend({ inputs: ['A'], outputs: ['A'] })
    const driver = new MidiDriver({ backend })
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS * 3)
    expect(backend.lists).toBe(0)
    const surface = await driver.open((await driver.detect())[0]!)
    const afterOpen = backend.lists
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS * 3)
    expect(backend.lists).toBe(afterOpen + 3)
    await surface.close()
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS * 3)
    expect(backend.lists).toBe(afterOpen + 3)
  })

  it('passive: lists no port while no MIDI surface is configured, and lists them once one is', async () => {
    const backend = new FakeMidiBackend({ inputs: ['A'], outputs: ['A'] })
    const driver = new MidiDriver({ backend, passive: true })
    const changes: string[] = []
    expect(await driver.hotplug.start((c) => changes.push(c))).toBe(true)
    expect(await driver.detect()).toEqual([])
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS * 3)
    expect(backend.lists).toBe(0)
    driver.configure([{ input: 'a' }])
    expect(await driver.detect()).toEqual([{ driver: 'midi', id: 'A', model: 'A', port: 'A' }])
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS)
    // The first list after configure is a change: the manager rescans and opens the new surface's port.
    expect(changes).toEqual(['attach'])
    driver.configure([])
    const lists = backend.lists
    await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS * 3)
    expect(backend.lists).toBe(lists)
    driver.hotplug.stop()
  })

  it("knows a detected port's controls from the profile its configured surface names", async () => {
    const backend = new FakeMidiBackend({ inputs: ['X-TOUCH MINI 24:0', 'Other'], outputs: [] })
    const driver = new MidiDriver({ backend, surfaces: [{ input: 'x-touch', profile: 'behringer-x-touch-mini' }] })
    const [xtouch, other] = await driver.detect()
    const controls = await driver.controlsOf(xtouch!)
    expect(controls?.map((c) => c.id)).toContain('cc:11:1')
    expect(controls).toHaveLength(33)
    // The generic profile lists no controls: they are known once events arrive.
    expect(await driver.controlsOf(other!)).toBeUndefined()
  })

  it('combines hot-plug sources: live only when every one is, changes from each', async () => {
    const a = new FakeHotplug(true)
    const b = new FakeHotplug(false)
    const changes: string[] = []
    expect(await combineHotplugSources(a, new FakeHotplug(true)).start(() => undefined)).toBe(true)
    const both = combineHotplugSources(a, b)
    expect(await both.start((c) => changes.push(c))).toBe(false)
    a.fire('attach')
    b.fire('detach')
    expect(changes).toEqual(['attach', 'detach'])
    both.stop()
    expect([a.stops, b.stops]).toEqual([1, 1])
  })
})
