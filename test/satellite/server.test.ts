/**
 * The Satellite server against a stand-in client (issue 44): the greeting, keep-alive, both generations of
 * ADD-DEVICE, bitmap formats, the refusals (allow list, a line over the bound, a flood of devices, a
 * duplicate id) and the bounds on a client that never reads.
 */
import { connect } from 'node:net'
import WebSocket from 'ws'
import { describe, expect, it, onTestFinished } from 'vitest'
import { SatelliteDriver, type SatelliteDriverOptions } from '../../src/surfaces/satellite/driver.js'
import type { SatelliteSurface } from '../../src/surfaces/satellite/surface.js'
import { SATELLITE_API_VERSION } from '../../src/surfaces/satellite/protocol.js'
import {
  announcedName,
  type SatelliteAnnouncement,
  type SatelliteAnnouncer,
} from '../../src/surfaces/satellite/announce.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { until } from '../helpers/until.js'
import { addDevice, manifest, StandInClient } from './stand-in-client.js'

async function server(
  config: { allow?: string[] } = {},
  options: SatelliteDriverOptions = {},
): Promise<{ driver: SatelliteDriver; port: number }> {
  const driver = new SatelliteDriver(options)
  await driver.server.apply({ port: 0, ...config })
  onTestFinished(() => driver.server.close())
  return { driver, port: driver.server.status()!.port }
}

async function opened(driver: SatelliteDriver, id: string): Promise<SatelliteSurface> {
  await until(`device ${id} added`, () => driver.hub.get(id) !== undefined)
  const [device] = (await driver.detect()).filter((d) => d.id === id)
  return driver.open(device!)
}

