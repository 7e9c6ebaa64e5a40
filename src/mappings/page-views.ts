/**
 * Pages, and the views that keep a page of their own.
 *
 * A surface with pages shows one page at a time: the shared page, which every device and browser of it
 * shows. With `listen.pages: per-browser`, each browser of a web surface is a view of it that keeps a
 * page of its own instead: its presses route by its page, a page action it takes turns only its page,
 * and the engine draws that page for it alone (through the view's sink). A view that may not own a
 * page (a read-only viewer, a mirror of hardware) follows the shared page, and so does every view of a
 * surface without pages. Every view is told its page as it changes, so the page can show it.
 *
 * The engine (`./engine.ts`) owns the bindings and draws; this module keeps the pages and views. What a
 * view sees of them is `../surfaces/page-port.ts`.
 */
import type { PageInfo, PageViewSink } from '../surfaces/page-port.js'
import type { ControlId } from '../face/control-id.js'
import { ENGINE_TUNABLES, PAGE_WORDS } from './constants.js'

/** One surface's pages: the list, the page shown, the way back. */
export interface PageState {
  list: readonly string[]
  current: string
  history: string[]
}

/** A surface's pages after a reload: the page shown stays while it is still listed. */
export function carryPages(old: PageState | undefined, list: readonly string[]): PageState {
  const current = old && list.includes(old.current) ? old.current : list[0]!
  return { list, current, history: old ? old.history.filter((p) => list.includes(p)) : [] }
}

/**
 * Turns `p` to `page` (a page name, `previous` or `next`): the page before goes on the history, and
 * `previous` takes the last one back off. Returns whether the page changed.
 */
export function turnPage(p: PageState, page: string): boolean {
  let target = page
  if (page === PAGE_WORDS.previous) {
    const back = p.history.pop()
    if (back === undefined) return false
    target = back
  } else if (page === PAGE_WORDS.next) {
    target = p.list[(p.list.indexOf(p.current) + 1) % p.list.length]!
  } else if (!p.list.includes(page)) return false
  if (target === p.current) return false
  if (page !== PAGE_WORDS.previous) {
    p.history.push(p.current)
    if (p.history.length > ENGINE_TUNABLES.pageHistory) p.history.shift()
  }
  p.current = target
  return true
}

/** One view, as the engine keeps it. */
export interface View {
  readonly surface: string
  readonly id: string
  readonly sink: PageViewSink
  readonly mayOwn: boolean
  /** Its own pages, while it keeps them. */
  own?: PageState
  /** What each control shows on it now (a hash of the feedback), while it keeps its own page. */
  readonly shown: Map<ControlId, string>
}

/** The open views, by surface and id. */
export class PageViews {
  private readonly bySurface = new Map<string, Map<string, View>>()
  private perView = false

  /** Opens a view; `pages` is its surface's shared pages now. */
  open(surface: string, id: string, sink: PageViewSink, mayOwn: boolean, pages: PageState | undefined): View {
    let views = this.bySurface.get(surface)
    if (!views) this.bySurface.set(surface, (views = new Map<string, View>()))
    const view: View = { surface, id, sink, mayOwn, shown: new Map() }
    views.set(id, view)
    this.setOwn(view, pages)
    return view
  }

  close(view: View): void {
    const views = this.bySurface.get(view.surface)
    if (views?.get(view.id) !== view) return
    views.delete(view.id)
    if (views.size === 0) this.bySurface.delete(view.surface)
  }

  /** The view an event names, if it keeps its own page. */
  owning(surface: string, id: string | undefined): View | undefined {
    const view = id === undefined ? undefined : this.bySurface.get(surface)?.get(id)
    return view?.own ? view : undefined
  }

  /** Every view of a surface (`undefined`: of every surface). */
  of(surface?: string): View[] {
    if (surface !== undefined) return [...(this.bySurface.get(surface)?.values() ?? [])]
    return [...this.bySurface.values()].flatMap((views) => [...views.values()])
  }

  /**
   * A reload: whether views keep pages of their own (`listen.pages: per-browser`), and each surface's
   * shared pages. Each view's own page stays while it is still listed; every view is told its page.
   */
  apply(perView: boolean, shared: ReadonlyMap<string, PageState>): void {
    this.perView = perView
    for (const view of this.of()) this.setOwn(view, shared.get(view.surface))
  }

  /** Tells the views of a surface that follow its shared page that it changed. */
  sharedTurned(surface: string, pages: PageState): void {
    for (const view of this.of(surface)) if (!view.own) view.sink.page(info(pages, false))
  }

  /** Gives a view its own pages (from the shared ones), keeps them, or takes them away, and tells it. */
  private setOwn(view: View, shared: PageState | undefined): void {
    const owns = this.perView && view.mayOwn && shared !== undefined
    if (!owns) {
      delete view.own
      view.shown.clear()
    } else {
      // A view starts where the surface is, with its way back.
      view.own = view.own ? carryPages(view.own, shared.list) : { ...shared, history: [...shared.history] }
    }
    view.sink.page(info(view.own ?? shared, view.own !== undefined))
  }
}

/** What a view is told of `pages`. */
export function info(pages: PageState | undefined, own: boolean): PageInfo {
  return pages ? { page: pages.current, pages: pages.list, own } : { pages: [], own }
}
