/**
 * The network Stream Deck driver over the library's own protocol, through an in-memory network (the
 * transport boundary): a Studio found at its configured address by its serial, its keys and encoders,
 * key images as the library writes them, a press as input; a Network Dock's deck as the deck it is,
 * following plug and unplug; nothing connects until an entry names an address.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { FIRST_ANSWER_WAIT_MS, StreamDeckNetDriver, deckAddress } from '../../../src/surfaces/streamdeck-net/driver.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import { captureLogs } from '../../helpers/logs.js'
import { FakeNetDeck, FakeNetwork } from './fake-net-deck.js'

const WAIT = { timeout: 5000, interval: 10 }
const fastJpeg = (): Promise<Uint8Array> => Promise.resolve(new Uint8Array(64))

function driverOn(network: FakeNetwork): StreamDeckNetDriver {
  const driver = new StreamDeckNetDriver({
    transport: network,
    renderer: new KeyRenderer(),
    encodeJPEG: fastJpeg,
    frameMs: 0,
    backoff: { initialMs: 20, maxMs: 100, stableMs: 10_000 },
  })
  onTestFinished(() => driver.closeAll())
  return driver
}

describe('the streamdeck-net driver', () => {
  it('connects to nothing until an entry names an address', async () => {
    const network = new FakeNetwork()
    const driver = driverOn(network)
    expect(await driver.detect()).toEqual([])
    driver.configure([])
    expect(await driver.detect()).toEqual([])
    expect(network.attempts).toEqual([])
  })

  it('finds a Studio by its serial, with its 32 keys and 2 encoders; a press is input, feedback is image writes', async () => {
    captureLogs()
    const network = new FakeNetwork()
    const studio = network.add('127.0.0.5', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    const driver = driverOn(network)
    driver.configure([{ host: '127.0.0.5', brightness: 40 }])
    const found = await driver.detect()
    expect(found).toEqual([
      {
        driver: 'streamdeck-net',
        id: 'STUDIO01',
        serial: 'STUDIO01',
        model: 'Stream Deck Studio',
        modelId: 'studio',
        port: deckAddress('127.0.0.5'),
      },
    ])
    const surface = await driver.open(found[0]!)
    onTestFinished(() => surface.close())
    const kinds = surface.description.controls.map((c) => c.kind)
    expect(kinds.filter((k) => k === 'key')).toHaveLength(32)
    expect(kinds.filter((k) => k === 'encoder')).toHaveLength(2)
    expect(surface.description.driver).toBe('streamdeck-net')

    // An open paints every key and sends the brightness.
    await expect.poll(() => studio.keysWritten().size, WAIT).toBe(32)
    expect(studio.brightness).toEqual([40])

    const before = studio.images.length
    surface.setFeedback('key:3', { color: '#ff0000', text: 'CUT' })
    await expect.poll(() => [...studio.keysWritten(before)], WAIT).toEqual([3])

    const events: SurfaceEvent[] = []
    surface.events.on('input', (e) => events.push(e))
    studio.key(3, true)
    studio.key(3, false)
    await expect.poll(() => events.map((e) => `${e.type} ${e.control}`), WAIT).toEqual(['down key:3', 'up key:3'])
  })

  it("lists a Network Dock's deck as the deck it is, and follows its unplug and replug", async () => {
    captureLogs()
    const network = new FakeNetwork()
    const dock = network.add('127.0.0.6', 5343, new FakeNetDeck({ model: 'network-dock', serial: 'DOCK01' }))
    const xl = network.add('127.0.0.6', 5344, new FakeNetDeck({ model: 'xl', serial: 'XL0001', child: true }))
    dock.docked = { deck: xl, port: 5344 }
    const driver = driverOn(network)
    driver.configure([{ host: '127.0.0.6' }])
    await expect
      .poll(async () => (await driver.detect()).map((d) => [d.id, d.modelId, d.port]), WAIT)
      .toEqual([['XL0001', 'xl', deckAddress('127.0.0.6')]])

    const surface = await driver.open((await driver.detect())[0]!)
    const closed = new Promise<void>((resolve) => surface.events.on('closed', resolve))
    expect(surface.description.controls.filter((c) => c.kind === 'key')).toHaveLength(32)
    dock.plug(undefined)
    await closed
    await expect.poll(async () => (await driver.detect()).length, WAIT).toBe(0)

    dock.plug({ deck: xl, port: 5344 })
    await expect.poll(async () => (await driver.detect()).map((d) => d.id), WAIT).toEqual(['XL0001'])
  })

  it('a bad packet from the deck is logged once and ends only that connection, which comes back', async () => {
    const logs = captureLogs()
    const network = new FakeNetwork()
    const studio = network.add('127.0.0.5', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    const driver = driverOn(network)
    driver.configure([{ host: '127.0.0.5' }])
    const surface = await driver.open((await driver.detect())[0]!)
    const closed = new Promise<void>((resolve) => surface.events.on('closed', resolve))
    const header = Buffer.alloc(16)
    header.set([0x43, 0x93, 0x8a, 0x41])
    header.writeUInt32LE(0xffffffff, 12)
    studio.raw(header)
    await closed
    await expect.poll(() => studio.connections, WAIT).toBe(2)
    await expect.poll(async () => (await driver.detect()).map((d) => d.id), WAIT).toEqual(['STUDIO01'])
    expect(logs.filter((r) => r.message === 'bad packet from the deck; reconnecting')).toHaveLength(1)
  })

  it('reconnects with back-off while the deck is unreachable, and stops when the entry goes', async () => {
    // setImmediate stays real: the library answers its HID queries on it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    onTestFinished(() => void vi.useRealTimers())
    captureLogs()
    const network = new FakeNetwork()
    const studio = network.add('127.0.0.5', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    studio.online = false
    const driver = driverOn(network)
    driver.configure([{ host: '127.0.0.5' }])
    await vi.advanceTimersByTimeAsync(0)
    expect(network.attempts).toHaveLength(1)
    // The back-off: 20, 40, 80, then at most 100 ms between attempts.
    for (const [wait, attempts] of [
      [19, 1],
      [1, 2],
      [40, 3],
      [80, 4],
      [100, 5],
      [100, 6],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait)
      expect(network.attempts, `after ${wait} ms more`).toHaveLength(attempts)
    }
    studio.online = true
    await vi.advanceTimersByTimeAsync(100)
    await expect.poll(async () => (await driver.detect()).length, WAIT).toBe(1)

    driver.configure([])
    expect(await driver.detect()).toEqual([])
    const attempts = network.attempts.length
    studio.drop()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(network.attempts).toHaveLength(attempts)
  })

  it('does not wait out the first answer for a Network Dock with nothing plugged in: it has answered', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    onTestFinished(() => void vi.useRealTimers())
    captureLogs()
    const network = new FakeNetwork()
    network.add('127.0.0.7', 5343, new FakeNetDeck({ model: 'network-dock', serial: 'DOCK02' }))
    const driver = new StreamDeckNetDriver({ transport: network })
    onTestFinished(() => driver.closeAll())
    driver.configure([{ host: '127.0.0.7' }])
    let found: unknown
    void driver.detect().then((list) => (found = list))
    // Turns of the loop only: the clock the first-answer wait runs on does not move.
    for (let turn = 0; turn < 200 && found === undefined; turn++) await new Promise((r) => setImmediate(r))
    expect(found).toEqual([])
    expect(network.attempts.length).toBeGreaterThan(0)
  })

  it("the daemon's (passive) driver never waits for a deck's first answer; devices and learn wait a bounded while", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    onTestFinished(() => void vi.useRealTimers())
    captureLogs()
    const network = new FakeNetwork()
    const settled = async (driver: StreamDeckNetDriver): Promise<() => boolean> => {
      onTestFinished(() => driver.closeAll())
      driver.configure([{ host: '127.0.0.99' }])
      let done = false
      void driver.detect().then(() => (done = true))
      await vi.advanceTimersByTimeAsync(0)
      return () => done
    }
    const passive = await settled(new StreamDeckNetDriver({ transport: network, passive: true }))
    expect(passive()).toBe(true)
    const waiting = await settled(new StreamDeckNetDriver({ transport: network }))
    expect(waiting()).toBe(false)
    await vi.advanceTimersByTimeAsync(FIRST_ANSWER_WAIT_MS)
    expect(waiting()).toBe(true)
  })
})
