/**
 * A surface entry's `brightness` reaches the deck: the daemon over a USB Stream Deck (the in-memory HID
 * device under the real library, which encodes its own brightness feature report `03 08 <percent>`) and
 * over a network deck (the library's own protocol through an in-memory network). Sent when the surface
 * opens and again at every reopen (replug, reconnect); a reload that changes only the brightness sends
 * it to the open deck at once, without reopening it; an entry without one sends none.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { writeFile } from 'node:fs/promises'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { DaemonEvent } from '../../src/daemon/api.js'
import type { Daemon } from '../../src/daemon/daemon.js'
import { KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../../src/surfaces/streamdeck/driver.js'
import { testConfigFile } from '../helpers/files.js'
import { surfaceState, testDaemon } from '../helpers/in-process-daemon.js'
import { captureLogs } from '../helpers/logs.js'
import { until } from '../helpers/until.js'
import { FakeHotplug } from './helpers/fake-hotplug.js'
import { MemoryStreamDeckTransport, rawImageEncoder, type FakeHidDevice } from './helpers/fake-hid.js'
import { addStudio, netDeckDaemon } from './streamdeck-net/daemon-rig.js'
import { FakeNetwork } from './streamdeck-net/fake-net-deck.js'

const DESK = '/dev/hidraw-desk'
const PLAIN = '/dev/hidraw-plain'

/** Two XLs: `desk` with the brightness given (none when undefined), `plain` never with one. */
function usbConfig(desk: number | undefined, plain?: number): string {
  const b = (v: number | undefined): string => (v === undefined ? '' : `, brightness: ${v}`)
  return `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  desk: { driver: streamdeck, model: xl, serial: DESK1${b(desk)} }
  plain: { driver: streamdeck, model: xl, serial: PLAIN1${b(plain)} }
bindings:
  - on: desk/key:0
    label: Desk
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: plain/key:0
    label: Plain
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`
}

/** The brightness feature reports the library wrote to a device, as their percent. */
const brightnessOf = (dev: FakeHidDevice | undefined): number[] =>
  (dev?.features ?? []).filter((f) => f[0] === 0x03 && f[1] === 0x08).map((f) => f[2]!)

/** Writes `text` to a config file of its own; removed when the test ends. */
const configFile = (text: string): Promise<string> => testConfigFile('brightness', text)

/** How many times each surface was announced open, from the daemon's event stream. */
function countOpens(daemon: Daemon): Map<string, number> {
  const opens = new Map<string, number>()
  const stop = daemon.watchEvents((e: DaemonEvent) => {
    if (e.type === 'surface' && e.surface.state === 'open')
      opens.set(e.surface.name, (opens.get(e.surface.name) ?? 0) + 1)
  })
  onTestFinished(stop)
  return opens
}

async function startUsb(text: string) {
  captureLogs()
  const file = await configFile(text)
  const transport = new MemoryStreamDeckTransport()
  transport.plug(DeviceModelId.XL, DESK, 'DESK1')
  transport.plug(DeviceModelId.XL, PLAIN, 'PLAIN1')
  const hotplug = new FakeHotplug()
  const driver = new StreamDeckDriver({
    transport,
    renderer: new KeyRenderer(),
    encodeJPEG: rawImageEncoder,
    frameMs: 0,
  })
  const daemon = await testDaemon(file, [driver], hotplug)
  const opens = countOpens(daemon)
  const stateOf = (name: string): string | undefined => surfaceState(daemon, name)
  const painted = (path: string): boolean => (transport.lastOpened(path)?.reports.length ?? 0) > 0
  // Both open and drawn: a brightness, written before the frame's key images, would be there by now.
  await until('both decks open and painted', () => stateOf('desk') === 'open' && painted(DESK) && painted(PLAIN))
  const openedAt = (path: string): number => transport.opened.filter((d) => d.info.path === path).length
  return { daemon, transport, hotplug, file, opens, stateOf, openedAt }
}

