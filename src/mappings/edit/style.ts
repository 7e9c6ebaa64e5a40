/**
 * The file's own way of writing bindings, read from the bindings it has, and new YAML written that
 * way: its indentation, whether a field's mapping is written in flow (`{ command: x }`) or block style,
 * and how it quotes strings. What the file does not show falls back to the way `config/examples/`
 * writes (each such default is marked ASSUMED below).
 */
import { isCollection, isMap, isScalar, isSeq, parse, type Node, type Scalar } from 'yaml'
import { EditError, isObject, lineStart, type EditDoc } from './locate.js'

/** ASSUMED: the width a flow collection may reach before it is written in block style (the project's prettier width). */
export const LINE_WIDTH = 120

export interface FileStyle {
  /** Columns a nested block mapping is indented by. */
  step: number
  /** Columns a block sequence's `- ` is indented past its key (0: at the key's column). */
  seqIndent: number
  /** Columns from a binding's `- ` to its keys. */
  dashToKey: number
  /** The column of the bindings' `- `. */
  dashCol: number
  /** The quote used when one is needed. */
  quote: "'" | '"'
  /** Whether strings with a space are quoted though they could be plain (`title: 'Lower Third'`). */
  quoteSpaced: boolean
  /** Whether single words are quoted though they could be plain. */
  quoteWords: boolean
  /**
   * By the key a string stands under (`title`, `label`; `inputs[]` for a list's items): whether the file
   * quotes the strings there that could be plain. It decides before the two rules above.
   */
  quoteAt: Map<string, boolean>
  /** Whether flow collections have spaces inside their brackets (`{ a: b }`, `[ a ]`). */
  mapSpace: boolean
  seqSpace: boolean
  /**
   * By field path in a binding (`press`, `toggle.on`, `press.[]`; a list's path ends in `#seq`): whether the
   * file writes it in flow style.
   */
  flowAt: Map<string, boolean>
}

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1)
}

/** The key a value at `path` stands under: `title` for `press.params.title`, `inputs[]` for `…inputs.[]`. */
function nameOf(path: string): string {
  const parts = path.split('.')
  const last = parts.at(-1)!
  return last === '[]' ? `${parts.at(-2) ?? ''}[]` : last
}

/** Characters that a plain scalar may not start with. */
const PLAIN_FIRST = /^[-?:,[\]{}#&*!|>'"%@`\s]/

/** Whether `s` can be written as a plain scalar and read back as the same string. */
export function plainSafe(s: string, inFlow: boolean): boolean {
  if (s === '' || PLAIN_FIRST.test(s) || /\s$/.test(s) || needsDouble(s)) return false
  if (s.includes(': ') || s.includes(' #') || s.endsWith(':')) return false
  if (inFlow && /[,[\]{}]/.test(s)) return false
  try {
    const back: unknown = parse(inFlow ? `[${s}]` : `k: ${s}`)
    return inFlow ? Array.isArray(back) && back.length === 1 && back[0] === s : isObject(back) && back.k === s
  } catch {
    return false
  }
}

/** Whether `s` holds what only double quotes can write (a line break, a control character). */
export function needsDouble(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]/.test(s)
}

