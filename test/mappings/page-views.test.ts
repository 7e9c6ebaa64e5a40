/**
 * Views of a surface with a page of their own (`listen.pages: per-browser`), through the engine's page
 * port: each view is told its page, routes its input and turns its page by it, and is drawn on its
 * sink alone; with `shared` (the default) every view follows the surface's one page. The application
 * is in memory (`./memory-app.ts`): pages are engine logic, no socket is involved.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { carryPages, turnPage } from '../../src/mappings/page-views.js'
import type { PageInfo, PageViewSink } from '../../src/surfaces/page-port.js'
import type { Feedback } from '../../src/face/feedback.js'
import { loadOrThrow, pagedDesk } from './helpers.js'
import { memoryHarness, type MemoryHarness } from './memory-app.js'

const PAGED = (pages: 'shared' | 'per-browser'): string => pagedDesk({ listen: pages, everywhere: true })

/** A view's sink that keeps what it was told. */
class Recorder implements PageViewSink {
  readonly shown = new Map<string, Feedback>()
  readonly pages: PageInfo[] = []
  feedback(control: string, feedback: Feedback): void {
    this.shown.set(control, feedback)
  }
  page(info: PageInfo): void {
    this.pages.push(info)
  }
  get last(): PageInfo | undefined {
    return this.pages.at(-1)
  }
  text(control: string): string | undefined {
    return this.shown.get(control)?.text
  }
}

let h: MemoryHarness | undefined
afterEach(() => {
  h?.close()
  h = undefined
})

/**
 * A press on `desk/<control>` from a view (or from the surface itself). Its page action runs at once;
 * the binding's sequence ends a moment later (a press meanwhile is ignored, from any view), so wait.
 */
async function press(control: string, view?: string): Promise<void> {
  for (const type of ['down', 'up'] as const) {
    h!.engine.handle({
      type,
      surface: 'desk',
      control,
      at: performance.now(),
      ...(view ? { view } : {}),
    })
  }
  await new Promise((resolve) => setImmediate(resolve))
}

describe('pages shared (the default)', () => {
  it('every view follows the surface’s page and is drawn by the surface, not on its sink', async () => {
    h = await memoryHarness(PAGED('shared'))
    const a = new Recorder()
    h.engine.openView('desk', 'a', a, true)
    expect(a.last).toEqual({ page: 'titles', pages: ['titles', 'cameras'], own: false })
    await press('key:0', 'a')
    expect(h.engine.pageOf('desk')).toBe('cameras')
    expect(a.last).toEqual({ page: 'cameras', pages: ['titles', 'cameras'], own: false })
    expect(h.surfaces.of('desk/key:0')!.text).toBe('← Titles')
    expect(a.shown.size).toBe(0)
  })

  it('a surface without pages tells its views so', async () => {
    h = await memoryHarness(
      'version: 1\nsurfaces:\n  desk: { driver: web, rows: 1, columns: 3 }\nbindings:\n  - on: desk/key:1\n    label: "x"\n',
    )
    const a = new Recorder()
    h.engine.openView('desk', 'a', a, true)
    expect(a.last).toEqual({ pages: [], own: false })
  })
})

