/**
 * Titles' thumbnails (`feedback: { title, thumbnail: true }`, issue 26 item 3): asked with
 * `getTitleControlInfo` and `icon`, `width`, `height` at the key's size, refreshed after a title's data
 * changes (debounced), at low priority (one call at a time, held back by input), kept in a cache bounded
 * in bytes, and a reason on the key when none can be had. The command port answers as the simulator
 * does (its own icon encoder); the store is the real AppState; time is fake.
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { CommandError } from '../../src/api/errors.js'
import { Engine } from '../../src/mappings/engine.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { KeyPictures } from '../../src/mappings/pictures.js'
import type { Binding } from '../../src/mappings/schema.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import { THUMBNAIL_TUNABLES, Thumbnails, type ThumbnailLook } from '../../src/mappings/thumbnails.js'
import { iconDataUrl } from '../../src/app-kit/simulator/png.js'
import { sharedPictureProcess, SVG_LIMITS } from '../../src/surfaces/render/picture.js'
import { useBomb } from '../helpers/svg-bomb.js'
import { RecordingSurfaces } from './helpers.js'

interface Call {
  params: Record<string, unknown>
  at: number
  answer: () => void
}

/** The application's side: titles with an icon colour each; calls answered at once or when told (`hold`). */
class FakeApp implements CommandPort {
  readonly colors = new Map<string, string>()
  readonly calls: Call[] = []
  hold = false
  fail: Error | undefined
  image: ((id: string, w: number, h: number) => string) | undefined

  callByName(name: string, params: Record<string, unknown> = {}): Promise<CallResult> {
    expect(name).toBe('getTitleControlInfo')
    return new Promise((resolve, reject) => {
      const answer = (): void => {
        if (this.fail !== undefined) return reject(this.fail)
        const [w, h] = [Number(params.width), Number(params.height)]
        const titles = [...this.colors].reverse().map(([id, color]) => ({
          id,
          name: id.toUpperCase(),
          status: 'Off',
          image: this.image ? this.image(id, w, h) : iconDataUrl(w, h, color),
        }))
        resolve({ command: name, requestId: 'r', reply: {}, raw: { titles }, latencyMs: 1 } as unknown as CallResult)
      }
      this.calls.push({ params, at: Date.now(), answer })
      if (!this.hold) answer()
    })
  }
}

const binding = (title: string, control = 0): Binding => ({
  on: `desk/key:${control}`,
  feedback: { title, thumbnail: true },
})

function topLeft(look: ThumbnailLook): number[] | undefined {
  return look && 'picture' in look ? [...look.picture.rgba.slice(0, 3)] : undefined
}