/** Reads the file's style from its bindings (and its top level, for indentation a binding does not show). */
export function detectStyle(ed: EditDoc): FileStyle {
  const { text } = ed
  const col = (offset: number): number => offset - lineStart(text, offset)
  let step: number | undefined
  let seqIndent: number | undefined
  const flow = new Map<string, number>()
  const block = new Map<string, number>()
  const quotes = { single: 0, double: 0, spacedPlain: 0, spacedQuoted: 0, wordPlain: 0, wordQuoted: 0 }
  const spaces = { map: 0, mapTight: 0, seq: 0, seqTight: 0 }

  // The indentation of the top level's block mappings and sequences (`app:` then `  url:`).
  if (isMap(ed.doc.contents)) {
    for (const pair of ed.doc.contents.items) {
      const key = pair.key as Node | null
      const value = pair.value as Node | null
      if (!key?.range || !value?.range || !isCollection(value) || value.flow) continue
      const first = value.items[0] as Node | { key: Node } | undefined
      const at = first && 'key' in first ? first.key?.range?.[0] : first?.range?.[0]
      if (at === undefined) continue
      if (isMap(value)) step ??= col(at) - col(key.range[0])
      if (isSeq(value)) seqIndent ??= col(value.range[0]) - col(key.range[0])
    }
  }

  const seq = ed.seq
  let dashCol = seqIndent ?? 2
  let dashToKey = 2
  if (seq && !seq.flow && seq.items.length > 0) {
    const first = seq.items[0] as Node
    const dash =
      seq.srcToken?.type === 'block-seq'
        ? seq.srcToken.items[0]?.start.find((t) => t.type === 'seq-item-ind')
        : undefined
    if (dash && first.range) {
      dashCol = col(dash.offset)
      dashToKey = first.range[0] - dash.offset
    }
  }

  const walk = (node: unknown, path: string, parentKeyCol: number | undefined): void => {
    if (isScalar(node)) return readScalar(node, nameOf(path))
    if (!isCollection(node) || !node.range) return
    if (path !== '') bump(node.flow ? flow : block, isSeq(node) ? `${path}#seq` : path)
    if (node.flow) {
      const inner = text[node.range[0] + 1]
      const tight = inner !== ' ' && inner !== ']' && inner !== '}'
      if (isMap(node)) spaces[tight ? 'mapTight' : 'map']++
      else spaces[tight ? 'seqTight' : 'seq']++
    } else if (parentKeyCol !== undefined && path !== '') {
      const first = node.items[0] as Node | { key: Node } | undefined
      const at = isMap(node)
        ? (first as { key: Node } | undefined)?.key?.range?.[0]
        : (first as Node | undefined)?.range?.[0]
      if (at !== undefined && isMap(node)) step ??= col(at) - parentKeyCol
      if (isSeq(node)) seqIndent ??= col(node.range[0]) - parentKeyCol
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key as Node | null
        const name = isScalar(key) ? String(key.value) : '?'
        walk(pair.value, path === '' ? name : `${path}.${name}`, key?.range ? col(key.range[0]) : undefined)
      }
    } else for (const item of node.items) walk(item, `${path}.[]`, undefined)
  }
  const quotedAt = new Map<string, number>()
  const plainAt = new Map<string, number>()
  const readScalar = (s: Scalar, name: string): void => {
    if (typeof s.value !== 'string' || needsDouble(s.value)) return
    const spaced = /\s/.test(s.value)
    if (s.type === 'PLAIN') {
      quotes[spaced ? 'spacedPlain' : 'wordPlain']++
      bump(plainAt, name)
    } else if (s.type === 'QUOTE_SINGLE' || s.type === 'QUOTE_DOUBLE') {
      quotes[s.type === 'QUOTE_SINGLE' ? 'single' : 'double']++
      if (plainSafe(s.value, false)) {
        quotes[spaced ? 'spacedQuoted' : 'wordQuoted']++
        bump(quotedAt, name)
      }
    }
  }
  if (seq) for (const item of seq.items) walk(item, '', undefined)

  const flowAt = new Map<string, boolean>()
  for (const path of new Set([...flow.keys(), ...block.keys()]))
    flowAt.set(path, (flow.get(path) ?? 0) >= (block.get(path) ?? 0))
  const quoteAt = new Map<string, boolean>()
  for (const name of new Set([...quotedAt.keys(), ...plainAt.keys()]))
    quoteAt.set(name, (quotedAt.get(name) ?? 0) > (plainAt.get(name) ?? 0))
  const seenSpaced = quotes.spacedPlain + quotes.spacedQuoted > 0
  return {
    // ASSUMED: two spaces, a sequence indented under its key, as config/examples write.
    step: step !== undefined && step > 0 ? step : 2,
    seqIndent: seqIndent !== undefined && seqIndent >= 0 ? seqIndent : 2,
    dashCol,
    dashToKey: dashToKey > 1 ? dashToKey : 2,
    quote: quotes.double > quotes.single ? '"' : "'",
    // ASSUMED: with nothing to go by, names with a space are quoted and single words are not (the examples).
    quoteSpaced: seenSpaced ? quotes.spacedQuoted > quotes.spacedPlain : true,
    quoteWords: quotes.wordQuoted > quotes.wordPlain,
    quoteAt,
    mapSpace: spaces.map >= spaces.mapTight,
    seqSpace: spaces.seq > spaces.seqTight,
    flowAt,
  }
}

/** Writes YAML in a file's style. */
export class Writer {
  constructor(readonly style: FileStyle) {}

  /** A string as the file would write it. */
  string(s: string, inFlow: boolean, name = ''): string {
    if (needsDouble(s)) return JSON.stringify(s)
    const spaced = /\s/.test(s)
    const wantQuote = this.style.quoteAt.get(name) ?? (spaced ? this.style.quoteSpaced : this.style.quoteWords)
    if (!wantQuote && plainSafe(s, inFlow)) return s
    return this.quoted(s)
  }

