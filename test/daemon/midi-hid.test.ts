/**
 * The daemon with a MIDI surface and a generic HID surface from its config, over the in-memory MIDI
 * port and an in-memory node-hid-shaped device (the transport boundaries), against the simulator: input
 * reaches the application as the bound command, the application's state comes back as LED bytes, a
 * vanished port comes back, and a reload reopens exactly the surfaces whose entry changed. Last, the
 * real drivers on this machine (no sound devices here) with a MIDI surface: one clear line, no crash.
 */
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { CommandClient } from '../../src/api/client.js'
import { Daemon } from '../../src/daemon/daemon.js'
import type { LogRecord } from '../../src/log.js'
import { captureLogs } from '../helpers/logs.js'
import { startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { ReportMapDriver } from '../../src/surfaces/report-map/driver.js'
import { MIDI_RESCAN_MS, MidiDriver } from '../../src/surfaces/midi/driver.js'
import { feedbackMessages } from '../../src/surfaces/midi/feedback.js'
import { MIDI_SYSTEM } from '../../src/surfaces/midi/julusian.js'
import { loadMidiProfile } from '../../src/surfaces/midi/profile.js'
import { MemoryHidTransport } from '../surfaces/helpers/fake-generic-hid.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { FakeMidiBackend } from '../surfaces/helpers/fake-midi.js'
import { testConfigFile } from '../helpers/files.js'
import { simulatedConfig } from '../helpers/config.js'
import { SAFETY_MS } from '../helpers/until.js'

const writeConfig = (text: string): Promise<string> => testConfigFile('midi-hid', text)

const WAIT = { timeout: SAFETY_MS, interval: 10 }
const PORT = 'APC mini mk2:APC mini mk2 APC mini mk2 _ 20:0'
const PEDAL = { path: '/dev/hidraw5', vendorId: 0x05f3, productId: 0x00ff, product: 'VEC USB Footpedal' }

function configText(app: string, profile = 'generic', extra = ''): string {
  return `version: 1
app: ${app}
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  pads: { driver: midi, input: APC mini, profile: ${profile} }
  pedal:
    driver: hid
    vendor_id: 0x05f3
    product_id: 0x00ff
    map: { fields: [{ control: 'button:0', byte: 0, bit: 0 }] }
bindings:
  - on: pads/note:1:56
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
    feedback: { title: 'Lower Third' }
  - on: pedal/button:0
    press: { command: schedule, params: { action: cutout, title: 'Lower Third' } }
${extra}`
}

async function simulator(): Promise<SimulatorHandle> {
  const sim = await startSimulator()
  onTestFinished(() => sim.close())
  return sim
}

async function start(config: string) {
  const file = await writeConfig(config)
  const backend = new FakeMidiBackend({ inputs: [PORT], outputs: [PORT] })
  const hid = new MemoryHidTransport([PEDAL])
  const daemon = await Daemon.start({
    reloadTimeoutMs: SAFETY_MS,
    config: file,
    drivers: [new MidiDriver({ backend }), new ReportMapDriver({ transport: hid })],
    hotplug: new FakeHotplug(true),
    access: () => Promise.resolve('ok'),
    watch: false,
  })
  onTestFinished(() => daemon.stop())
  return { daemon, file, backend, hid }
}

const appOf = (sim: SimulatorHandle): string => `{ url: '${sim.httpUrl}', notifications: '${sim.wsUrl}' }`
const stateOf = (daemon: Daemon, name: string): string | undefined =>
  daemon.status().surfaces.find((s) => s.name === name)?.state
/** The messages sent for one note (its LED), in order. */
const noteBytes = (sent: number[][], note: number): number[][] => sent.filter((m) => m[1] === note)

describe('the daemon with MIDI and HID surfaces', () => {
  it('a note press and a pedal press reach the simulator as their bound commands', async () => {
    captureLogs()
    const sim = await simulator()
    const { daemon, backend, hid } = await start(configText(appOf(sim)))
    await expect.poll(() => [stateOf(daemon, 'pads'), stateOf(daemon, 'pedal')], WAIT).toEqual(['open', 'open'])
    expect(daemon.status().surfaces.find((s) => s.name === 'pedal')).toMatchObject({
      driver: 'hid',
      model: 'VEC USB Footpedal',
    })

    backend.last!.receive([0x90, 56, 100])
    backend.last!.receive([0x80, 56, 0])
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => [e.parameters.action, e.parameters.title]), WAIT)
      .toEqual([['cutin', 'Lower Third']])
    hid.current(PEDAL.path)!.report([0b1])
    hid.current(PEDAL.path)!.report([0b0])
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => [e.parameters.action, e.parameters.title]), WAIT)
      .toEqual([
        ['cutin', 'Lower Third'],
        ['cutout', 'Lower Third'],
      ])
  })

  it("sends LED bytes on the port when the application's state changes", async () => {
    captureLogs()
    const sim = await simulator()
    const { daemon, backend } = await start(configText(appOf(sim)))
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    // The generic profile: velocity 0 puts the LED out (the title is off), 127 lights it.
    await expect.poll(() => noteBytes(backend.last?.sent ?? [], 56).at(-1), WAIT).toEqual([0x90, 56, 0])
    const client = new CommandClient({ baseUrl: sim.httpUrl })
    onTestFinished(() => client.close())
    // Another operator plays the title in the application itself.
    await client.callByName('schedule', { action: 'cutin', title: 'Lower Third' })
    await expect.poll(() => noteBytes(backend.last!.sent, 56).at(-1), WAIT).toEqual([0x90, 56, 127])
    await client.callByName('schedule', { action: 'cutout', title: 'Lower Third' })
    await expect.poll(() => noteBytes(backend.last!.sent, 56).at(-1), WAIT).toEqual([0x90, 56, 0])
  })

  it('a reload that edits the MIDI profile reopens the port and re-sends the feedback; one that does not, reopens nothing', async () => {
    captureLogs()
    const sim = await simulator()
    const { daemon, file, backend, hid } = await start(configText(appOf(sim)))
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    const client = new CommandClient({ baseUrl: sim.httpUrl })
    onTestFinished(() => client.close())
    await client.callByName('schedule', { action: 'cutin', title: 'Lower Third' })
    await expect.poll(() => noteBytes(backend.last!.sent, 56).at(-1), WAIT).toEqual([0x90, 56, 127])
    const first = backend.last!

    // A binding added, the surfaces untouched: neither device is reopened.
    await writeFile(
      file,
      configText(appOf(sim), 'generic', '  - on: pads/note:1:57\n    press: { command: replay_play_pause }\n'),
    )
    expect(await daemon.reload()).toBe(true)
    expect(backend.connections).toEqual([first])
    expect(hid.opened).toHaveLength(1)

    await writeFile(file, configText(appOf(sim), 'apc-mini-mk2'))
    expect(await daemon.reload()).toBe(true)
    await expect.poll(() => backend.connections.length, WAIT).toBe(2)
    expect(first.closed).toBe(true)
    await expect.poll(() => stateOf(daemon, 'pads'), WAIT).toBe('open')
    expect(daemon.status().surfaces.find((s) => s.name === 'pads')).toMatchObject({ model: 'Akai APC mini mk2' })
    // The APC profile's bytes for what the pad shows now (a running title), after the blanking at open.
    const profile = await loadMidiProfile('apc-mini-mk2')
    const shown = daemon.controlState('pads', 'note:1:56')
    expect(shown).toMatchObject({ led: 'on' })
    const expected = feedbackMessages(profile.controls.get('note:1:56')!, shown as { led: 'on'; color: string }, 100)
    await expect.poll(() => noteBytes(backend.last!.sent, 56).at(-1), WAIT).toEqual(expected.at(-1))
    expect(expected.at(-1)).not.toEqual([0x90, 56, 127])
    // The HID device's entry did not change: it stayed open.
    expect(hid.opened).toHaveLength(1)
    expect(hid.opened[0]!.closed).toBe(false)
  })

  it('a reload that edits the HID report map reopens that device with the new map, and leaves the MIDI port open', async () => {
    captureLogs()
    const sim = await simulator()
    const { daemon, file, backend, hid } = await start(configText(appOf(sim)))
    await expect.poll(() => [stateOf(daemon, 'pads'), stateOf(daemon, 'pedal')], WAIT).toEqual(['open', 'open'])
    const port = backend.last!
    await writeFile(
      file,
      configText(appOf(sim)).replace("control: 'button:0', byte: 0, bit: 0", "control: 'button:0', byte: 0, bit: 1"),
    )
    expect(await daemon.reload()).toBe(true)
    await expect.poll(() => hid.opened.length, WAIT).toBe(2)
    expect(hid.opened[0]!.closed).toBe(true)
    await expect.poll(() => stateOf(daemon, 'pedal'), WAIT).toBe('open')
    expect(backend.connections).toEqual([port])
    // Bit 0 no longer presses the pedal's button; bit 1 does.
    hid.current(PEDAL.path)!.report([0b01])
    hid.current(PEDAL.path)!.report([0b00])
    hid.current(PEDAL.path)!.report([0b10])
    hid.current(PEDAL.path)!.report([0b00])
    await expect.poll(() => sim.http.commands('schedule').length, WAIT).toBe(1)
    // A note press after them: once its command is in, a second cutout would be too.
    port.receive([0x90, 56, 127, 0x80, 56, 0])
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => String(e.parameters.action)), WAIT)
      .toContain('cutin')
    expect(
      sim.http
        .commands('schedule')
        .map((e) => String(e.parameters.action))
        .sort(),
    ).toEqual(['cutin', 'cutout'])
  })

  it('the X-Touch Mini replay example: knob 1 sets the speed and its LED ring shows it; the replay button lights in replay mode', async () => {
    captureLogs()
    const sim = await simulator()
    const example = await readFile(new URL('../../config/examples/xtouch-mini-replay.yaml', import.meta.url), 'utf8')
    const file = await testConfigFile(
      'midi-hid',
      example.replace('url: http://127.0.0.1:9022', `url: ${sim.httpUrl}\n  notifications: ${sim.wsUrl}`),
    )
    const XTOUCH = 'X-TOUCH MINI:X-TOUCH MINI MIDI 1 24:0'
    const backend = new FakeMidiBackend({ inputs: [XTOUCH], outputs: [XTOUCH] })
    const daemon = await Daemon.start({
      reloadTimeoutMs: SAFETY_MS,
      config: file,
      drivers: [new MidiDriver({ backend })],
      hotplug: new FakeHotplug(true),
      watch: false,
    })
    onTestFinished(() => daemon.stop())
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    expect(daemon.status().surfaces).toEqual([
      expect.objectContaining({ name: 'desk', state: 'open', model: 'Behringer X-Touch Mini' }),
    ])
    const port = backend.last!
    // Knob 1 (CC 1 on channel 11) at three quarters: speed 1.5, and the ring (the same CC back) at 3/4.
    port.receive([0xba, 1, 95])
    await expect
      .poll(() => sim.http.commands('replay_set_replay_speed').map((e) => Number(e.parameters.speed)), WAIT)
      .toEqual([1.4961])
    await expect.poll(() => port.sent.filter((m) => m[0] === 0xba && m[1] === 1).at(-1), WAIT).toEqual([0xba, 1, 95])
    // Arm and start camera 1 (button 4, note 11), then the replay-mode button (note 8): its LED (note 0
    // on channel 1) lights once the application is in replay mode.
    const led0 = (): number[] | undefined => port.sent.filter((m) => m[0] === 0x90 && m[1] === 0).at(-1)
    expect(led0()).toEqual([0x90, 0, 0])
    port.receive([0x9a, 11, 127, 0x8a, 11, 0])
    await expect.poll(() => sim.http.commands('replay_enable').length, WAIT).toBe(1)
    port.receive([0x9a, 8, 127, 0x8a, 8, 0])
    await expect.poll(led0, WAIT).toEqual([0x90, 0, 1])
    expect(sim.http.commands('replay_enable_scrubbing').map((e) => String(e.parameters.enable))).toEqual(['true'])
    expect(sim.state.replay.state).toBe('replay')
  })

  describe('with fake timers', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('closes the MIDI surface when its port vanishes (one warning) and reopens it with its feedback when the port returns', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
      const logs = captureLogs()
      // No application here: time is the subject, and the link only retries meanwhile.
      const { daemon, backend } = await start(
        configText("{ url: 'http://127.0.0.1:9', notifications: 'ws://127.0.0.1:9' }"),
      )
      expect(stateOf(daemon, 'pads')).toBe('open')
      const first = backend.last!
      await vi.advanceTimersByTimeAsync(0)
      const shown = noteBytes(first.sent, 56).at(-1)
      expect(shown).toEqual([0x90, 56, 0])
      const warnings = (): LogRecord[] => logs.filter((l) => l.level === 'warn' && l.scope.startsWith('surfaces'))

      backend.inputs = []
      backend.outputs = []
      await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS - 1)
      expect(stateOf(daemon, 'pads')).toBe('open')
      await vi.advanceTimersByTimeAsync(1)
      expect(stateOf(daemon, 'pads')).toBe('failed')
      expect(first.closed).toBe(true)
      expect(warnings().map((l) => l.message)).toEqual([
        expect.stringMatching(
          /^closed after a fault: Generic MIDI controller \(APC mini mk2.*\); retrying with backoff$/,
        ),
      ])
      // Gone for a while: the retries find nothing, and say nothing more.
      await vi.advanceTimersByTimeAsync(30_000)
      expect(stateOf(daemon, 'pads')).not.toBe('open')

      backend.inputs = [PORT]
      backend.outputs = [PORT]
      // The driver's next rescan sees the port; the manager's rescan (0 ms after the change) opens it.
      await vi.advanceTimersByTimeAsync(MIDI_RESCAN_MS - 1)
      expect(stateOf(daemon, 'pads')).not.toBe('open')
      await vi.advanceTimersByTimeAsync(2)
      expect(stateOf(daemon, 'pads')).toBe('open')
      const second = backend.last!
      expect(second).not.toBe(first)
      expect(noteBytes(second.sent, 56)).toEqual([shown])
      expect(warnings()).toHaveLength(1)
    })
  })

  it('with the real drivers on this machine and a MIDI surface: one clear line when there is no MIDI system, and it runs on', async () => {
    const logs = captureLogs()
    const file = await writeConfig(
      simulatedConfig(
        `  - on: pads/note:1:56
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
    feedback: { title: 'Lower Third' }
`,
        2,
        '  pads: { driver: midi, input: APC mini, profile: apc-mini-mk2 }\n',
      ),
    )
    const daemon = await Daemon.start({ config: file, watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(() => daemon.stop())
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    expect(stateOf(daemon, 'pads')).toBe('waiting')
    // Reloads rescan every driver, MIDI's port lists included: still the one line.
    expect(await daemon.reload()).toBe(true)
    expect(await daemon.reload()).toBe(true)
    expect(stateOf(daemon, 'pads')).toBe('waiting')
    const unavailable = logs.filter((l) => l.message === MIDI_SYSTEM.unavailableMessage)
    if (!existsSync(MIDI_SYSTEM.sequencerPath)) {
      expect(unavailable).toHaveLength(1)
      expect(unavailable[0]).toMatchObject({ level: 'warn', scope: expect.stringContaining('midi') })
    } else {
      expect(unavailable).toHaveLength(0)
    }
    // It runs on: the web surface takes a press to the simulator.
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    expect(
      daemon
        .status()
        .surfaces.map((s) => s.name)
        .sort(),
    ).toEqual(['console', 'pads'])
  })

  it('with the real drivers and a config without MIDI: the MIDI system is left alone (no line)', async () => {
    const logs = captureLogs()
    const file = await writeConfig(simulatedConfig('[]\n'))
    const daemon = await Daemon.start({ config: file, watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(() => daemon.stop())
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    // A reload has rescanned every driver by the time it resolves.
    expect(await daemon.reload()).toBe(true)
    expect(logs.filter((l) => l.scope.includes('midi'))).toEqual([])
  })
})
