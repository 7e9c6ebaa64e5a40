/**
 * Discovery of network decks, only where an entry asks (`discover: true` with the serial the deck
 * announces), through an in-memory discovery (the seam: no broadcasts in tests) and the in-memory
 * network: without such an entry discovery never starts; with one, only the announced deck of that
 * serial is connected to (a dock's deck found through the dock's serial), a new address is followed, and
 * the entry going stops discovery and closes the connection. The mapping side: the entry's rules and
 * its claim of the deck found.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { streamdeckNet } from '../../../src/mappings/drivers/streamdeck-net.js'
import { claimMatches } from '../../../src/families/claims.js'
import type { Announcement, DiscoveryStarter } from '../../../src/surfaces/streamdeck-net/discovery.js'
import { StreamDeckNetDriver, discoveredAddress } from '../../../src/surfaces/streamdeck-net/driver.js'
import { captureLogs } from '../../helpers/logs.js'
import { FakeNetDeck, FakeNetwork } from './fake-net-deck.js'

const WAIT = { timeout: 5000, interval: 10 }

/** An in-memory discovery: the test announces decks; counts starts and stops. */
class FakeDiscovery {
  starts = 0
  stops = 0
  private up: ((a: Announcement) => void) | undefined
  readonly starter: DiscoveryStarter = (up) => {
    this.starts++
    this.up = up
    return {
      stop: () => {
        this.stops++
        this.up = undefined
      },
    }
  }
  announce(a: Announcement): void {
    this.up?.(a)
  }
}

function setup() {
  captureLogs()
  const network = new FakeNetwork()
  const discovery = new FakeDiscovery()
  const driver = new StreamDeckNetDriver({
    transport: network,
    discovery: discovery.starter,
    encodeJPEG: () => Promise.resolve(new Uint8Array(8)),
    frameMs: 0,
    backoff: { initialMs: 20, maxMs: 100, stableMs: 10_000 },
  })
  onTestFinished(() => driver.closeAll())
  const ids = async (): Promise<string[][]> => (await driver.detect()).map((d) => [d.id, d.port ?? '', d.modelId ?? ''])
  return { network, discovery, driver, ids }
}

describe('network deck discovery', () => {
  it('never starts while no entry asks for it', async () => {
    const { network, discovery, driver } = setup()
    network.add('127.0.0.5', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    driver.configure([{ host: '127.0.0.5' }])
    await driver.detect()
    driver.configure([])
    expect(discovery.starts).toBe(0)
  })

  it('connects only to the deck announcing the serial an entry names, and follows a new address', async () => {
    const { network, discovery, driver, ids } = setup()
    network.add('127.0.0.9', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    network.add('127.0.0.8', 5343, new FakeNetDeck({ model: 'studio', serial: 'SOMEONE' }))
    const moved = network.add('127.0.0.19', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    driver.configure([{ discover: true, serial: 'STUDIO01' }])
    expect(discovery.starts).toBe(1)
    discovery.announce({ address: '127.0.0.8', port: 5343, serialNumber: 'SOMEONE', modelName: 'Stream Deck Studio' })
    discovery.announce({ address: '127.0.0.9', port: 5343, serialNumber: 'STUDIO01', modelName: 'Stream Deck Studio' })
    await expect.poll(ids, WAIT).toEqual([['STUDIO01', discoveredAddress('STUDIO01'), 'studio']])
    expect(network.attempts).toEqual(['127.0.0.9:5343'])

    discovery.announce({ address: '127.0.0.19', port: 5343, serialNumber: 'STUDIO01', modelName: 'Stream Deck Studio' })
    await expect.poll(() => moved.connections, WAIT).toBe(1)
    expect(network.attempts).toEqual(['127.0.0.9:5343', '127.0.0.19:5343'])

    driver.configure([])
    expect(discovery.stops).toBe(1)
    expect(await driver.detect()).toEqual([])
  })

  it("finds a dock's deck through the dock's announcement, claimed by the entry that names the dock", async () => {
    const { network, discovery, driver, ids } = setup()
    const dock = network.add('127.0.0.6', 5343, new FakeNetDeck({ model: 'network-dock', serial: 'DOCK01' }))
    const xl = network.add('127.0.0.6', 5344, new FakeNetDeck({ model: 'xl', serial: 'XL0001', child: true }))
    dock.docked = { deck: xl, port: 5344 }
    const entry = streamdeckNet.schema.parse({
      driver: 'streamdeck-net',
      discover: true,
      serial: 'DOCK01',
      model: 'xl',
    })
    driver.configure([streamdeckNet.driverOptions!(entry)])
    discovery.announce({ address: '127.0.0.6', port: 5343, serialNumber: 'DOCK01', modelName: 'Network Dock' })
    await expect.poll(ids, WAIT).toEqual([['XL0001', discoveredAddress('DOCK01'), 'xl']])
    const [found] = await driver.detect()
    expect(claimMatches(streamdeckNet.claimOf('docked', entry)!.match, found!)).toBe(true)
    expect(streamdeckNet.entryFor!(found!)).toEqual({
      driver: 'streamdeck-net',
      discover: true,
      serial: 'DOCK01',
      model: 'xl',
    })
  })

  it('refuses an entry with both a host and discover, or discover without a serial', () => {
    const parse = (entry: Record<string, unknown>): string[] => {
      const r = streamdeckNet.schema.safeParse({ driver: 'streamdeck-net', ...entry })
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
    }
    expect(parse({ host: '127.0.0.5' })).toEqual([])
    expect(parse({ discover: true, serial: 'S' })).toEqual([])
    expect(parse({ host: '127.0.0.5', discover: true, serial: 'S' })).toEqual([
      'host: give the deck’s host, or discover: true (not both)',
    ])
    expect(parse({})).toEqual(['host: give the deck’s host, or discover: true (not both)'])
    expect(parse({ discover: true })).toEqual(['serial: discover: true needs the serial the deck announces'])
    expect(parse({ discover: true, serial: 'S', port: 6000 })).toEqual(['port: a discovered deck announces its port'])
  })
})