  quoted(s: string): string {
    return this.style.quote === "'" ? `'${s.replaceAll("'", "''")}'` : JSON.stringify(s)
  }

  /** A scalar under the key `name` (`title`; `inputs[]` for a list's items). */
  scalar(v: unknown, inFlow: boolean, name = ''): string {
    if (v === null) return 'null'
    if (typeof v === 'boolean') return String(v)
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new EditError('BAD_BINDING', `${v} is not a number YAML can hold here`)
      return String(v)
    }
    if (typeof v === 'string') return this.string(v, inFlow, name)
    throw new EditError(
      'BAD_BINDING',
      `a binding holds strings, numbers, booleans, lists and mappings, not ${typeof v}`,
    )
  }

  key(k: string): string {
    return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) && plainSafe(k, true) ? k : this.quoted(k)
  }

  /** A value on one line, in flow style. */
  flow(v: unknown, name = ''): string {
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]'
      const inner = v.map((x) => this.flow(x, `${name}[]`)).join(', ')
      return this.style.seqSpace ? `[ ${inner} ]` : `[${inner}]`
    }
    if (isObject(v)) {
      const entries = Object.entries(v)
      if (entries.length === 0) return '{}'
      const inner = entries.map(([k, x]) => `${this.key(k)}: ${this.flow(x, k)}`).join(', ')
      return this.style.mapSpace ? `{ ${inner} }` : `{${inner}}`
    }
    return this.scalar(v, true, name)
  }

  /** Whether the value at `path` is written in flow style, as the file writes it there (else as the examples). */
  private flowFor(path: string, v: unknown): boolean {
    const seen = this.style.flowAt.get(Array.isArray(v) ? `${path}#seq` : path)
    if (seen !== undefined) return seen
    // ASSUMED: mappings and lists of plain values in flow style; lists of mappings (sequences) in block.
    if (Array.isArray(v)) return v.every((x) => !Array.isArray(x) && !isObject(x))
    return true
  }

  /** The pairs of `obj` as block lines at column `col`, each ending in a newline. */
  pairs(obj: Record<string, unknown>, col: number, path: string): string {
    return Object.entries(obj)
      .map(([k, v]) => this.pair(k, v, col, path === '' ? k : `${path}.${k}`))
      .join('')
  }

  /** One `key: value` at column `col`, in as many lines as it needs. */
  pair(k: string, v: unknown, col: number, path: string): string {
    const pad = ' '.repeat(col)
    const key = this.key(k)
    if (!Array.isArray(v) && !isObject(v)) return `${pad}${key}: ${this.scalar(v, false, k)}\n`
    const flow = this.flow(v, k)
    const empty = Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0
    if (empty || (this.flowFor(path, v) && col + key.length + 2 + flow.length <= LINE_WIDTH))
      return `${pad}${key}: ${flow}\n`
    if (isObject(v)) return `${pad}${key}:\n${this.pairs(v, col + this.style.step, path)}`
    const dashCol = col + this.style.seqIndent
    return `${pad}${key}:\n${v.map((x) => this.item(x, dashCol, `${path}.[]`)).join('')}`
  }

  /** One `- item` of a block sequence at column `dashCol`. */
  item(v: unknown, dashCol: number, path: string): string {
    const pad = ' '.repeat(dashCol)
    if (!isObject(v))
      return `${pad}- ${Array.isArray(v) ? this.flow(v, nameOf(path)) : this.scalar(v, false, nameOf(path))}\n`
    const flow = this.flow(v)
    if ((this.style.flowAt.get(path) ?? true) && dashCol + 2 + flow.length <= LINE_WIDTH) return `${pad}- ${flow}\n`
    return this.blockItem(v, dashCol, 2, path)
  }

  /** A mapping as a block sequence item: its first key on the `- ` line. */
  blockItem(obj: Record<string, unknown>, dashCol: number, dashToKey: number, path: string): string {
    const keyCol = dashCol + dashToKey
    const text = this.pairs(obj, keyCol, path)
    return `${' '.repeat(dashCol)}-${' '.repeat(dashToKey - 1)}${text.slice(keyCol)}`
  }

  /** A whole binding as an item of `bindings:`, at the file's columns. */
  binding(data: Record<string, unknown>): string {
    if (Object.keys(data).length === 0) throw new EditError('BAD_BINDING', 'a binding needs at least its on:')
    return this.blockItem(data, this.style.dashCol, this.style.dashToKey, '')
  }
}
