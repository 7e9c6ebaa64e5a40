/**
 * A title's thumbnail on its key, end to end (issue 26, item 3): the real loader, engine, command client,
 * app state and notification link against the simulator, which answers `getTitleControlInfo` with its
 * icons; the key drawn by the real renderer with the play-state colour round the thumbnail and the label
 * over it; the web page's image of that key the same pixels.
 */
import { createRequire } from 'node:module'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import { Engine } from '../../src/mappings/engine.js'
import { KeyPictures } from '../../src/mappings/pictures.js'
import { KeyRenderer, parseColor, type RenderedKey } from '../../src/surfaces/render/key-renderer.js'
import { PICTURE_VEIL } from '../../src/surfaces/render/picture-paint.js'
import type { Feedback } from '../../src/face/feedback.js'
import { KeyImages } from '../../src/surfaces/web/key-images.js'
import { RenderedControls } from '../../src/surfaces/web/rendered-controls.js'
import { appSide, loadOrThrow, RecordingSurfaces, WAIT } from './helpers.js'

const require = createRequire(import.meta.url)
const { loadImage, createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

type Rgb = [number, number, number]
const SIZE = { width: 72, height: 72 }
/** The simulator's Lower Third: its icon is this colour over its top two thirds. */
const LOWER_THIRD = parseColor('#1d4e89')!

function pixel(key: RenderedKey, x: number, y: number): Rgb {
  const i = (y * key.width + x) * 4
  return [key.rgba[i]!, key.rgba[i + 1]!, key.rgba[i + 2]!]
}

function near(actual: Rgb, expected: Rgb, tolerance = 6): boolean {
  return actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance)
}

const VEIL_ALPHA = Number(/([0-9.]+)\)$/.exec(PICTURE_VEIL)![1])

async function world() {
  const { sim, client, state, link } = await appSide()
  const surfaces = new RecordingSurfaces()
  const pictures = new KeyPictures({ client, state })
  const engine = new Engine({ client, state, surfaces, pictures })
  onTestFinished(async () => {
    engine.stop()
    link.stop()
    await client.close()
    await sim.close()
  })
  engine.apply(
    await loadOrThrow(`version: 1
surfaces:
  desk: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: desk/key:0
    label: "LT"
    feedback: { title: Lower Third, thumbnail: true }
    press: { command: schedule, params: { action: cutin, title: Lower Third } }
`),
  )
  link.start()
  return { sim, state, surfaces, engine }
}

describe("a title's thumbnail on its key", () => {
  it('shows the application’s icon with the play-state colour round it and the label over it', async () => {
    const { sim, surfaces, engine, state } = await world()
    await vi.waitFor(() => expect(surfaces.of('desk/key:0')?.picture).toBeDefined(), WAIT)
    const asked = sim.http.commands('getTitleControlInfo').map((c) => c.parameters)
    expect(asked).toContainEqual(expect.objectContaining({ icon: '1', width: '72', height: '72' }))

    const renderer = new KeyRenderer()
    const veiled = LOWER_THIRD.map((c) => Math.round(c * (1 - VEIL_ALPHA))) as Rgb
    const off = renderer.render(surfaces.of('desk/key:0')!, SIZE)
    expect(near(pixel(off, 1, 36), parseColor(FEEDBACK_COLORS.play.Off)!, 0)).toBe(true)
    expect(near(pixel(off, 12, 12), veiled)).toBe(true)
    // The label is drawn over it: white ink in the middle.
    expect([...Array(40).keys()].some((x) => pixel(off, 16 + x, 36).every((v) => v > 200))).toBe(true)

    engine.handle({ surface: 'desk', control: 'key:0', type: 'down', at: performance.now() })
    engine.handle({ surface: 'desk', control: 'key:0', type: 'up', at: performance.now() })
    // On air (a cut-in holds on its last frame: the simulator says Paused), in that state's colour.
    await vi.waitFor(() => expect(state.findTitle('Lower Third')?.play).toBe('Paused'), WAIT)
    await vi.waitFor(() => expect(surfaces.of('desk/key:0')?.color).toBe(FEEDBACK_COLORS.play.Paused), WAIT)
    const onAir = renderer.render(surfaces.of('desk/key:0')!, SIZE)
    expect(near(pixel(onAir, 1, 36), parseColor(FEEDBACK_COLORS.play.Paused)!, 0)).toBe(true)
    expect(near(pixel(onAir, 70, 36), parseColor(FEEDBACK_COLORS.play.Paused)!, 0)).toBe(true)
    expect(near(pixel(onAir, 12, 12), veiled)).toBe(true)
  })

  it('is fetched again after the title’s data changes', async () => {
    const { sim, surfaces, state } = await world()
    await vi.waitFor(() => expect(surfaces.of('desk/key:0')?.picture).toBeDefined(), WAIT)
    const before = sim.http.commands('getTitleControlInfo').filter((c) => c.parameters.icon === '1').length
    const id = state.findTitle('Lower Third')!.id
    const res = await fetch(
      `${sim.httpUrl}/api/command/schedule?action=update&id=${encodeURIComponent(id)}&Name=Changed`,
    )
    expect(res.ok).toBe(true)
    await vi.waitFor(
      () =>
        expect(sim.http.commands('getTitleControlInfo').filter((c) => c.parameters.icon === '1').length).toBe(
          before + 1,
        ),
      { timeout: 10_000, interval: 20 },
    )
  })
})

describe("the web page's image of a picture key", () => {
  it('is the renderer’s own pixels', async () => {
    const renderer = new KeyRenderer()
    const rgba = new Uint8Array(32 * 32 * 4).fill(255)
    const { KeyPicture } = await import('../../src/surfaces/render/picture.js')
    const feedback: Feedback = { color: '#c00000', text: 'CAM', picture: KeyPicture.of(32, 32, rgba) }
    const rendered = new RenderedControls(
      { id: 'desk', controls: [{ id: 'key:0', kind: 'key', capabilities: { image: SIZE } }] } as never,
      new KeyImages(renderer),
      (_c, err) => {
        throw err
      },
    )
    rendered.queue('key:0', feedback)
    const [message] = rendered.flush()
    const url = (message as { image?: string }).image
    expect(url).toMatch(/^data:image\/png;base64,/)
    const image = await loadImage(Buffer.from(url!.split(',')[1]!, 'base64'))
    const ctx = createCanvas(SIZE.width, SIZE.height).getContext('2d')
    ctx.drawImage(image, 0, 0)
    const shown = ctx.getImageData(0, 0, SIZE.width, SIZE.height).data
    const key = renderer.render(feedback, SIZE)
    expect(Buffer.from(shown).equals(Buffer.from(key.rgba))).toBe(true)
  })
})
