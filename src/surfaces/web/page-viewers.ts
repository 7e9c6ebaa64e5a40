/**
 * The browsers that view one web surface, each a view of it through the engine's page port
 * (`../../mappings/page-views.ts`): each is told the page it shows (a `page` message), and a browser
 * that keeps a page of its own (`listen.pages: per-browser`) gets its controls' faces from its own
 * page, drawn here for it alone, instead of the surface's.
 */
import type { PageInfo, PagePort } from '../page-port.js'
import type { ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import type { KeyImages } from './key-images.js'
import type { ServerMessage } from '../../face/protocol.js'
import { RenderedControls } from './rendered-controls.js'
import type { SurfaceDescription } from '../../face/surface.js'

/** Sends to one browser. */
export type ViewerSend = (message: ServerMessage) => void

interface Viewer {
  readonly send: ViewerSend
  /** Its own page's faces, while it keeps a page of its own. */
  own?: RenderedControls
  close: () => void
}

export class PageViewers {
  private readonly viewers = new Map<string, Viewer>()
  private flushScheduled: NodeJS.Immediate | undefined

  constructor(
    private readonly description: SurfaceDescription,
    private readonly images: KeyImages,
    /** The surface's own faces, which a browser without a page of its own shows. */
    private readonly shared: RenderedControls,
    private readonly onRenderError: (control: ControlId, err: unknown) => void,
  ) {}

  /**
   * Opens the view of browser `view` (unique per surface) through `port`; `mayOwn` false for a browser
   * that only follows the shared page (a read-only viewer). Replaces a view of that name.
   */
  open(port: PagePort, view: string, mayOwn: boolean, send: ViewerSend): void {
    this.close(view)
    const viewer: Viewer = { send, close: () => undefined }
    this.viewers.set(view, viewer)
    viewer.close = port.openView(
      this.description.id,
      view,
      {
        feedback: (control, feedback) => this.feedback(viewer, control, feedback),
        page: (info) => this.page(viewer, info),
      },
      mayOwn,
    )
  }

  close(view: string): void {
    const viewer = this.viewers.get(view)
    if (!viewer) return
    this.viewers.delete(view)
    viewer.close()
  }

  closeAll(): void {
    for (const view of [...this.viewers.keys()]) this.close(view)
    if (this.flushScheduled) clearImmediate(this.flushScheduled)
    this.flushScheduled = undefined
  }

  /** Whether a browser keeps a page of its own: the surface's own faces are not for it. */
  owns(view: string | undefined): boolean {
    return view !== undefined && this.viewers.get(view)?.own !== undefined
  }

  private feedback(viewer: Viewer, control: ControlId, feedback: Feedback): void {
    if (!viewer.own?.queue(control, feedback)) return
    this.flushScheduled ??= setImmediate(() => this.flush())
  }

  /** Tells the browser its page; a browser that starts or stops keeping its own changes the faces it shows. */
  private page(viewer: Viewer, info: PageInfo): void {
    if (info.own && !viewer.own) {
      // From the surface's faces to its own: every face the surface shows goes blank, unless its own page
      // draws it (the engine draws it in the same turn, so the browser never shows the blank).
      viewer.own = new RenderedControls(this.description, this.images, this.onRenderError)
      for (const control of this.shared.shown.keys()) viewer.own.queue(control, {})
      this.flushScheduled ??= setImmediate(() => this.flush())
    } else if (!info.own && viewer.own) {
      const own = viewer.own
      delete viewer.own
      for (const control of own.shown.keys()) if (!this.shared.shown.has(control)) own.queue(control, {})
      for (const message of own.flush()) viewer.send(message)
      for (const message of this.shared.shown.values()) viewer.send(message)
    }
    viewer.send({
      type: 'page',
      surface: this.description.id,
      ...(info.page !== undefined ? { page: info.page } : {}),
      pages: [...info.pages],
    })
  }

  private flush(): void {
    if (this.flushScheduled) clearImmediate(this.flushScheduled)
    this.flushScheduled = undefined
    for (const viewer of this.viewers.values()) {
      if (!viewer.own?.hasPending) continue
      for (const message of viewer.own.flush()) viewer.send(message)
    }
  }
}
