/**
 * What the page's address asks for: `?surface=NAME` shows that one surface full screen, `?view=1` makes
 * the page a read-only viewer (the server refuses a viewer's presses too; `viewerParam` in
 * `../face/protocol.ts` is the one rule both read). Pure: unit-tested in Node.
 */
import { VIEW_PARAM, viewerParam } from '../face/protocol.js'

/** The query parameter that picks one surface. */
const SURFACE_PARAM = 'surface'

export interface PageOptions {
  /** The one surface to show full screen; undefined shows them all. */
  surface?: string
  /** A read-only viewer: nothing on the page sends input. */
  view: boolean
}

/** The options in a page address's query (`location.search`). */
export function pageOptions(search: string): PageOptions {
  const params = new URLSearchParams(search)
  const surface = params.get(SURFACE_PARAM)
  return {
    ...(surface !== null && surface !== '' ? { surface } : {}),
    view: viewerParam(params.get(VIEW_PARAM)),
  }
}

/**
 * The address of one surface's full-screen page, relative to the page (so it works under any mount
 * path), keeping a viewer a viewer.
 */
export function surfaceHref(surface: string, view: boolean): string {
  const params = new URLSearchParams({ [SURFACE_PARAM]: surface })
  if (view) params.set(VIEW_PARAM, '1')
  return '?' + params.toString()
}

/** The address of the page with every surface, keeping a viewer a viewer. */
export function allSurfacesHref(view: boolean): string {
  return view ? `?${VIEW_PARAM}=1` : './'
}
