/**
 * Issue 29: the fast pixel conversion (`fast-transform.ts`) leaves the alpha byte as the source's, where
 * the library writes 255, because its JPEG encoders never read it. Faces whose own pixels carry alpha
 * below 255 (a binding's image, a picture, both half transparent) make the very same reports with the
 * fast conversion the driver installs as with the library's own (`transformImageBuffer`), for XL keys and
 * the Stream Deck +'s strip segments; and the renderer's pixels are opaque whatever the face's.
 * Over the real library with the in-memory HID device (the only fake).
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished } from 'vitest'
import { KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { DeviceBytesCache } from '../../../src/surfaces/streamdeck/device-bytes.js'
import { StreamDeckDriver } from '../../../src/surfaces/streamdeck/driver.js'
import { installFastTransform, uninstallFastTransform } from '../../../src/surfaces/streamdeck/fast-transform.js'
import type { StreamDeckSurface } from '../../../src/surfaces/streamdeck/surface.js'
import type { Feedback } from '../../../src/face/feedback.js'
import { MemoryStreamDeckTransport, type FakeHidDevice } from '../helpers/fake-hid.js'

/** A gradient whose alpha runs from 0 to 255 across it (and 0 in a corner block). */
function translucent(width: number, height: number): { width: number; height: number; rgba: Uint8Array } {
  const rgba = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const alpha = x < 4 && y < 4 ? 0 : Math.round((255 * x) / (width - 1))
      rgba.set([(x * 9) % 256, (y * 5) % 256, 200, alpha], (y * width + x) * 4)
    }
  }
  return { width, height, rgba }
}

const faces: Feedback[] = [
  { color: '#0050ff', image: translucent(40, 40) },
  { color: '#c00000', image: translucent(96, 96), detail: 'over', badge: 'pending' },
  { color: '#00a000', text: 'Title', picture: { ...translucent(64, 36), hash: 'translucent-64x36' } },
  { color: '#ffb000', image: translucent(200, 100), badge: 'stale', value: 0.5 },
  { color: '#202020', picture: { ...translucent(30, 30), hash: 'translucent-30x30' } },
]

async function openDeck(
  model: DeviceModelId,
): Promise<{ surface: StreamDeckSurface; hid: FakeHidDevice; renderer: KeyRenderer }> {
  const transport = new MemoryStreamDeckTransport()
  const listing = transport.plug(model, `/dev/hidraw-${model}`, `SN-${model}`)
  const renderer = new KeyRenderer()
  const driver = new StreamDeckDriver({
    transport,
    renderer,
    frameMs: 0,
    deviceBytes: new DeviceBytesCache(),
  })
  const surface = await driver.open((await driver.detect())[0]!)
  onTestFinished(() => surface.close())
  return { surface, hid: transport.lastOpened(listing.path)!, renderer }
}

/** Every write's reports, one buffer a write, sorted (the writes of one frame go out as each is ready). */
const writes = (hid: FakeHidDevice): Buffer[] =>
  hid.reports.map((reports) => Buffer.concat(reports)).sort((a, b) => Buffer.compare(a, b))

/**
 * The same faces with the driver's fast conversion (it installs it on opening a deck), and with the
 * library's own: the same reports from both.
 */
async function sameReports(model: DeviceModelId, controls: string[]): Promise<void> {
  onTestFinished(() => void installFastTransform())
  const fast = await openDeck(model)
  const library = await openDeck(model)
  const paint = async (deck: typeof fast): Promise<void> => {
    controls.forEach((control, i) => deck.surface.setFeedback(control, faces[i % faces.length]!))
    await deck.surface.drain()
  }
  await paint(fast)
  // The driver put the fast conversion in place on this thread: taken out, the library's own converts.
  expect(uninstallFastTransform()).toBe(true)
  await paint(library)
  for (const here of [fast, library])
    expect(here.renderer.stats.hits + here.renderer.stats.misses).toBe(controls.length)
  const [b, c] = [writes(fast.hid), writes(library.hid)]
  expect(b).toHaveLength(controls.length)
  for (let i = 0; i < controls.length; i++) expect(b[i]!.equals(c[i]!), `write ${i}, fast and library`).toBe(true)
}

describe('the fast pixel conversion and faces with alpha below 255', () => {
  it('the renderer paints them opaque: every alpha byte is 255', () => {
    const renderer = new KeyRenderer()
    for (const fb of faces) {
      for (const size of [
        { width: 96, height: 96 },
        { width: 200, height: 100 },
      ]) {
        const { rgba } = renderer.render(fb, size)
        expect(
          rgba.every((v, i) => i % 4 !== 3 || v === 255),
          JSON.stringify(size),
        ).toBe(true)
      }
    }
  })

  it('XL keys: the fast conversion makes the library’s reports, byte for byte', async () => {
    await sameReports(
      DeviceModelId.XL,
      Array.from({ length: 10 }, (_, k) => `key:${k}`),
    )
  })

  it('Stream Deck + strip segments: the fast conversion makes the library’s reports', async () => {
    await sameReports(DeviceModelId.PLUS, ['lcd:0', 'lcd:1', 'lcd:2', 'lcd:3'])
  })
})