describe('pages per browser', () => {
  it('each view starts on the shared page, turns only its own, and is drawn on its sink', async () => {
    h = await memoryHarness(PAGED('per-browser'))
    const [a, b] = [new Recorder(), new Recorder()]
    h.engine.openView('desk', 'a', a, true)
    h.engine.openView('desk', 'b', b, true)
    expect(a.last).toEqual({ page: 'titles', pages: ['titles', 'cameras'], own: true })
    expect([a.text('key:0'), a.text('key:1'), a.shown.has('key:2')]).toEqual(['Cameras →', 'Everywhere', false])

    await press('key:0', 'a')
    expect(a.last).toMatchObject({ page: 'cameras', own: true })
    expect([a.text('key:0'), a.text('key:1'), a.text('key:2')]).toEqual(['← Titles', 'Everywhere', 'Cam 1'])
    // Nobody else turned: b, the surface itself.
    expect(b.last).toMatchObject({ page: 'titles' })
    expect(b.text('key:0')).toBe('Cameras →')
    expect(h.engine.pageOf('desk')).toBe('titles')
    expect(h.surfaces.of('desk/key:0')!.text).toBe('Cameras →')

    // b's press is b's page's binding; a's `previous` goes back on a's own way.
    await press('key:0', 'b')
    expect(b.last).toMatchObject({ page: 'cameras' })
    await press('key:0', 'a')
    expect(a.last).toMatchObject({ page: 'titles' })
    expect(a.shown.get('key:2')).toEqual({})
    expect(b.last).toMatchObject({ page: 'cameras' })

    // The surface itself (hardware, or input naming no view) still turns the shared page alone.
    await press('key:0')
    expect(h.engine.pageOf('desk')).toBe('cameras')
    expect([a.last?.page, b.last?.page]).toEqual(['titles', 'cameras'])
    // A press naming a view that has closed is the surface's own.
    const pagesOfA = a.pages.length
    h.engine.openView('desk', 'gone', new Recorder(), true)()
    await press('key:0', 'gone')
    expect(h.engine.pageOf('desk')).toBe('titles')
    expect(a.pages.length).toBe(pagesOfA)
  })

  it('a view that may not own a page follows the shared one', async () => {
    h = await memoryHarness(PAGED('per-browser'))
    const viewer = new Recorder()
    h.engine.openView('desk', 'v', viewer, false)
    expect(viewer.last).toEqual({ page: 'titles', pages: ['titles', 'cameras'], own: false })
    await press('key:0')
    expect(viewer.last).toMatchObject({ page: 'cameras', own: false })
    expect(viewer.shown.size).toBe(0)
  })

  it('a reload keeps each view’s own page; to shared and back, views follow, then own again', async () => {
    h = await memoryHarness(PAGED('per-browser'))
    const a = new Recorder()
    h.engine.openView('desk', 'a', a, true)
    await press('key:0', 'a')
    h.engine.apply(await loadOrThrow(PAGED('per-browser').replace('label: "Everywhere"', 'label: "Changed"')))
    expect(a.last).toMatchObject({ page: 'cameras', own: true })
    expect(a.text('key:1')).toBe('Changed')

    h.engine.apply(await loadOrThrow(PAGED('shared')))
    expect(a.last).toEqual({ page: 'titles', pages: ['titles', 'cameras'], own: false })
    await press('key:0', 'a')
    expect(h.engine.pageOf('desk')).toBe('cameras')

    a.shown.clear()
    h.engine.apply(await loadOrThrow(PAGED('per-browser')))
    expect(a.last).toEqual({ page: 'cameras', pages: ['titles', 'cameras'], own: true })
    expect(a.text('key:2')).toBe('Cam 1')
  })
})

describe('turnPage and carryPages', () => {
  it('next wraps; previous goes back the way it came; an unknown page or the same page is no turn', () => {
    const p = { list: ['a', 'b', 'c'], current: 'a', history: [] as string[] }
    expect(turnPage(p, 'next')).toBe(true)
    expect(turnPage(p, 'c')).toBe(true)
    expect(turnPage(p, 'next')).toBe(true)
    expect(p).toEqual({ list: ['a', 'b', 'c'], current: 'a', history: ['a', 'b', 'c'] })
    expect(turnPage(p, 'previous')).toBe(true)
    expect(p.current).toBe('c')
    expect(turnPage(p, 'nowhere')).toBe(false)
    expect(turnPage(p, 'c')).toBe(false)
    expect(turnPage({ list: ['a'], current: 'a', history: [] }, 'previous')).toBe(false)
  })

  it('a reload keeps the page shown while it is listed, else the start page', () => {
    const old = { list: ['a', 'b'], current: 'b', history: ['a'] }
    expect(carryPages(old, ['b', 'c'])).toEqual({ list: ['b', 'c'], current: 'b', history: [] })
    expect(carryPages(old, ['c', 'a'])).toEqual({ list: ['c', 'a'], current: 'c', history: ['a'] })
    expect(carryPages(undefined, ['x'])).toEqual({ list: ['x'], current: 'x', history: [] })
  })
})
