/**
 * What an SVG would cost to draw, worked out from its text before the rasteriser sees it (issue 46,
 * item 1). Skia expands every `<use>` as it draws and cannot be stopped once it starts: seven levels of
 * ten nested `<use>` (2 KB) are ten million elements, a core held for minutes in native code that no
 * time-out can interrupt. So the text is scanned here, once, in linear time and bounded memory:
 *
 * - no DOCTYPE and no entity declaration (an entity can expand without bound, a "billion laughs");
 * - no reference out of the file: every `href` points at an element of the file (`#id`), and no
 *   `url(...)` names anything but `#id`, no `@import` (the rasteriser must never open a file or a URL);
 * - at most `maxElements` elements, nested at most `maxDepth` deep;
 * - at most `maxDrawnElements` once every reference is expanded: an element counts itself and its
 *   children, and each local reference it makes (`<use href="#a">`, `fill="url(#p)"`) counts the whole
 *   of what it refers to, again each time it is referred to. Counted with memoisation (each element's
 *   drawn count once) and saturated at the limit, so a bomb is refused after a few thousand steps; a
 *   reference that leads back to itself is refused too. An element drawn in a layer of its own (a
 *   `mask`, an `opacity`) counts `layerCost`: the rasteriser draws it apart, then over the rest;
 * - no filter: its cost is set by its own parameters (a blur over the whole picture, a turbulence's
 *   octaves), which no count of elements bounds (a few hundred blurred squares held it for many seconds).
 *
 * The scan reads tags, not the full XML grammar: an SVG that hides a tag from it (inside a CDATA section
 * or a comment) hides it from the count, never from the rule, since those are skipped whole by the
 * rasteriser's parser as well.
 */

/** The bounds of an SVG's cost (see the header). */
export const SVG_LIMITS = {
  /**
   * Elements written in the file. ASSUMED: 4,000; a detailed icon exported by a drawing program has a
   * few hundred. The scan runs where the picture arrives (a thumbnail: the daemon's loop), so this
   * bounds the scan's own time too.
   */
  maxElements: 4_000,
  /**
   * Elements drawn once references are expanded, a layer counting `layerCost`. ASSUMED: 10,000, a few
   * times the largest real icon; at a key's size the rasteriser draws that many within a fraction of
   * a second.
   */
  maxDrawnElements: 10_000,
  /**
   * What an element drawn in a layer of its own costs (a `mask`, an `opacity`: the rasteriser draws it
   * apart, then over the rest), in drawn elements. ASSUMED: 160, so about sixty layers at most; a
   * few thousand masked squares held the rasteriser for seconds.
   */
  layerCost: 160,
  /** Nesting of elements, and of references followed one from another. ASSUMED: 128. */
  maxDepth: 128,
} as const

/** Why an SVG is not drawn; undefined when it may be. */
export function svgCostProblem(text: string, limits: typeof SVG_LIMITS = SVG_LIMITS): string | undefined {
  if (/<!DOCTYPE/i.test(text)) return 'an SVG with a DOCTYPE is not read'
  if (/<!ENTITY/i.test(text)) return 'an SVG with entity declarations is not read'
  const tree = scanTags(text, limits)
  if (typeof tree === 'string') return tree
  return drawnProblem(tree, limits)
}

interface Tree {
  /** Each element's children, by index (element 0 is the first in the file). */
  children: number[][]
  /** The ids each element refers to (`href="#id"`, `url(#id)`). */
  refs: string[][]
  /** Whether each element is drawn in a layer of its own (`mask`, `opacity`). */
  layered: boolean[]
  /** Elements by their `id`. */
  ids: Map<string, number>
  /** The top-level elements. */
  roots: number[]
}

/** One start tag, end tag or self-closed tag: its name, its attributes' text and whether it closes. */
const TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/y
const ATTRIBUTE = /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g
/** `url(...)` anywhere in an attribute or a style sheet, with what it names. */
const URL_REF = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)/gi

/** Why a reference is refused: the rasteriser must never open a file or a URL, nor decode a picture inside one. */
const OUTSIDE = 'an SVG whose href, url() or @import names anything but an element of the file (#id) is not read'

/** Why a filter is refused: a filter's own parameters (a blur's radius, a turbulence's octaves) set its cost. */
const FILTERS = 'an SVG with filters is not read'

