/**
 * Nothing of `@elgato-stream-deck/tcp` is loaded while no network deck is configured (the idle
 * daemon's resident memory is unchanged by the family): the driver tables, every driver made and
 * configured with no `streamdeck-net` entry leave the library out of the module cache; the first deck
 * that answers loads it (so the check can fail).
 */
import { createRequire } from 'node:module'
import { describe, expect, it, onTestFinished } from 'vitest'
import { configureDrivers, hardwareDrivers } from '../../../src/surfaces/drivers.js'
import { MAPPING_FAMILIES } from '../../../src/mappings/drivers/index.js'
import { StreamDeckNetDriver } from '../../../src/surfaces/streamdeck-net/driver.js'
import { captureLogs } from '../../helpers/logs.js'
import { FakeNetDeck, FakeNetwork } from './fake-net-deck.js'

const tcpModulesLoaded = (): string[] =>
  Object.keys(createRequire(import.meta.url).cache).filter((k) => /@elgato-stream-deck[\\/]tcp[\\/]dist/.test(k))

describe('the tcp library loads lazily', () => {
  it('stays unloaded with no network deck configured, and loads with the first deck that answers', async () => {
    captureLogs()
    expect(MAPPING_FAMILIES.length).toBeGreaterThan(0)
    const drivers = hardwareDrivers({ passive: true }).map((e) => e.driver)
    configureDrivers(drivers, {})
    const own = drivers.find((d) => d instanceof StreamDeckNetDriver)!
    expect(await own.detect()).toEqual([])
    expect(tcpModulesLoaded()).toEqual([])

    const network = new FakeNetwork()
    network.add('127.0.0.5', 5343, new FakeNetDeck({ model: 'studio', serial: 'STUDIO01' }))
    const driver = new StreamDeckNetDriver({ transport: network })
    onTestFinished(() => driver.closeAll())
    driver.configure([{ host: '127.0.0.5' }])
    expect(await driver.detect()).toHaveLength(1)
    expect(tcpModulesLoaded().length).toBeGreaterThan(0)
  })
})
