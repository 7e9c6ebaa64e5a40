/**
 * Changes one binding of the mapping file's text as a person would, leaving every other byte as it was.
 *
 * The text is never re-stringified as a document (the yaml package's `toString` reflows untouched
 * lines and drops the author's layout: yaml issues #58, #599). An edit is a few splices inside the
 * binding's own lines, smallest first: a changed value whose old node is a scalar gets that scalar's
 * source token rewritten (`CST.setScalarValue`, so its quoting and a trailing comment stay); a field
 * whose shape changed is rewritten as one `key: value` in the file's style (`style.ts`); an added field
 * goes in after the field before it, a removed one takes its lines with it. When that cannot be done
 * (a flow-style binding), the binding's lines are written anew. Every result is parsed again and
 * refused unless the bytes outside the binding's lines are the old ones and the file reads as the same
 * data with only that binding changed.
 */
import { isDeepStrictEqual } from 'node:util'
import { CST, isMap, isScalar, isSeq, type Node, type Pair, type Scalar, type YAMLMap } from 'yaml'
import {
  bindingNode,
  EditError,
  indexOf,
  isObject,
  itemLines,
  lineEnd,
  lineStart,
  locateBinding,
  parseForEdit,
  type BindingJson,
  type BindingRef,
  type EditDoc,
} from './locate.js'
import { detectStyle, LINE_WIDTH, needsDouble, plainSafe, Writer } from './style.js'

/** A new text and where the changed binding stands in it. */
export interface EditResult {
  text: string
  /** The binding's lines in the new text (start === end where one was deleted). */
  start: number
  end: number
  /** 1-based line of `start` in the new text. */
  line: number
}

interface Splice {
  start: number
  end: number
  text: string
}

function applySplices(text: string, splices: readonly Splice[]): string {
  const sorted = [...splices].sort((a, b) => b.start - a.start)
  let out = text
  let limit = Infinity
  for (const s of sorted) {
    if (s.end > limit) throw new EditError('NOT_PRESERVED', 'two changes overlap in the binding')
    out = out.slice(0, s.start) + s.text + out.slice(s.end)
    limit = s.start
  }
  return out
}

/**
 * The text with the splices made, refused unless every byte outside `region` (old text) is unchanged
 * and the text reads as `expected` (the whole file's data).
 */
function finish(ed: EditDoc, splices: readonly Splice[], region: { start: number; end: number }, expected: unknown) {
  for (const s of splices) {
    if (s.start < region.start || s.end > region.end)
      throw new EditError('NOT_PRESERVED', 'an edit reached outside the binding it changes')
  }
  const text = applySplices(ed.text, splices)
  const end = region.end + text.length - ed.text.length
  if (text.slice(0, region.start) !== ed.text.slice(0, region.start) || text.slice(end) !== ed.text.slice(region.end))
    throw new EditError('NOT_PRESERVED', 'the edit changed bytes outside the binding')
  let after: EditDoc
  try {
    after = parseForEdit(text)
  } catch (err) {
    throw new EditError('NOT_PRESERVED', `the edited file does not read back: ${(err as Error).message}`)
  }
  if (!isDeepStrictEqual(after.data, expected))
    throw new EditError('NOT_PRESERVED', 'the edited file does not read back as the binding given')
  const line = text.slice(0, region.start).split('\n').length
  return { text, start: region.start, end, line }
}

/** Whether `v` holds a number JSON cannot (NaN, an infinity). */
function hasNonFinite(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isFinite(v)
  if (Array.isArray(v)) return v.some(hasNonFinite)
  return isObject(v) && Object.values(v).some(hasNonFinite)
}

/**
 * The binding JSON checked: a mapping of plain data, without `on` and `page` (the address gives them),
 * read as JSON reads it (so `-0` is `0`, as the remote API's JSON carries it).
 */