/** The elements of `text` as a tree with their references, or why it is refused. */
function scanTags(text: string, limits: typeof SVG_LIMITS): Tree | string {
  const tree: Tree = { children: [], refs: [], layered: [], ids: new Map(), roots: [] }
  const open: number[] = []
  let at = 0
  for (;;) {
    const lt = text.indexOf('<', at)
    if (lt < 0) break
    // Text between tags: a style sheet's or an attribute-free reference (`<style>` holds url(...)).
    const outside = refsIn(text.slice(at, lt))
    if (typeof outside === 'string') return outside
    if (open.length > 0) tree.refs[open[open.length - 1]!]!.push(...outside)
    if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4)
      at = end < 0 ? text.length : end + 3
      continue
    }
    if (text.startsWith('<![CDATA[', lt)) {
      const end = text.indexOf(']]>', lt + 9)
      const body = text.slice(lt + 9, end < 0 ? text.length : end)
      const inner = refsIn(body)
      if (typeof inner === 'string') return inner
      if (open.length > 0) tree.refs[open[open.length - 1]!]!.push(...inner)
      at = end < 0 ? text.length : end + 3
      continue
    }
    if (text.startsWith('<?', lt) || text.startsWith('<!', lt)) {
      const end = text.indexOf('>', lt + 2)
      at = end < 0 ? text.length : end + 1
      continue
    }
    TAG.lastIndex = lt
    const m = TAG.exec(text)
    if (!m) return 'the SVG is not well-formed'
    at = TAG.lastIndex
    const [, closing, , attributes, selfClosed] = m
    if (closing === '/') {
      if (open.length === 0) return 'the SVG is not well-formed'
      open.pop()
      continue
    }
    const index = tree.children.length
    if (index >= limits.maxElements) return `an SVG of more than ${limits.maxElements} elements is not read`
    if (/^(?:[\w.-]+:)?filter$/i.test(m[2]!)) return FILTERS
    tree.children.push([])
    const layered = { is: false }
    const refs = attributeRefs(attributes ?? '', tree.ids, index, layered)
    if (typeof refs === 'string') return refs
    tree.refs.push(refs)
    tree.layered.push(layered.is)
    if (open.length > 0) tree.children[open[open.length - 1]!]!.push(index)
    else tree.roots.push(index)
    if (selfClosed !== '/') {
      open.push(index)
      if (open.length > limits.maxDepth) return `an SVG nested more than ${limits.maxDepth} deep is not read`
    }
  }
  return tree
}

/** The local references of one tag's attributes (its `id` noted), or why one is refused. */
function attributeRefs(
  attributes: string,
  ids: Map<string, number>,
  index: number,
  layered: { is: boolean },
): string[] | string {
  const refs: string[] = []
  for (const a of attributes.matchAll(ATTRIBUTE)) {
    const name = a[1]!.toLowerCase()
    const value = a[2] ?? a[3] ?? a[4] ?? ''
    if (name === 'filter' && value.trim() !== 'none') return FILTERS
    if (name === 'style' && /(?:^|[;\s])filter\s*:\s*(?!none)/i.test(value)) return FILTERS
    if (name === 'mask' || name === 'opacity' || (name === 'style' && /(?:^|[;\s])(?:mask|opacity)\s*:/i.test(value)))
      layered.is = true
    if (name === 'id') {
      if (!ids.has(value)) ids.set(value, index)
    } else if (name === 'href' || name.endsWith(':href')) {
      const ref = localRef(value)
      if (ref === undefined) return OUTSIDE
      refs.push(ref)
    } else {
      const inner = refsIn(value)
      if (typeof inner === 'string') return inner
      refs.push(...inner)
    }
  }
  return refs
}

/** The `url(#id)` references in a text (an attribute's value, a style sheet), or why one is refused. */
function refsIn(text: string): string[] | string {
  if (text.indexOf('(') < 0 && text.indexOf('@') < 0) return []
  if (/@import/i.test(text)) return OUTSIDE
  if (/(?:^|[;{\s])filter\s*:\s*(?!none)/i.test(text)) return FILTERS
  const refs: string[] = []
  for (const u of text.matchAll(URL_REF)) {
    const ref = localRef((u[1] ?? u[2] ?? u[3] ?? '').trim())
    if (ref === undefined) return OUTSIDE
    refs.push(ref)
  }
  return refs
}

/** The id of a reference within the file (`#id`); undefined for anything else. */
function localRef(value: string): string | undefined {
  const v = value.trim()
  return v.startsWith('#') && v.length > 1 ? v.slice(1) : undefined
}

/** Why the drawn count is over the limit (or a reference loops); undefined when within it. */
function drawnProblem(tree: Tree, limits: typeof SVG_LIMITS): string | undefined {
  const max = limits.maxDrawnElements
  const memo = new Map<number, number>()
  const onPath = new Set<number>()
  let problem: string | undefined
  /** The elements drawn for element `i`, saturated at max + 1. */
  const drawn = (i: number, depth: number): number => {
    const known = memo.get(i)
    if (known !== undefined) return known
    if (onPath.has(i)) {
      problem = 'an SVG whose references lead back to themselves is not read'
      return max + 1
    }
    if (depth > limits.maxDepth) {
      problem = `an SVG whose references nest more than ${limits.maxDepth} deep is not read`
      return max + 1
    }
    onPath.add(i)
    let total = tree.layered[i] ? limits.layerCost : 1
    for (const child of tree.children[i]!) {
      total += drawn(child, depth + 1)
      if (total > max) break
    }
    for (const id of tree.refs[i]!) {
      if (total > max) break
      const target = tree.ids.get(id)
      if (target !== undefined) total += drawn(target, depth + 1)
    }
    onPath.delete(i)
    const saturated = Math.min(total, max + 1)
    memo.set(i, saturated)
    return saturated
  }
  let total = 0
  for (const root of tree.roots) {
    total += drawn(root, 0)
    if (problem !== undefined) return problem
    if (total > max) break
  }
  if (total > max)
    return `an SVG that draws more than ${max} elements once its <use> references are expanded is not read`
  return undefined
}