describe('thumbnails', () => {
  let app: FakeApp
  let state: AppState
  let thumbs: Thumbnails | undefined
  let changes = 0
  let changed: () => void = () => {}
  /** Resolves at the next `changed` (a fetch done and decoded). */
  const nextChange = (): Promise<void> => new Promise((resolve) => (changed = resolve))

  beforeEach(() => {
    vi.useFakeTimers()
    app = new FakeApp()
    app.colors.set('a', '#ff0000')
    app.colors.set('b', '#0000ff')
    state = new AppState()
    state.resetTitles([...app.colors.keys()].map((id) => ({ id, name: id.toUpperCase(), play: 'Off' as const })))
    state.setLink({ status: 'connected', since: Date.now() })
    changes = 0
  })

  afterEach(() => {
    thumbs?.stop()
    thumbs = undefined
    vi.useRealTimers()
  })

  function start(options: Partial<ConstructorParameters<typeof Thumbnails>[0]> = {}): Thumbnails {
    return (thumbs = new Thumbnails({
      client: app,
      state,
      changed: () => {
        changes++
        changed()
      },
      ...options,
    }))
  }

  it("asks for every followed title's icon at the key's size, and shows it", async () => {
    const thumbs = start({ keySize: (on) => (on === 'desk/key:0' ? { width: 96, height: 96 } : undefined) })
    const done = nextChange()
    thumbs.want([binding('A'), binding('B', 1)])
    await vi.advanceTimersByTimeAsync(0)
    await done
    // Two sizes: the open key's 96×96 and the default for a key not open (its size unknown), in turn.
    await vi.advanceTimersByTimeAsync(0)
    await vi.waitUntil(() => app.calls.length === 2 && changes === 2, { timeout: 2000, interval: 1 })
    expect(app.calls.map((c) => c.params)).toEqual([
      { icon: true, width: 96, height: 96 },
      { icon: true, ...THUMBNAIL_TUNABLES.defaultBox },
    ])
    expect(topLeft(thumbs.lookOf(binding('A')))).toEqual([255, 0, 0])
    expect(topLeft(thumbs.lookOf(binding('B', 1)))).toEqual([0, 0, 255])
    const look = thumbs.lookOf(binding('A'))
    expect(look && 'picture' in look ? [look.picture.width, look.picture.height] : look).toEqual([96, 96])
  })

  it("refreshes after the title's data changes, once per debounce period however many changes", async () => {
    const thumbs = start()
    const first = nextChange()
    thumbs.want([binding('A')])
    await vi.advanceTimersByTimeAsync(0)
    await first
    expect(app.calls).toHaveLength(1)

    app.colors.set('a', '#00ff00')
    state.setTitleVariables('a', { Name: 'one' })
    state.flush()
    await vi.advanceTimersByTimeAsync(THUMBNAIL_TUNABLES.refreshDebounceMs / 2)
    state.setTitleVariables('a', { Name: 'two' })
    state.flush()
    await vi.advanceTimersByTimeAsync(THUMBNAIL_TUNABLES.refreshDebounceMs / 2 - 1)
    expect(app.calls).toHaveLength(1) // not yet: debounced
    expect(topLeft(thumbs.lookOf(binding('A')))).toEqual([255, 0, 0])
    const second = nextChange()
    await vi.advanceTimersByTimeAsync(1)
    await second
    expect(app.calls).toHaveLength(2)
    expect(topLeft(thumbs.lookOf(binding('A')))).toEqual([0, 255, 0])

    // A play change is not a data change; a title nobody follows changes nothing.
    state.setTitlePlay('a', 'Running')
    state.setTitleVariables('b', { Name: 'x' })
    state.flush()
    await vi.advanceTimersByTimeAsync(THUMBNAIL_TUNABLES.refreshDebounceMs * 3)
    expect(app.calls).toHaveLength(2)
  })

  it('waits for input to be quiet, and asks one call at a time', async () => {
    const thumbs = start({ keySize: (on) => (on === 'desk/key:0' ? { width: 96, height: 96 } : undefined) })
    thumbs.noteInput()
    thumbs.want([binding('A'), binding('B', 1)])
    await vi.advanceTimersByTimeAsync(THUMBNAIL_TUNABLES.inputQuietMs - 1)
    expect(app.calls).toHaveLength(0)
    app.hold = true
    await vi.advanceTimersByTimeAsync(1)
    expect(app.calls).toHaveLength(1)
    // The second size waits for the first call's answer, however long it takes.
    await vi.advanceTimersByTimeAsync(10_000)
    expect(app.calls).toHaveLength(1)
    const done = nextChange()
    app.calls[0]!.answer()
    await done
    await vi.advanceTimersByTimeAsync(0)
    expect(app.calls).toHaveLength(2)
  })

  it('asks nothing while the link is down, and everything again at the resync', async () => {
    state.setLink({ status: 'stale', phase: 'connecting', since: Date.now() })
    const thumbs = start()
    thumbs.want([binding('A')])
    await vi.advanceTimersByTimeAsync(THUMBNAIL_TUNABLES.refreshDebounceMs * 2)
    expect(app.calls).toHaveLength(0)
    const done = nextChange()
    state.setLink({ status: 'connected', since: Date.now() })
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(app.calls).toHaveLength(1)
  })

  it('keeps the cache within its bytes, the least recently used going first', async () => {
    for (const id of ['c', 'd', 'e']) {
      app.colors.set(id, '#00ff00')
      state.resetTitles([...app.colors.keys()].map((t) => ({ id: t, name: t.toUpperCase(), play: 'Off' as const })))
    }
    const one = THUMBNAIL_TUNABLES.defaultBox.width * THUMBNAIL_TUNABLES.defaultBox.height * 4
    const thumbs = start({ cacheBytes: 3 * one })
    const done = nextChange()
    thumbs.want(['A', 'B', 'C', 'D', 'E'].map((t, i) => binding(t, i)))
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(thumbs.cachedBytes).toBe(3 * one)
    const kept = ['A', 'B', 'C', 'D', 'E'].filter((t, i) => topLeft(thumbs.lookOf(binding(t, i))) !== undefined)
    expect(kept).toEqual(['C', 'D', 'E'])
  })

  it('says why a key has no thumbnail: the call failed, or the application sent none or no image', async () => {
    const thumbs = start()
    app.fail = new CommandError('TIMEOUT', 'getTitleControlInfo', 'getTitleControlInfo: no reply within 5000 ms')
    let done = nextChange()
    thumbs.want([binding('A')])
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(thumbs.lookOf(binding('A'))).toEqual({ why: 'thumbnail: no reply in time' })

    app.fail = undefined
    app.image = (id) => (id === 'a' ? '' : 'data:image/png;base64,bm90IGFuIGltYWdl')
    done = nextChange()
    state.resetTitles([...app.colors.keys()].map((id) => ({ id, name: id.toUpperCase(), play: 'Off' as const })))
    thumbs.want([binding('A'), binding('B', 1)])
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(thumbs.lookOf(binding('A'))).toEqual({ why: 'thumbnail: the application sent none' })
    expect(thumbs.lookOf(binding('B', 1))).toEqual({ why: 'thumbnail: not a PNG, JPEG or SVG image' })
  })
  it("asks again at a key's own size once its surface opens", async () => {
    let open = false
    const pictures = new KeyPictures({
      client: app,
      state,
      keySize: () => (open ? { width: 96, height: 96 } : undefined),
    })
    const surfaces = new RecordingSurfaces()
    const engine = new Engine({ client: app, state, surfaces, pictures })
    const yaml =
      'version: 1\nsurfaces:\n  desk: { driver: web, rows: 1, columns: 1 }\nbindings:\n  - on: desk/key:0\n    feedback: { title: A, thumbnail: true }\n'
    engine.apply((await loadConfigText(yaml, 'test.yaml')).config!)
    const width = (): number | undefined => surfaces.of('desk/key:0')?.picture?.width
    await vi.waitFor(() => expect(width()).toBe(THUMBNAIL_TUNABLES.defaultBox.width))
    open = true
    pictures.refresh()
    await vi.waitFor(() => expect(width()).toBe(96))
    expect(app.calls.map((c) => c.params.width)).toEqual([THUMBNAIL_TUNABLES.defaultBox.width, 96])
    engine.stop()
  })
  it('decodes again only the thumbnails whose icon changed', async () => {
    const thumbs = start()
    let done = nextChange()
    thumbs.want([binding('A'), binding('B', 1)])
    await vi.advanceTimersByTimeAsync(0)
    await done
    const [a, b] = [thumbs.lookOf(binding('A')), thumbs.lookOf(binding('B', 1))]
    app.colors.set('a', '#00ff00')
    state.setTitleVariables('a', { Name: 'new' })
    state.flush()
    done = nextChange()
    await vi.advanceTimersByTimeAsync(THUMBNAIL_TUNABLES.refreshDebounceMs)
    await done
    expect(app.calls).toHaveLength(2)
    expect(thumbs.lookOf(binding('B', 1))).toEqual(b)
    expect((thumbs.lookOf(binding('B', 1)) as { picture: unknown }).picture).toBe((b as { picture: unknown }).picture)
    expect((thumbs.lookOf(binding('A')) as { picture: unknown }).picture).not.toBe((a as { picture: unknown }).picture)
    expect(topLeft(thumbs.lookOf(binding('A')))).toEqual([0, 255, 0])
  })

  it('refuses an SVG <use> bomb from the application before the rasteriser sees it, the other titles drawn', async () => {
    // What the drawing process is handed (it runs the rasteriser: `picture.ts`).
    const rasterise = vi.spyOn(sharedPictureProcess(), 'draw')
    onTestFinished(() => rasterise.mockRestore())
    const bomb = `data:image/svg+xml;base64,${Buffer.from(useBomb(7, 10)).toString('base64')}`
    app.image = (id, w, h) => (id === 'a' ? bomb : iconDataUrl(w, h, '#0000ff'))
    const thumbs = start()
    const done = nextChange()
    thumbs.want([binding('A'), binding('B', 1)])
    await vi.advanceTimersByTimeAsync(0)
    await done
    expect(thumbs.lookOf(binding('A'))).toEqual({
      why: `thumbnail: an SVG that draws more than ${SVG_LIMITS.maxDrawnElements} elements once its <use> references are expanded is not read`,
    })
    expect(topLeft(thumbs.lookOf(binding('B', 1)))).toEqual([0, 0, 255])
    // Through the real decoding path: the rasteriser ran for B's icon only, never with the bomb.
    expect(rasterise).toHaveBeenCalledTimes(1)
    expect(rasterise.mock.calls.map(([source]) => Buffer.from(source as Buffer).toString('latin1', 0, 4))).toEqual([
      '\x89PNG',
    ])
  })
})