function checkBinding(given: unknown): BindingJson {
  if (!isObject(given)) throw new EditError('BAD_BINDING', 'a binding is a mapping of its fields')
  if (hasNonFinite(given)) throw new EditError('BAD_BINDING', 'a binding holds finite numbers only')
  const binding = JSON.parse(JSON.stringify(given)) as BindingJson
  for (const key of ['on', 'page'])
    if (Object.hasOwn(binding, key))
      throw new EditError('BAD_BINDING', `${key}: comes from the control's address, not from the binding's fields`)
  return binding
}

/** The index of the binding an address edits: the one on its page, else the control's without a page. */
function resolve(ed: EditDoc, ref: BindingRef, file: string): number {
  const found = locateBinding(ed, ref, file)
  if (!found) throw new EditError('NO_BINDING', `${ref.surface}/${ref.control}${pageWords(ref)} has no binding`)
  if (!found.editable) throw new EditError('NOT_EDITABLE', `${found.where}: ${found.reason!}`)
  return found.index
}

function pageWords(ref: BindingRef): string {
  return ref.page !== undefined ? ` on page ${ref.page}` : ''
}

/** The file's data with its bindings replaced. */
function withBindings(ed: EditDoc, bindings: unknown[]): Record<string, unknown> {
  return { ...ed.data, bindings }
}

function addressOf(ref: BindingRef): Record<string, unknown> {
  return { on: `${ref.surface}/${ref.control}`, ...(ref.page !== undefined ? { page: ref.page } : {}) }
}

function keyName(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : ''
}

function isPlainValue(v: unknown): v is string | number | boolean | null {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v)
}

/** A changed scalar: its node, its new value, whether it stands in a flow collection. */
interface ScalarChange {
  node: Scalar
  value: string | number | boolean | null
  inFlow: boolean
  /** The key it stands under (`title`; `inputs[]` for a list's items), for the file's quoting there. */
  name: string
}

/**
 * The scalar changes that turn `oldJs` (written as `node`) into `newJs`, or false when the shape
 * changed (a key added or removed, a list's length, a scalar become a collection).
 */
function scalarChanges(
  node: unknown,
  oldJs: unknown,
  newJs: unknown,
  inFlow: boolean,
  name: string,
  out: ScalarChange[],
): boolean {
  if (isDeepStrictEqual(oldJs, newJs)) return true
  if (isScalar(node)) {
    if (!isPlainValue(newJs) || !node.srcToken) return false
    out.push({ node, value: newJs, inFlow, name })
    return true
  }
  if (isMap(node) && isObject(oldJs) && isObject(newJs)) {
    const keys = Object.keys(newJs)
    if (keys.length !== Object.keys(oldJs).length || !keys.every((k) => Object.hasOwn(oldJs, k))) return false
    return node.items.every((pair) => {
      const k = keyName(pair)
      return scalarChanges(pair.value, oldJs[k], newJs[k], inFlow || Boolean(node.flow), k, out)
    })
  }
  if (isSeq(node) && Array.isArray(oldJs) && Array.isArray(newJs) && oldJs.length === newJs.length)
    return node.items.every((item, i) =>
      scalarChanges(item, oldJs[i], newJs[i], inFlow || Boolean(node.flow), `${name}[]`, out),
    )
  return false
}

