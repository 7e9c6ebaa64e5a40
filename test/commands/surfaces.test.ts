/**
 * `panelbridge surfaces`: the real SurfaceManager, the real Stream Deck driver over an in-memory HID
 * device, and the web surface. Input is printed and echoed on the very control that sent it.
 */
import { get } from 'node:http'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { StreamDeckDriver } from '../../src/surfaces/streamdeck/driver.js'
import { formatStatus } from '../../src/commands/hardware.js'
import { formatInput, startSurfaceCheck, type SurfaceCheckHandle } from '../../src/commands/surfaces.js'
import { parseCli } from '../../src/cli.js'
import {
  decodeGen2KeyImages,
  gen2KeyReport,
  MemoryStreamDeckTransport,
  rawImageEncoder,
  type DecodedImage,
} from '../surfaces/helpers/fake-hid.js'
import { connect, type Client } from '../surfaces/web/helpers.js'

/** Share of an image's pixels that have this colour (±8 per channel). */
function shareOf(image: DecodedImage, [r, g, b]: [number, number, number]): number {
  let n = 0
  for (let i = 0; i < image.rgba.length; i += 4) {
    const d = Math.max(Math.abs(image.rgba[i]! - r), Math.abs(image.rgba[i + 1]! - g), Math.abs(image.rgba[i + 2]! - b))
    if (d <= 8) n++
  }
  return n / (image.rgba.length / 4)
}

const GREEN: [number, number, number] = [0x1e, 0x8e, 0x3e]
const IDLE: [number, number, number] = [0x20, 0x28, 0x30]
const SERIAL = 'CL12K1A00077'

describe('panelbridge surfaces', () => {
  let check: SurfaceCheckHandle | undefined
  let client: Client | undefined
  afterEach(async () => {
    await client?.close()
    await check?.close()
    client = undefined
    check = undefined
  })

  async function start(access: 'ok' | 'denied' = 'ok') {
    const transport = new MemoryStreamDeckTransport()
    transport.plug(DeviceModelId.ORIGINALMK2, '/dev/hidraw3', SERIAL)
    const lines: string[] = []
    check = await startSurfaceCheck({
      host: '127.0.0.1',
      port: 0,
      hardware: true,
      out: (line) => lines.push(line),
      manager: {
        drivers: [
          new StreamDeckDriver({ transport, renderer: new KeyRenderer(), encodeJPEG: rawImageEncoder, frameMs: 0 }),
        ],
        hotplug: new FakeHotplug(),
        access: () => Promise.resolve(access),
        rescanDelaysMs: [0],
      },
    })
    return { transport, lines, check }
  }

  it('prints the device it opened, then its input, and lights the held key on the device itself', async () => {
    const { transport, lines } = await start()
    expect(lines).toContain(`streamdeck ${SERIAL} (Stream Deck MK.2): open`)
    const hid = transport.lastOpened('/dev/hidraw3')!
    // Every key shows its idle label first.
    await expect.poll(() => decodeGen2KeyImages(hid.reports).size).toBe(15)
    const idle = decodeGen2KeyImages(hid.reports).get(3)!.at(-1)!
    expect(shareOf(idle, IDLE)).toBeGreaterThan(0.7)

    hid.input(gen2KeyReport([3], 15))
    await expect.poll(() => decodeGen2KeyImages(hid.reports).get(3)!.length).toBe(2)
    expect(shareOf(decodeGen2KeyImages(hid.reports).get(3)!.at(-1)!, GREEN)).toBeGreaterThan(0.7)

    hid.input(gen2KeyReport([], 15))
    await expect.poll(() => decodeGen2KeyImages(hid.reports).get(3)!.length).toBe(3)
    expect(shareOf(decodeGen2KeyImages(hid.reports).get(3)!.at(-1)!, IDLE)).toBeGreaterThan(0.7)
    expect(lines.filter((l) => l.startsWith(SERIAL))).toEqual([`${SERIAL} key:3 down`, `${SERIAL} key:3 up`])
    // Only key 3 was redrawn after the first paint.
    expect([...decodeGen2KeyImages(hid.reports)].filter(([, images]) => images.length > 1).map(([k]) => k)).toEqual([3])
  })

  it('serves the web surface: a browser press is printed, and its key and the mirrored deck are shown', async () => {
    const { check: c, lines } = await start()
    client = await connect(c.url)
    await client.waitFor('surface', (m) => m.surface.id === 'web' && m.surface.mode === 'interactive')
    await client.waitFor('surface', (m) => m.surface.id === SERIAL && m.surface.mode === 'mirror')
    client.send({ type: 'down', surface: 'web', control: 'key:5' })
    await client.waitFor('key', (m) => m.surface === 'web' && m.control === 'key:5' && m.label === '5\ndown')
    client.send({ type: 'rotate', surface: 'web', control: 'encoder:1', delta: -3 })
    client.send({ type: 'rotate', surface: 'web', control: 'encoder:1', delta: 1 })
    // An encoder has no image: the page shows its state (colour and text) beside the dial.
    await client.waitFor(
      'state',
      (m) => m.surface === 'web' && m.control === 'encoder:1' && m.state.text === 'encoder:1\n-2',
    )
    expect(lines).toEqual(
      expect.arrayContaining(['web key:5 down', 'web encoder:1 rotate -3', 'web encoder:1 rotate +1']),
    )
  })

  it('serves a shuttle ring and faders on the web surface, echoing the zone and the value', async () => {
    const { check: c, lines } = await start()
    client = await connect(c.url)
    const surface = await client.waitFor('surface', (m) => m.surface.id === 'web')
    expect(surface.surface.controls.filter((x) => x.kind === 'shuttle' || x.kind === 'fader').map((x) => x.id)).toEqual(
      ['shuttle', 'fader:0', 'fader:1'],
    )
    client.send({ type: 'value', surface: 'web', control: 'fader:1', value: 0.5 })
    await client.waitFor('state', (m) => m.control === 'fader:1' && m.state.text === 'fader:1\n0.50')
    expect(client.messages.find((m) => m.type === 'state' && m.control === 'fader:1')).toMatchObject({
      state: { text: 'fader:1\n0.50', value: 0.5 },
    })
    client.send({ type: 'value', surface: 'web', control: 'shuttle', value: -0.5 })
    await client.waitFor('state', (m) => m.control === 'shuttle' && m.state.text === 'shuttle\n-4')
    expect(lines).toEqual(expect.arrayContaining(['web fader:1 value 0.500', 'web shuttle value -0.500 (raw -4)']))
  })

  it('names the udev rule file when the device node is not accessible', async () => {
    const { transport, lines } = await start('denied')
    expect(transport.opened).toHaveLength(0)
    const denied = lines.find((l) => l.startsWith(`streamdeck ${SERIAL}`))
    expect(denied).toContain('permission-denied')
    expect(denied).toContain('systemd/60-panelbridge.rules')
  })

  it('serves the page through the daemon’s server and its guards, with no daemon API behind it', async () => {
    const { check: c } = await start()
    const page = await fetch(c.url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<html')
    // The daemon's side is a stub: the API answers 404, as the page's status strip expects without a daemon.
    const status = await fetch(new URL('/api/status', c.url))
    expect(status.status).toBe(404)
    expect(await status.json()).toMatchObject({ error: { code: 'NOT_FOUND' } })
    // The daemon server's checks: a DNS name not served, and a cross-site WebSocket, are refused.
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      get(c.url, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume()
        resolve(res.statusCode)
      }).on('error', reject)
    })
    expect(rebound).toBe(403)
    await expect(connect(c.url, { origin: 'http://attacker.example' })).rejects.toThrow(/403/)
  })

  it('refuses a port that is taken', async () => {
    const first = await start()
    const port = Number(new URL(first.check.url).port)
    await expect(startSurfaceCheck({ host: '127.0.0.1', port, hardware: false, out: () => undefined })).rejects.toThrow(
      /EADDRINUSE|in use/,
    )
  })
})

