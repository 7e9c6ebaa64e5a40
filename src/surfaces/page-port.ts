/**
 * Pages as a surface sees them: what the binding engine tells a view of a surface (a browser of a web
 * surface) about the page it shows, and the one call a web surface makes of the engine to open such a
 * view. The engine implements `PagePort` (`../mappings/page-views.ts` keeps the views); the web surface
 * only sees these types, as the engine only sees the surface model.
 */
import type { ControlId } from '../face/control-id.js'
import type { Feedback } from '../face/feedback.js'

/** What a view is told of its page. */
export interface PageInfo {
  /** The page shown; undefined when the surface has no pages. */
  page?: string
  /** The surface's pages, the first the start page. */
  pages: readonly string[]
  /**
   * Whether the view keeps a page of its own (`listen.pages: per-browser`): its controls' feedback then
   * comes through its sink alone; otherwise it shows the surface's own feedback.
   */
  own: boolean
}

/** Where a view is drawn (a browser of a web surface). */
export interface PageViewSink {
  /** A control's feedback on the view's own page (only while it keeps one). */
  feedback(control: ControlId, feedback: Feedback): void
  /** The view's page, at once and on every change. */
  page(info: PageInfo): void
}

/**
 * What a web surface asks of the engine: a view of `surface`, `id` unique per surface, that keeps a
 * page of its own when `listen.pages` is `per-browser` and `mayOwn` is true (false: it follows the
 * shared page, as a read-only viewer and a mirror of hardware do). Input from a view with a page of
 * its own names it (`SurfaceEvent.view`). Returns the view's close.
 */
export interface PagePort {
  openView(surface: string, id: string, sink: PageViewSink, mayOwn: boolean): () => void
}
