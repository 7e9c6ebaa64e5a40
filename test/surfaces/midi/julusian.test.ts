/**
 * The real `@julusian/midi` (native RtMidi over ALSA) on this machine. Where there is no ALSA sequencer
 * (a container, a headless box without sound devices) it must give one clear log line and no crash,
 * and the manager must run on.
 */
import { existsSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { setLogSink, type LogRecord, type LogSink } from '../../../src/log.js'
import { MIDI_SYSTEM, JulusianMidiBackend } from '../../../src/surfaces/midi/julusian.js'
import type { DeviceAccess } from '../../../src/surfaces/hotplug.js'
import { MidiDriver } from '../../../src/surfaces/midi/driver.js'
import { SurfaceManager } from '../../../src/surfaces/manager.js'
import { FakeHotplug } from '../helpers/fake-hotplug.js'

let logs: LogRecord[]
let prevSink: LogSink
beforeEach(() => {
  logs = []
  prevSink = setLogSink((r) => logs.push(r))
})
afterEach(() => {
  setLogSink(prevSink)
})

const noSequencer = !existsSync(MIDI_SYSTEM.sequencerPath)

describe('@julusian/midi on this machine', () => {
  it('lists ports, or without a MIDI system gives one clear line and empty lists, never a throw', async () => {
    const backend = new JulusianMidiBackend()
    const first = await backend.list()
    const second = await backend.list()
    const unavailable = logs.filter((l) => l.message === MIDI_SYSTEM.unavailableMessage)
    if (noSequencer) {
      expect(first).toEqual({ inputs: [], outputs: [] })
      expect(second).toEqual({ inputs: [], outputs: [] })
      expect(unavailable).toHaveLength(1)
      expect(unavailable[0]).toMatchObject({ level: 'warn', scope: 'midi' })
      // What was looked for rides along, for whoever reads the journal.
      expect(unavailable[0]!.fields?.path).toBe(MIDI_SYSTEM.sequencerPath)
    } else {
      expect(Array.isArray(first.inputs) && Array.isArray(first.outputs)).toBe(true)
      expect(unavailable).toHaveLength(0)
    }
  })

  it('the manager with the real MIDI driver starts, waits for the configured surface and stops', async () => {
    const driver = new MidiDriver({ surfaces: [{ input: 'APC mini', profile: 'apc-mini-mk2' }] })
    const manager = new SurfaceManager({
      drivers: [driver],
      claims: [{ name: 'pads', driver: 'midi', match: { port: 'APC mini' } }],
      hotplug: new FakeHotplug(true),
    })
    await manager.start()
    await manager.rescan()
    expect(manager.statuses()).toEqual([
      { name: 'pads', driver: 'midi', state: 'waiting', message: 'no matching device found yet' },
    ])
    if (noSequencer) {
      expect(logs.filter((l) => l.message === MIDI_SYSTEM.unavailableMessage)).toHaveLength(1)
      expect(logs.filter((l) => l.level === 'warn' || l.level === 'error')).toHaveLength(1)
    }
    await manager.stop()
  })

  it('a failed module load (no libasound2) is the same one line', async () => {
    const backend = new JulusianMidiBackend({
      load: () => Promise.reject(new Error('libasound.so.2: cannot open shared object file')),
      sequencer: () => 'ok',
    })
    expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(logs.map((l) => l.message)).toEqual([MIDI_SYSTEM.unavailableMessage])
  })

  /** A stand-in for the native module: RtMidi throws (and prints to stderr) while ALSA cannot be reached. */
  function nativeModule(reachable: () => boolean) {
    const tries = { count: 0 }
    const ports = (): string[] => {
      tries.count++
      if (!reachable()) throw new Error('MidiInAlsa::initialize: error creating ALSA sequencer client object.')
      return ['Pads']
    }
    const mod = { Input: { getPortNames: ports }, Output: { getPortNames: ports } }
    return { tries, load: () => Promise.resolve(mod as never) }
  }

  it('never loads the native side while there is no sequencer (the ALSA library would print its failure to stderr)', async () => {
    let loads = 0
    const backend = new JulusianMidiBackend({
      load: () => {
        loads++
        return Promise.reject(new Error('not to be loaded'))
      },
      sequencer: () => 'missing',
    })
    for (let i = 0; i < 3; i++) expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(loads).toBe(0)
    expect(logs.map((l) => [l.message, l.fields?.path])).toEqual([
      [MIDI_SYSTEM.unavailableMessage, MIDI_SYSTEM.sequencerPath],
    ])
  })

  it('tries the native side again only when the sequencer appears or becomes accessible, never on every rescan', async () => {
    let seq: DeviceAccess = 'missing'
    const native = nativeModule(() => seq === 'ok')
    const backend = new JulusianMidiBackend({ load: native.load, sequencer: () => seq })
    expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(native.tries.count).toBe(0)
    // The sound device appears, but this user may not open it: one line that says what to do.
    seq = 'denied'
    expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(native.tries.count).toBe(0)
    seq = 'ok'
    expect(await backend.list()).toEqual({ inputs: ['Pads'], outputs: ['Pads'] })
    expect(native.tries.count).toBe(2)
    expect(logs.map((l) => l.message)).toEqual([
      MIDI_SYSTEM.unavailableMessage,
      MIDI_SYSTEM.permissionMessage,
      'MIDI available again',
    ])
  })

  it('a failure with the sequencer there and accessible is not retried until it goes and comes back', async () => {
    let seq: DeviceAccess = 'ok'
    let reachable = false
    const native = nativeModule(() => reachable)
    const backend = new JulusianMidiBackend({ load: native.load, sequencer: () => seq })
    for (let i = 0; i < 5; i++) expect(await backend.list()).toEqual({ inputs: [], outputs: [] })
    expect(native.tries.count).toBe(1)
    reachable = true
    seq = 'missing'
    await backend.list()
    seq = 'ok'
    expect(await backend.list()).toEqual({ inputs: ['Pads'], outputs: ['Pads'] })
    expect(logs.filter((l) => l.message === MIDI_SYSTEM.unavailableMessage)).toHaveLength(1)
  })
})
