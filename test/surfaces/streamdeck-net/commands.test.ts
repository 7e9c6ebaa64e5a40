/**
 * `panelbridge devices` and `learn` with network decks in the config: the decks its addresses reach
 * are listed (a dock's deck as the deck it is), with the surface that claims each or the entry to
 * paste; an address nobody answers at is the claim's "no device present" line; learn opens them and
 * prints a press under the configured name. The driver runs over the in-memory network (the transport
 * boundary).
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { HardwareCommandDeps } from '../../../src/commands/hardware.js'
import { runDevices } from '../../../src/commands/devices.js'
import { runLearn } from '../../../src/commands/learn.js'
import { StreamDeckNetDriver } from '../../../src/surfaces/streamdeck-net/driver.js'
import { streamdeckNetFamily } from '../../../src/surfaces/streamdeck-net/family.js'
import { testConfigFile } from '../../helpers/files.js'
import { captureLogs } from '../../helpers/logs.js'
import { until } from '../../helpers/until.js'
import { addDockedXl, addStudio } from './daemon-rig.js'
import { FakeNetwork } from './fake-net-deck.js'

/** The network deck family over `network`, as `devices` and `learn` take it (its images are not looked at). */
const netFamily = (network: FakeNetwork) =>
  streamdeckNetFamily.create({ transport: network, encodeJPEG: () => Promise.resolve(new Uint8Array(8)) }, {})

describe('panelbridge devices and learn with network decks', () => {
  it('lists the decks the configured addresses reach, claimed or with the entry to paste', async () => {
    captureLogs()
    const network = new FakeNetwork()
    addStudio(network)
    addDockedXl(network)

    const file = await testConfigFile(
      'net-devices',
      `version: 1
surfaces:
  studio: { driver: streamdeck-net, host: 127.0.0.5, serial: STUDIO01 }
  dockdeck: { driver: streamdeck-net, host: 127.0.0.6, serial: XL0002 }
  away: { driver: streamdeck-net, host: 127.0.0.7, port: 6000 }
bindings: []
`,
    )
    const out: string[] = []
    const err: string[] = []
    const made = netFamily(network)
    onTestFinished(() => (made.driver as StreamDeckNetDriver).closeAll())
    const deps: HardwareCommandDeps = {
      drivers: () => [made],
      access: () => Promise.resolve('ok'),
      defaultConfig: undefined,
      out: (line) => void out.push(...line.split('\n')),
      err: (line) => void err.push(line),
    }
    expect(await runDevices(['--config', file], deps)).toBe(0)
    expect(err).toEqual([])
    expect(out[0]).toBe(`2 devices found (drivers: streamdeck-net); claims from ${file}`)
    expect(out).toEqual(
      expect.arrayContaining([
        'streamdeck-net  Stream Deck Studio  serial STUDIO01',
        '  controls: 2 encoders, 32 keys',
        '  claimed by: studio',
        'streamdeck-net  Stream Deck XL  serial XL0001',
        '  claimed by: nothing; to use it, add under surfaces: { streamdeck-net1: { driver: streamdeck-net, host: 127.0.0.6, serial: XL0001, model: xl } }',
        `surface dockdeck (streamdeck-net): no device present matches { port: tcp://127.0.0.6:5343/, serial: XL0002 }`,
        `surface away (streamdeck-net): no device present matches { port: tcp://127.0.0.7:6000/ }`,
      ]),
    )
    expect(network.attempts).toEqual(
      expect.arrayContaining(['127.0.0.5:5343', '127.0.0.6:5343', '127.0.0.6:5344', '127.0.0.7:6000']),
    )
  })

  it('learn opens the decks the configured addresses reach and prints a press under the configured name', async () => {
    captureLogs()
    const network = new FakeNetwork()
    const studio = addStudio(network)
    const file = await testConfigFile(
      'net-learn',
      'version: 1\nsurfaces:\n  studio: { driver: streamdeck-net, host: 127.0.0.5 }\nbindings: []\n',
    )
    const out: string[] = []
    const made = netFamily(network)
    const stop = new AbortController()
    const done = runLearn(['--config', file, '--url', 'http://127.0.0.1:1'], {
      drivers: () => [made],
      access: () => Promise.resolve('ok'),
      hotplug: { start: () => Promise.resolve(false), stop: () => undefined },
      defaultConfig: undefined,
      out: (line) => void out.push(...line.split('\n')),
      err: () => undefined,
      stop: stop.signal,
    })
    onTestFinished(async () => {
      stop.abort()
      await done
    })
    await until('the deck open', () => out.some((l) => l.endsWith('learning as studio')))
    studio.key(5, true)
    studio.key(5, false)
    await until('the press', () => out.some((l) => l.startsWith('studio/key:5 up')))
    expect(out.filter((l) => l.startsWith('studio/'))).toEqual(['studio/key:5 down', 'studio/key:5 up'])
    stop.abort()
    expect(await done).toBe(0)
    // Learn's stop closes the driver's connections.
    expect(studio.current).toBeUndefined()
  })
})