describe('the Satellite server', () => {
  it('greets with BEGIN (API 1.14.0) then CAPS, and answers every PING with its payload', async () => {
    const { port } = await server()
    const c = await StandInClient.connect(port)
    const begin = await c.waitFor('BEGIN', (l) => l.command === 'BEGIN')
    expect(begin.params.ApiVersion).toBe(SATELLITE_API_VERSION)
    expect(SATELLITE_API_VERSION).toBe('1.14.0')
    const caps = await c.waitFor('CAPS', (l) => l.command === 'CAPS')
    expect(c.lines.indexOf(caps)).toBe(c.lines.indexOf(begin) + 1)
    expect(caps.params).toMatchObject({ BITMAP_FORMATS: 'rgb,png,webp', ROTARY_AMOUNT: '1', NONSQUARE: '1' })
    c.send('PING 12345')
    const pong = await c.waitFor('PONG', (l) => l.command === 'PONG')
    expect(pong.raw).toBe('PONG 12345')
    c.send('NOPE X=1')
    const err = await c.waitFor('ERROR', (l) => l.command === 'ERROR')
    expect(err.params.MESSAGE).toBe('Unknown command: NOPE')
  })

  it('a current client: keys drawn at its size in the format it asked for, press and signed rotation', async () => {
    const { driver, port } = await server()
    const c = await StandInClient.connect(port)
    c.send(addDevice('sd:PLUS1', manifest(2, 4, 96, 2), 'png'))
    await c.waitFor('ADD-DEVICE OK', (l) => l.command === 'ADD-DEVICE' && l.status === 'OK')
    const surface = await opened(driver, 'sd:PLUS1')
    // It said PINCODE_LOCK: it is told at open that it is unlocked.
    const locked = await c.waitFor('LOCKED-STATE', (l) => l.command === 'LOCKED-STATE')
    expect(locked.params).toMatchObject({ DEVICEID: 'sd:PLUS1', LOCKED: '0', CHARACTER_COUNT: '0' })
    expect(surface.description.controls.map((x) => x.id)).toEqual([
      ...Array.from({ length: 8 }, (_, i) => `key:${i}`),
      'encoder:0',
      'encoder:1',
    ])
    expect(surface.description.controls[5]).toMatchObject({ row: 1, column: 1, label: '1/1' })
    expect(surface.description.controls[0]!.capabilities.image).toEqual({ width: 96, height: 96 })
    const events: SurfaceEvent[] = []
    surface.events.on('input', (e) => events.push(e))
    for (let i = 0; i < 8; i++) surface.setFeedback(`key:${i}`, { text: `K${i}`, color: '#204080' })
    await until('8 keys drawn', () => c.keyStates('sd:PLUS1').size === 8)
    const state = c.keyStates('sd:PLUS1').get('1/2')!
    expect(String(state.params.BITMAP)).toMatch(/^data:image\/png;base64,/)
    const png = Buffer.from(String(state.params.BITMAP).split(',')[1]!, 'base64')
    expect(png.readUInt32BE(16)).toBe(96) // the IHDR's width
    c.send('KEY-PRESS DEVICEID="sd:PLUS1" CONTROLID="0/3" KEY="0/3" PRESSED=1')
    c.send('KEY-PRESS DEVICEID="sd:PLUS1" CONTROLID="0/3" KEY="0/3" PRESSED=0')
    c.send('KEY-ROTATE DEVICEID="sd:PLUS1" CONTROLID="enc1" KEY="2/1" DIRECTION=7')
    c.send('KEY-ROTATE DEVICEID="sd:PLUS1" CONTROLID="enc1" KEY="2/1" DIRECTION=-3')
    await until('4 inputs', () => events.length === 4)
    expect(events.map((e) => [e.type, e.control, e.type === 'rotate' ? e.delta : undefined])).toEqual([
      ['down', 'key:3', undefined],
      ['up', 'key:3', undefined],
      ['rotate', 'encoder:1', 7],
      ['rotate', 'encoder:1', -3],
    ])
    // A key does not turn; an unknown control is refused; the link stays.
    c.send('KEY-ROTATE DEVICEID="sd:PLUS1" CONTROLID="0/0" DIRECTION=1')
    c.send('KEY-PRESS DEVICEID="sd:PLUS1" CONTROLID="9/9" PRESSED=1')
    await until('two refusals', () => c.lines.filter((l) => l.status === 'ERROR').length === 2)
    expect(c.lines.filter((l) => l.status === 'ERROR').map((l) => l.params.MESSAGE)).toEqual([
      'That control is a key, which does not rotate',
      'Unknown CONTROLID',
    ])
    surface.setBrightness(40)
    expect((await c.waitFor('BRIGHTNESS', (l) => l.command === 'BRIGHTNESS')).params.VALUE).toBe('40')
    await surface.close()
    await c.waitFor('KEYS-CLEAR', (l) => l.command === 'KEYS-CLEAR')
  })

  it('an API 1.7 client: a key grid, keys by number, raw RGB, and ±1 rotations (0 is one step back)', async () => {
    const { driver, port } = await server()
    const c = await StandInClient.connect(port)
    c.send('ADD-DEVICE DEVICEID="old:1" PRODUCT_NAME="Old deck" KEYS_TOTAL=6 KEYS_PER_ROW=3 BITMAPS=72 COLORS=1 TEXT=1')
    await c.waitFor('ADD-DEVICE OK', (l) => l.command === 'ADD-DEVICE' && l.status === 'OK')
    const surface = await opened(driver, 'old:1')
    expect(surface.description.controls.map((x) => x.id)).toEqual([
      'key:0',
      'key:1',
      'key:2',
      'key:3',
      'key:4',
      'key:5',
    ])
    expect(surface.description.grid).toEqual({ rows: 2, columns: 3 })
    surface.setFeedback('key:4', { text: 'Hi', color: '#ff0000', textColor: '#00ff00' })
    // Every key is drawn blank on open; key 4's own face follows.
    const hi = Buffer.from('Hi').toString('base64')
    const state = await c.waitFor('KEY-STATE of key 4', (l) => l.command === 'KEY-STATE' && l.params.TEXT === hi)
    expect(state.params).toMatchObject({ KEY: '4', COLOR: '#ff0000', TEXTCOLOR: '#00ff00' })
    expect(Buffer.from(String(state.params.TEXT), 'base64').toString()).toBe('Hi')
    const rgb = Buffer.from(String(state.params.BITMAP), 'base64')
    expect(rgb.length).toBe(72 * 72 * 3)
    const events: SurfaceEvent[] = []
    surface.events.on('input', (e) => events.push(e))
    c.send('KEY-PRESS DEVICEID="old:1" KEY=5 PRESSED=1')
    c.send('KEY-PRESS DEVICEID="old:1" KEY="1/0" PRESSED=true')
    await until('2 presses', () => events.length === 2)
    expect(events.map((e) => e.control)).toEqual(['key:5', 'key:3'])
  })

  it('±1 rotations of a client before 1.14 reach an encoder as single steps', async () => {
    const { driver, port } = await server()
    const c = await StandInClient.connect(port)
    c.send(addDevice('enc:1', manifest(1, 1, 72, 1)))
    await c.waitFor('ADD-DEVICE OK', (l) => l.command === 'ADD-DEVICE' && l.status === 'OK')
    const surface = await opened(driver, 'enc:1')
    const deltas: number[] = []
    surface.events.on('input', (e) => e.type === 'rotate' && deltas.push(e.delta))
    for (const d of ['1', '1', '0', '1', 'true', 'false'])
      c.send(`KEY-ROTATE DEVICEID="enc:1" CONTROLID="enc0" DIRECTION=${d}`)
    await until('6 turns', () => deltas.length === 6)
    expect(deltas).toEqual([1, 1, -1, 1, 1, -1])
  })

  it('negotiates webp, and rgb when a client names a format not offered', async () => {
    const { driver, port } = await server()
    const c = await StandInClient.connect(port)
    c.send(addDevice('w:1', manifest(1, 1, 64), 'webp'))
    c.send(`ADD-DEVICE DEVICEID="x:1" LAYOUT_MANIFEST="${manifest(1, 1, 32)}" PRODUCT_NAME="X" BITMAP_FORMAT="avif"`)
    const w = await opened(driver, 'w:1')
    const x = await opened(driver, 'x:1')
    w.setFeedback('key:0', { text: 'W' })
    x.setFeedback('key:0', { text: 'X' })
    await until('two keys drawn', () => c.keyStates('w:1').size + c.keyStates('x:1').size === 2)
    expect(String(c.keyStates('w:1').get('0/0')!.params.BITMAP)).toMatch(/^data:image\/webp;base64,/)
    expect(Buffer.from(String(c.keyStates('x:1').get('0/0')!.params.BITMAP), 'base64').length).toBe(32 * 32 * 3)
  })

  it('a device removed while its keys are being drawn: no KEY-STATE after its removal, the surface closed', async () => {
    const { driver, port } = await server({}, { limits: { drawsPerTurn: 2 } })
    const c = await StandInClient.connect(port)
    c.send(addDevice('gone:1', manifest(4, 8, 72)))
    const surface = await opened(driver, 'gone:1')
    let closed = false
    surface.events.on('closed', () => (closed = true))
    for (let i = 0; i < 32; i++) surface.setFeedback(`key:${i}`, { text: `${i}` })
    c.send('REMOVE-DEVICE DEVICEID="gone:1"')
    const removed = await c.waitFor('REMOVE-DEVICE OK', (l) => l.command === 'REMOVE-DEVICE' && l.status === 'OK')
    expect(closed).toBe(true)
    expect(driver.hub.get('gone:1')).toBeUndefined()
    // Whatever was drawn went before the OK; after it, nothing more for that device.
    c.send('PING after')
    const pong = await c.waitFor('PONG', (l) => l.command === 'PONG')
    const after = c.lines.slice(c.lines.indexOf(removed), c.lines.indexOf(pong))
    expect(after.filter((l) => l.command === 'KEY-STATE')).toEqual([])
    expect(c.keyStates('gone:1').size).toBeLessThan(32)
    // Still usable: the same id added again.
    c.send(addDevice('gone:1', manifest(1, 1, 72)))
    await until('added again', () => driver.hub.get('gone:1') !== undefined)
  })

  it('refuses a peer outside allow at connect, logged once per address', async () => {
    const { driver, port } = await server({ allow: ['127.0.0.2/32'] })
    const warnings: string[] = []
    const once = driver.hub.log.once.bind(driver.hub.log)
    driver.hub.log.once = (key, level, message, fields) => {
      const first = once(key, level, message, fields)
      if (first) warnings.push(message)
      return first
    }
    for (let i = 0; i < 3; i++) {
      const c = await StandInClient.connect(port)
      await c.waitClosed()
      expect(c.lines).toEqual([])
    }
    expect(warnings).toEqual(['refused a Satellite client: its address is not in satellite.allow'])
    expect(driver.server.status()!.clients).toBe(0)
    // Allowed once the reload lists it: the same binding keeps the server, the list changes.
    await driver.server.apply({ port, allow: ['127.0.0.0/8'] })
    const ok = await StandInClient.connect(port)
    await ok.waitFor('BEGIN', (l) => l.command === 'BEGIN')
  })

  it('drops a client whose line runs over the bound; another client is untouched', async () => {
    const { driver, port } = await server({}, { limits: { lineBytes: 1024 } })
    const good = await StandInClient.connect(port)
    const bad = await StandInClient.connect(port)
    bad.socket.write('ADD-DEVICE ' + 'x'.repeat(4096))
    await bad.waitClosed()
    expect(bad.find((l) => l.command === 'ERROR')?.params.MESSAGE).toBe('Line too long: at most 1024 bytes')
    good.send('PING still')
    await good.waitFor('PONG', (l) => l.raw === 'PONG still')
    expect(driver.server.status()!.clients).toBe(1)
  })

  it('1,000 ADD-DEVICE from one client: the first up to the bound added, every other refused', async () => {
    const { driver, port } = await server()
    const c = await StandInClient.connect(port)
    const layout = manifest(1, 2, 72)
    c.socket.write(Array.from({ length: 1000 }, (_, i) => addDevice(`flood:${i}`, layout) + '\n').join(''))
    await until('1,000 answers', () => c.lines.filter((l) => l.command === 'ADD-DEVICE').length === 1000)
    const answers = c.lines.filter((l) => l.command === 'ADD-DEVICE')
    expect(answers.filter((l) => l.status === 'OK')).toHaveLength(16)
    expect(answers.filter((l) => l.status === 'ERROR')[0]!.params.MESSAGE).toBe('A client adds at most 16 devices')
    expect(driver.hub.size).toBe(16)
    expect(driver.server.status()).toMatchObject({ clients: 1, devices: 16 })
  })

  it('a device id another client holds: ADD-DEVICE ERROR to the second, the first keeps it', async () => {
    const { driver, port } = await server()
    const first = await StandInClient.connect(port)
    const second = await StandInClient.connect(port)
    first.send(addDevice('dup:1', manifest(1, 1, 72)))
    await first.waitFor('OK', (l) => l.command === 'ADD-DEVICE' && l.status === 'OK')
    second.send(addDevice('dup:1', manifest(1, 1, 72)))
    const refused = await second.waitFor('ERROR', (l) => l.command === 'ADD-DEVICE')
    expect(refused.status).toBe('ERROR')
    expect(refused.params.DEVICEID).toBe('dup:1')
    expect(String(refused.params.MESSAGE)).toMatch(/another Satellite client holds this device id/)
    expect(driver.hub.get('dup:1')!.client.link.peer).toBe(`127.0.0.1:${first.socket.localPort}`)
    expect(first.find((l) => l.status === 'ERROR')).toBeUndefined()
    // The first goes: the id is free for the second.
    first.close()
    await until('the first gone', () => driver.hub.get('dup:1') === undefined)
    second.send(addDevice('dup:1', manifest(1, 1, 72)))
    await second.waitFor('OK', (l) => l.command === 'ADD-DEVICE' && l.status === 'OK')
  })

  it('a client that never reads is dropped at the unread bound, its device gone; another keeps working', async () => {
    const { driver, port } = await server({}, { limits: { unreadBytes: 256 * 1024 } })
    // The silent one: it sends, never reads (paused), so the server's writes pile up.
    const silent = connect({ port, host: '127.0.0.1' })
    onTestFinished(() => void silent.destroy())
    silent.pause()
    silent.on('error', () => undefined)
    silent.write(addDevice('mute:1', manifest(4, 8, 120)) + '\n')
    const other = await StandInClient.connect(port)
    other.send(addDevice('live:1', manifest(1, 1, 72)))
    const mute = await opened(driver, 'mute:1')
    const live = await opened(driver, 'live:1')
    let muteClosed = false
    mute.events.on('closed', () => (muteClosed = true))
    // Every key of the silent one redrawn with new faces until it is dropped; bounded by the test's safety.
    let round = 0
    await until('the silent client dropped', () => {
      if (!muteClosed) for (let i = 0; i < 32; i++) mute.setFeedback(`key:${i}`, { text: `${round}:${i}` })
      round++
      return muteClosed
    })
    expect(driver.hub.get('mute:1')).toBeUndefined()
    live.setFeedback('key:0', { text: 'still' })
    await other.waitFor('live KEY-STATE', (l) => l.command === 'KEY-STATE' && l.params.DEVICEID === 'live:1')
    other.send('PING ok')
    await other.waitFor('PONG', (l) => l.raw === 'PONG ok')
    expect(driver.server.status()).toMatchObject({ clients: 1, devices: 1 })
  })

  it('speaks the same lines over WebSocket on ws_port; a browser (an Origin) is refused', async () => {
    const driver = new SatelliteDriver()
    await driver.server.apply({ port: 0, ws_port: 0 })
    onTestFinished(() => driver.server.close())
    const wsPort = driver.server.status()!.ws_port!
    expect(wsPort).toBeGreaterThan(0)
    const got: string[] = []
    const ws = new WebSocket(`ws://127.0.0.1:${wsPort}`)
    onTestFinished(() => ws.terminate())
    ws.on('message', (data) =>
      got.push(...(Buffer.isBuffer(data) ? data.toString('utf8') : '').split('\n').filter((l) => l !== '')),
    )
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    await until('BEGIN and CAPS', () => got.length >= 2)
    expect(got[0]).toMatch(/^BEGIN .*ApiVersion="1\.14\.0"/)
    ws.send(addDevice('ws:1', manifest(1, 2, 72)) + '\n')
    ws.send('PING w\n')
    await until('OK and PONG', () => got.includes('ADD-DEVICE OK DEVICEID="ws:1"') && got.includes('PONG w'))
    await opened(driver, 'ws:1')
    await until('both keys drawn', () => got.filter((l) => l.startsWith('KEY-STATE')).length === 2)
    expect(driver.server.status()).toMatchObject({ clients: 1, devices: 1 })
    const browser = new WebSocket(`ws://127.0.0.1:${wsPort}`, { headers: { origin: 'http://evil.example' } })
    const refused = await new Promise<number>((resolve) => {
      browser.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      browser.once('open', () => resolve(101))
      browser.once('error', () => resolve(-1))
    })
    expect(refused).toBe(401)
  })

  it('announces over mDNS only when asked, with the bound ports, and stops with the server (a fake announcer)', async () => {
    const announced: SatelliteAnnouncement[] = []
    let stopped = 0
    const announcer: SatelliteAnnouncer = (what) => {
      announced.push(what)
      return { stop: () => void stopped++ }
    }
    const driver = new SatelliteDriver({ announcer })
    onTestFinished(() => driver.server.close())
    await driver.server.apply({ port: 0 })
    expect(announced).toEqual([])
    const port = driver.server.status()!.port
    await driver.server.apply({ port, ws_port: 0, announce: true })
    const wsPort = driver.server.status()!.ws_port!
    expect(announced).toEqual([{ name: announcedName(), tcpPort: port, wsPort, apiVersion: '1.14.0' }])
    // The same binding without announce: the announcement stops, the server stays.
    await driver.server.apply({ port, ws_port: wsPort, announce: false })
    expect(stopped).toBe(1)
    expect(driver.server.status()!.port).toBe(port)
    await driver.server.apply({ port, ws_port: wsPort, announce: true })
    expect(announced).toHaveLength(2)
    await driver.server.close()
    expect(stopped).toBe(2)
    expect(driver.server.status()).toBeUndefined()
  })
})