/** The scalar's source token rewritten to its new value, in its own quoting where that can hold it. */
function scalarSplice(text: string, writer: Writer, change: ScalarChange): Splice | undefined {
  const token = change.node.srcToken
  if (!token || !('offset' in token)) return undefined
  const before = CST.stringify(token)
  if (text.slice(token.offset, token.offset + before.length) !== before) return undefined
  const { value, inFlow, node } = change
  let type: Scalar.Type
  let source: string
  if (typeof value !== 'string') {
    type = 'PLAIN'
    source = value === null ? 'null' : String(value)
  } else {
    source = value
    const was = node.type ?? 'PLAIN'
    if (was === 'BLOCK_LITERAL' || was === 'BLOCK_FOLDED') type = was
    else if (was === 'QUOTE_DOUBLE' || needsDouble(value)) type = 'QUOTE_DOUBLE'
    else if (was === 'QUOTE_SINGLE') type = 'QUOTE_SINGLE'
    else if (typeof node.value === 'string' && plainSafe(value, inFlow)) type = 'PLAIN'
    else {
      // A plain value that cannot stay plain (or was a number) is quoted as the file quotes.
      const written = writer.string(value, inFlow, change.name)
      type = written.startsWith("'") ? 'QUOTE_SINGLE' : written.startsWith('"') ? 'QUOTE_DOUBLE' : 'PLAIN'
    }
  }
  const copy = structuredClone(token)
  if (type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') {
    const block = copy.type === 'block-scalar' ? blockSource(copy, source, type === 'BLOCK_FOLDED') : undefined
    if (block) return { start: token.offset, end: token.offset + before.length, text: CST.stringify(block) }
    type = 'QUOTE_DOUBLE'
  }
  // The yaml package's own writer breaks a long or multi-line quoted string over several lines; one
  // field is one line here, as the author wrote it.
  CST.setScalarValue(copy, source, { inFlow, type })
  if ('source' in copy && copy.type !== 'block-scalar') copy.source = flowSource(source, type)
  return { start: token.offset, end: token.offset + before.length, text: CST.stringify(copy) }
}

