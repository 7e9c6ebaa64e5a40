/**
 * The satellite family's records: a layout's controls numbered as pinned (keys row by row, then encoders),
 * the entry `learn` suggests for an added device and its claim, and the devices no entry claims followed
 * for `learn` (listed, their input shown, reaching no surface).
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { satelliteControls } from '../../src/families/satellite.js'
import { mappingFamily } from '../../src/mappings/drivers/index.js'
import { DRIVER_FAMILIES } from '../../src/surfaces/drivers.js'
import type { UnclaimedInput } from '../../src/surfaces/driver-family.js'
import { SatelliteDriver } from '../../src/surfaces/satellite/driver.js'
import { until } from '../helpers/until.js'
import { addDevice, manifest, StandInClient } from './stand-in-client.js'

describe('the satellite family', () => {
  it('numbers keys row by row, left to right as placed, and encoders (no bitmap, no colours) apart', () => {
    const controls = satelliteControls([
      { clientId: 'b', row: 1, column: 0, style: { colors: 'hex' } },
      { clientId: 'knob', row: 0, column: 5, style: {} },
      { clientId: 'a2', row: 0, column: 2, style: { bitmap: { w: 72, h: 72 } } },
      { clientId: 'a1', row: 0, column: 1, style: { bitmap: { w: 72, h: 72 } } },
      { clientId: 'knob2', row: 2, column: 0, style: { text: true } },
    ])
    expect(controls.map((c) => [c.clientId, c.id])).toEqual([
      ['a1', 'key:0'],
      ['a2', 'key:1'],
      ['knob', 'encoder:0'],
      ['b', 'key:2'],
      ['knob2', 'encoder:1'],
    ])
  })

  it('suggests and claims an entry by the device id', () => {
    const family = mappingFamily('satellite')!
    const device = { driver: 'satellite', id: 'loupedeck:LDD1', model: 'Loupedeck Live', serial: 'loupedeck:LDD1' }
    const entry = family.entryFor!(device)
    expect(entry).toEqual({ driver: 'satellite', device: 'loupedeck:LDD1' })
    const parsed = family.schema.parse(entry)
    expect(family.claimOf('booth', parsed)).toEqual({
      name: 'booth',
      driver: 'satellite',
      match: { serial: 'loupedeck:LDD1' },
    })
  })

  it('follows the devices no entry claims for learn: listed, their input shown', async () => {
    const { driver } = DRIVER_FAMILIES.satellite.create(undefined, {})
    if (!(driver instanceof SatelliteDriver)) throw new Error('not the satellite driver')
    await driver.server.apply({ port: 0 })
    onTestFinished(() => driver.server.close())
    const source = DRIVER_FAMILIES.satellite.unclaimedDevices!(driver)!
    let changes = 0
    const unwatch = source.watch(() => changes++)
    const inputs: [string, UnclaimedInput][] = []
    const unwatchInput = source.watchInput((device, input) => inputs.push([device, input]))
    onTestFinished(() => (unwatch(), unwatchInput()))
    const c = await StandInClient.connect(driver.server.status()!.port)
    c.send(addDevice('free:1', manifest(1, 2, 72, 1)))
    await until('listed', () => source.list().length === 1)
    expect(changes).toBe(1)
    expect(source.list()[0]).toMatchObject({ driver: 'satellite', id: 'free:1', serial: 'free:1', model: 'Stand-in' })
    c.send('KEY-PRESS DEVICEID="free:1" CONTROLID="0/1" PRESSED=1')
    c.send('KEY-ROTATE DEVICEID="free:1" CONTROLID="enc0" DIRECTION=-4')
    await until('2 inputs', () => inputs.length === 2)
    expect(inputs).toEqual([
      ['free:1', { control: 'key:1', kind: 'key', type: 'down' }],
      ['free:1', { control: 'encoder:0', kind: 'encoder', type: 'rotate', delta: -4 }],
    ])
  })
})