describe('report lines', () => {
  it('formats statuses and every kind of input', () => {
    expect(
      formatStatus({
        name: 'A',
        driver: 'streamdeck',
        model: 'Stream Deck XL',
        state: 'failed',
        message: 'boom',
        retryInMs: 2000,
      }),
    ).toBe('streamdeck A (Stream Deck XL): failed — boom; retrying in 2 s')
    expect(formatInput({ type: 'rotate', surface: 's', control: 'jog', delta: 4, at: 1 })).toBe('s jog rotate +4')
    expect(formatInput({ type: 'value', surface: 's', control: 'shuttle', value: -0.5, raw: -3, at: 1 })).toBe(
      's shuttle value -0.500 (raw -3)',
    )
    expect(formatInput({ type: 'up', surface: 's', control: 'key:0', at: 1 })).toBe('s key:0 up')
  })
})

describe('command line of surfaces', () => {
  it('has defaults, takes its options, and refuses the simulator’s', () => {
    expect(parseCli(['surfaces'])).toEqual({ kind: 'surfaces', port: 8088, host: '127.0.0.1', hardware: true })
    expect(parseCli(['surfaces', '--port', '0', '--host', '0.0.0.0', '--no-hardware'])).toEqual({
      kind: 'surfaces',
      port: 0,
      host: '0.0.0.0',
      hardware: false,
    })
    expect(parseCli(['surfaces', '--data-dir', 'x'])).toMatchObject({
      kind: 'error',
      message: expect.stringContaining("'sim'"),
    })
    expect(parseCli(['sim', '--no-hardware'])).toMatchObject({ kind: 'error' })
    expect(parseCli(['surfaces', '--port', '70000'])).toMatchObject({ kind: 'error' })
  })
})