/** A flow scalar's source on one line. */
function flowSource(value: string, type: Scalar.Type): string {
  if (type === 'QUOTE_SINGLE') return `'${value.replaceAll("'", "''")}'`
  if (type === 'QUOTE_DOUBLE')
    return JSON.stringify(value).replace(
      /[\u007f-\u009f\u2028\u2029\ufeff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
  return value
}

/**
 * A block scalar token holding `value` at its old content indentation, its header and comment kept;
 * undefined when the value needs what this does not write (a first line starting with a space, a line
 * of spaces alone).
 */
function blockSource(token: CST.BlockScalar, value: string, folded: boolean): CST.BlockScalar | undefined {
  const header = token.props[0]
  if (header?.type !== 'block-scalar-header') return undefined
  const trailing = /\n*$/.exec(value)![0].length
  const body = value.slice(0, value.length - trailing)
  const lines = body.split('\n')
  if (/^\s/.test(body) || lines.some((l) => l !== '' && l.trim() === '')) return undefined
  // Folding would join lines a literal keeps apart: a value of several lines is written literal.
  const style = folded && lines.length === 1 ? '>' : '|'
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+'
  const old = /^( *)\S/m.exec(token.source)?.[1]?.length
  const pad = ' '.repeat(old ?? token.indent + 2)
  const text = lines.map((l) => (l === '' ? '' : pad + l)).join('\n') + '\n'.repeat(Math.max(trailing, 1))
  return { ...token, props: [{ ...header, source: `${style}${chomp}` }, ...token.props.slice(1)], source: text }
}

/** The end of a pair's lines: after the newline of the line its value ends on (a trailing comment included). */
function pairEnd(text: string, pair: Pair): number {
  const key = pair.key as Node
  const value = pair.value as Node | null
  const last = Math.max(value?.range ? value.range[1] : key.range![1], key.range![1]) - 1
  return lineEnd(text, last)
}

/** The splices that turn binding `node` into `binding` field by field, or undefined when it cannot be done so. */
function fieldSplices(
  ed: EditDoc,
  writer: Writer,
  node: YAMLMap,
  old: Record<string, unknown>,
  binding: BindingJson,
): Splice[] | undefined {
  const { text } = ed
  if (node.flow || node.items.length === 0) return undefined
  const firstKey = node.items[0]!.key as Node
  const keyCol = firstKey.range![0] - lineStart(text, firstKey.range![0])
  const splices: Splice[] = []
  const byKey = new Map(node.items.map((p) => [keyName(p), p]))

  for (const pair of node.items) {
    const k = keyName(pair)
    if (k === 'on' || k === 'page') continue
    const key = pair.key as Node
    if (!Object.hasOwn(binding, k)) {
      const start = lineStart(text, key.range![0])
      // The first field shares the `- ` line: removing it would need the next one moved up.
      if (text.slice(start, key.range![0]).trim() !== '') return undefined
      splices.push({ start, end: pairEnd(text, pair), text: '' })
      continue
    }
    const changes: ScalarChange[] = []
    if (scalarChanges(pair.value, old[k], binding[k], false, k, changes)) {
      for (const change of changes) {
        const s = scalarSplice(text, writer, change)
        if (!s) return undefined
        splices.push(s)
      }
      continue
    }
    const end = pairEnd(text, pair)
    const was = text.slice(key.range![0], end)
    let written = writer.pair(k, binding[k], keyCol, k).slice(keyCol)
    // A trailing comment of a one-line field stays on its line.
    const comment = /^[^\n]*?(\s+#[^\n]*)\n?$/.exec(was)
    const valueEnd = (pair.value as Node | null)?.range?.[1] ?? key.range![1]
    if (comment && !written.slice(0, -1).includes('\n') && text.slice(valueEnd, end).trim().startsWith('#'))
      written = `${written.slice(0, -1)}${comment[1]!}\n`
    splices.push({ start: key.range![0], end, text: written })
  }

  // New fields go after the field before them in the binding given (else after the last one).
  let anchor = node.items[node.items.length - 1]!
  const added = new Map<Pair, string[]>()
  for (const k of Object.keys(binding)) {
    const existing = byKey.get(k)
    if (existing) {
      anchor = existing
      continue
    }
    const list = added.get(anchor) ?? []
    list.push(writer.pair(k, binding[k], keyCol, k))
    added.set(anchor, list)
  }
  for (const [pair, lines] of added) {
    const at = pairEnd(text, pair)
    const open = at === text.length && !text.endsWith('\n') ? '\n' : ''
    splices.push({ start: at, end: at, text: open + lines.join('') })
  }
  return splices
}

/** The binding's lines written anew in the file's style (a flow-style binding stays on one line when it fits). */
function wholeSplice(ed: EditDoc, writer: Writer, index: number, data: Record<string, unknown>): Splice {
  const { start, end } = itemLines(ed, index)
  const node = bindingNode(ed, index)
  let written = writer.binding(data)
  if (node.flow) {
    const flow = `${' '.repeat(writer.style.dashCol)}- ${writer.flow(data)}\n`
    if (flow.length - 1 <= LINE_WIDTH) written = flow
  }
  const open = end === ed.text.length && !ed.text.endsWith('\n')
  return { start, end, text: open ? written.slice(0, -1) : written }
}

/** Replaces the binding of `ref` (its page's, else the control's without a page) with `binding`. */
export function replaceBinding(text: string, ref: BindingRef, binding: unknown, file = 'config'): EditResult {
  const fields = checkBinding(binding)
  const ed = parseForEdit(text)
  const index = resolve(ed, ref, file)
  const old = ed.bindings[index]!
  const data = {
    on: old.on,
    ...(old.page !== undefined ? { page: old.page } : {}),
    ...fields,
  }
  const expected = withBindings(
    ed,
    ed.bindings.map((b, i) => (i === index ? data : b)),
  )
  const region = itemLines(ed, index)
  const writer = new Writer(detectStyle(ed))
  const splices = fieldSplices(ed, writer, bindingNode(ed, index), old, fields)
  if (splices) {
    try {
      return finish(ed, splices, region, expected)
    } catch (err) {
      if (!(err instanceof EditError) || err.code !== 'NOT_PRESERVED') throw err
      // Field by field did not read back: the binding's lines are written anew below.
    }
  }
  return finish(ed, [wholeSplice(ed, writer, index, data)], region, expected)
}

/**
 * Adds a binding for a control that has none on that page: after the surface's last binding (else
 * after the last binding), in the file's columns and quoting.
 */
export function addBinding(text: string, ref: BindingRef, binding: unknown): EditResult {
  const fields = checkBinding(binding)
  const ed = parseForEdit(text)
  if (indexOf(ed, ref) !== undefined)
    throw new EditError('ALREADY_BOUND', `${ref.surface}/${ref.control}${pageWords(ref)} already has a binding`)
  const data = { ...addressOf(ref), ...fields }
  const writer = new Writer(detectStyle(ed))
  const item = writer.binding(data)
  const { seq } = ed

  if (seq && !seq.flow && seq.items.length > 0) {
    let after = ed.bindings.length - 1
    for (const [i, b] of ed.bindings.entries())
      if (typeof b.on === 'string' && b.on.startsWith(`${ref.surface}/`)) after = i
    const at = itemLines(ed, after).end
    const open = at === text.length && !text.endsWith('\n') ? '\n' : ''
    const bindings = [...ed.bindings]
    bindings.splice(after + 1, 0, data)
    const done = finish(
      ed,
      [{ start: at, end: at, text: open + item }],
      { start: at, end: at },
      withBindings(ed, bindings),
    )
    return { ...done, start: done.start + open.length, line: done.line + open.length }
  }
  if (seq && seq.items.length > 0)
    throw new EditError('UNSUPPORTED', 'bindings: is written as a flow sequence ([ ... ]): add this binding by hand')

  // No bindings yet: `bindings:` (empty, or `[]`) gets its first item; without the key, it is added at the end.
  const top = ed.doc.contents
  const pair = isMap(top) ? top.items.find((p) => keyName(p) === 'bindings') : undefined
  if (pair) {
    const key = pair.key as Node
    const region = { start: key.range![0], end: pairEnd(text, pair) }
    const written = `${text.slice(key.range![0], key.range![1])}:\n${item}`
    const done = finish(ed, [{ ...region, text: written }], region, withBindings(ed, [data]))
    // The binding starts on the line after `bindings:`.
    return { ...done, start: done.start + written.length - item.length, line: done.line + 1 }
  }
  if (!isMap(top) && top !== null) throw new EditError('UNSUPPORTED', 'the file is not a mapping of sections')
  const at = text.length
  const open = text === '' || text.endsWith('\n') ? '' : '\n'
  const done = finish(
    ed,
    [{ start: at, end: at, text: `${open}bindings:\n${item}` }],
    { start: at, end: at },
    {
      ...ed.data,
      bindings: [data],
    },
  )
  const head = `${open}bindings:\n`
  return { ...done, start: done.start + head.length, line: done.line + open.length + 1 }
}

/** Deletes the binding of `ref` (its page's, else the control's without a page): its lines go. */
export function deleteBinding(text: string, ref: BindingRef, file = 'config'): EditResult {
  const ed = parseForEdit(text)
  const index = resolve(ed, ref, file)
  const bindings = ed.bindings.filter((_, i) => i !== index)
  const region = itemLines(ed, index)
  if (bindings.length > 0) return finish(ed, [{ ...region, text: '' }], region, withBindings(ed, bindings))
  // The last one: `bindings: []`, since an empty `bindings:` is null, which the loader refuses.
  const top = ed.doc.contents as YAMLMap
  const key = top.items.find((p) => keyName(p) === 'bindings')!.key as Node
  const whole = { start: key.range![0], end: region.end }
  const written = `${text.slice(key.range![0], key.range![1])}: []\n`
  return finish(ed, [{ ...whole, text: written }], whole, withBindings(ed, []))
}

/** Copies the binding of `from` to the control `to`, which must have none on that page. */
export function copyBinding(text: string, from: BindingRef, to: BindingRef, file = 'config'): EditResult {
  const ed = parseForEdit(text)
  const found = locateBinding(ed, from, file)
  if (!found) throw new EditError('NO_BINDING', `${from.surface}/${from.control}${pageWords(from)} has no binding`)
  return addBinding(text, to, found.binding)
}

/** Replaces the control's binding, or adds one when it has none. */
export function putBinding(text: string, ref: BindingRef, binding: unknown, file = 'config'): EditResult {
  const ed = parseForEdit(text)
  return locateBinding(ed, ref, file) ? replaceBinding(text, ref, binding, file) : addBinding(text, ref, binding)
}