describe('brightness of a USB Stream Deck', () => {
  it('is sent when the deck opens; an entry without brightness sends none', async () => {
    const { transport } = await startUsb(usbConfig(30))
    expect(brightnessOf(transport.lastOpened(DESK))).toEqual([30])
    expect(brightnessOf(transport.lastOpened(PLAIN))).toEqual([])
  })

  it('is sent again when the deck is unplugged and plugged in again', async () => {
    const { transport, hotplug, stateOf, openedAt } = await startUsb(usbConfig(30))
    const first = transport.lastOpened(DESK)
    transport.unplug(DESK)
    hotplug.fire('detach')
    await until('the desk waiting', () => stateOf('desk') === 'waiting')
    transport.plug(DeviceModelId.XL, DESK, 'DESK1')
    hotplug.fire('attach')
    await until('the desk open again', () => openedAt(DESK) === 2 && stateOf('desk') === 'open')
    const second = transport.lastOpened(DESK)
    expect(second).not.toBe(first)
    await until('the brightness on the new device', () => brightnessOf(second).length > 0)
    expect(brightnessOf(second)).toEqual([30])
    expect(brightnessOf(first)).toEqual([30])
  })

  it('a reload that changes only the brightness sends it to the open deck at once, without reopening it', async () => {
    const { daemon, transport, file, opens, openedAt } = await startUsb(usbConfig(30))
    const opensBefore = opens.get('desk') ?? 0
    await writeFile(file, usbConfig(80))
    expect(await daemon.reload()).toBe(true)
    await until('the new brightness', () => brightnessOf(transport.lastOpened(DESK)).length === 2)
    expect(brightnessOf(transport.lastOpened(DESK))).toEqual([30, 80])
    // The same device, never closed nor opened again.
    expect(openedAt(DESK)).toBe(1)
    expect(transport.lastOpened(DESK)?.closed).toBe(false)
    expect(opens.get('desk') ?? 0).toBe(opensBefore)
    expect(brightnessOf(transport.lastOpened(PLAIN))).toEqual([])
  })

  it('a reload that leaves the brightness as it was sends nothing', async () => {
    const { daemon, transport, file } = await startUsb(usbConfig(30))
    // Counted before the reload: on a busy machine the new label may be drawn before reload() returns.
    const reports = transport.lastOpened(DESK)!.reports.length
    await writeFile(file, usbConfig(30).replace('label: Desk', 'label: Desk 2'))
    expect(await daemon.reload()).toBe(true)
    // The new label drawn: the reload's writes have gone out.
    await until('the new label drawn', () => transport.lastOpened(DESK)!.reports.length > reports)
    expect(brightnessOf(transport.lastOpened(DESK))).toEqual([30])
  })

  it('a reload that gives an entry a brightness sends it; one that takes it away sends none, at once or at the next open', async () => {
    const { daemon, transport, hotplug, file, stateOf, openedAt } = await startUsb(usbConfig(30))
    await writeFile(file, usbConfig(undefined, 55))
    expect(await daemon.reload()).toBe(true)
    await until('the plain deck given its brightness', () => brightnessOf(transport.lastOpened(PLAIN)).length > 0)
    expect(brightnessOf(transport.lastOpened(PLAIN))).toEqual([55])
    expect(openedAt(PLAIN)).toBe(1)

    // The desk's brightness forgotten: replugged, its new device is sent none.
    transport.unplug(DESK)
    hotplug.fire('detach')
    await until('the desk waiting', () => stateOf('desk') === 'waiting')
    transport.plug(DeviceModelId.XL, DESK, 'DESK1')
    hotplug.fire('attach')
    await until(
      'the desk open and painted again',
      () => openedAt(DESK) === 2 && (transport.lastOpened(DESK)?.reports.length ?? 0) > 0,
    )
    expect(brightnessOf(transport.lastOpened(DESK))).toEqual([])
    expect(brightnessOf(transport.opened[0])).toEqual([30])
  })
})

function netConfig(brightness: number | undefined): string {
  return `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  studio: { driver: streamdeck-net, host: 127.0.0.5, serial: STUDIO01, model: studio${brightness === undefined ? '' : `, brightness: ${brightness}`} }
bindings:
  - on: studio/key:3
    label: Studio
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`
}

async function startNet(text: string) {
  captureLogs()
  const file = await configFile(text)
  const network = new FakeNetwork()
  const studio = addStudio(network)
  const daemon = await netDeckDaemon(file, network)
  const opens = countOpens(daemon)
  const stateOf = (name: string): string | undefined => surfaceState(daemon, name)
  await until('the studio open and painted', () => stateOf('studio') === 'open' && studio.keysWritten().size === 32)
  return { daemon, studio, file, opens, stateOf }
}

describe('brightness of a network Stream Deck', () => {
  it('a reload that changes only the brightness sends it to the connected deck at once, without reopening it', async () => {
    const { daemon, studio, file, opens } = await startNet(netConfig(40))
    expect(studio.brightness).toEqual([40])
    const opensBefore = opens.get('studio') ?? 0
    const images = studio.images.length
    await writeFile(file, netConfig(65))
    expect(await daemon.reload()).toBe(true)
    await until('the new brightness', () => studio.brightness.length === 2)
    expect(studio.brightness).toEqual([40, 65])
    // Not reopened: not announced open again, not repainted, the same connection.
    expect(opens.get('studio') ?? 0).toBe(opensBefore)
    expect(studio.keysWritten(images).size).toBeLessThan(32)
    expect(studio.connections).toBe(1)
  })

  it('after such a reload, a reconnect sends the new brightness once', async () => {
    const { daemon, studio, file, stateOf } = await startNet(netConfig(40))
    await writeFile(file, netConfig(65))
    expect(await daemon.reload()).toBe(true)
    await until('the new brightness', () => studio.brightness.length === 2)
    studio.online = false
    studio.drop()
    await until('the studio waiting', () => stateOf('studio') === 'waiting')
    const images = studio.images.length
    studio.online = true
    await until('the studio repainted', () => stateOf('studio') === 'open' && studio.keysWritten(images).size === 32)
    expect(studio.brightness).toEqual([40, 65, 65])
    expect(studio.connections).toBe(2)
  })

  it('a reload that drops the brightness sends the deck default at once (as its next connect would)', async () => {
    const { daemon, studio, file, opens } = await startNet(netConfig(40))
    const opensBefore = opens.get('studio') ?? 0
    await writeFile(file, netConfig(undefined))
    expect(await daemon.reload()).toBe(true)
    await until('the default brightness', () => studio.brightness.length === 2)
    expect(studio.brightness).toEqual([40, 100])
    expect(opens.get('studio') ?? 0).toBe(opensBefore)
  })
})
