/**
 * Finds a binding in the mapping file's text as the loader identifies it (`on: <surface>/<control>` and
 * its `page:`), with its source range, its `file:line`, its YAML as written and its data. The text is
 * parsed with the yaml package's source tokens kept, so the editor (`edit.ts`) can change that node
 * alone and leave every other byte of the file as the author wrote it.
 *
 * A binding the editor cannot map back to one node of its own is found but not editable, with the
 * reason: one built by a merge key (`<<: *base`), one that is an alias of another node, or one holding
 * an anchor that an alias elsewhere repeats (an edit would change the other control too).
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
  type Document,
  type Node,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml'
import { CONFIG_LIMITS } from '../limits.js'

/** Why an edit cannot be made; callers branch on `code`, never on the message. */
export type EditErrorCode =
  'SYNTAX' | 'NO_BINDING' | 'ALREADY_BOUND' | 'NOT_EDITABLE' | 'BAD_BINDING' | 'UNSUPPORTED' | 'NOT_PRESERVED'

export class EditError extends Error {
  override readonly name = 'EditError'
  constructor(
    readonly code: EditErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** A control's binding by its address, as the loader keys it: `on` and `page`. */
export interface BindingRef {
  surface: string
  control: string
  /** The page; a binding without `page:` is the control's on every page that has none of its own. */
  page?: string
}

/** A binding's data as JSON, without `on` and `page`. */
export type BindingJson = Record<string, unknown>

/** The mapping text parsed for editing: the document with its source tokens, and its data. */
export interface EditDoc {
  text: string
  doc: Document
  lines: LineCounter
  /** The `bindings:` sequence, when the file has one written as a sequence. */
  seq?: YAMLSeq
  /** The file as data (merge keys and aliases expanded), as the loader reads it. */
  data: Record<string, unknown>
  /** Each binding's data, by its index in `bindings:`. */
  bindings: Record<string, unknown>[]
  /** The anchors some alias repeats. */
  aliased: ReadonlySet<string>
}

/** One binding of the file, where it is written. */
export interface FoundBinding {
  index: number
  /** Its lines in the text: from the start of its `- ` line to after its last line's newline. */
  start: number
  end: number
  /** 1-based line of its `- `. */
  line: number
  /** `file:line`. */
  where: string
  /** Its YAML as written (whole lines). */
  yaml: string
  binding: BindingJson
  page?: string
  /** Whether the editor can change it alone, and why not. */
  editable: boolean
  reason?: string
}

/** Parses mapping text for editing; a file with YAML errors cannot be edited. */
export function parseForEdit(text: string): EditDoc {
  const lines = new LineCounter()
  const doc = parseDocument(text, { keepSourceTokens: true, merge: true, uniqueKeys: true, lineCounter: lines })
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    const { line, col } = lines.linePos(e.pos[0])
    throw new EditError('SYNTAX', `the file has a YAML error at ${line}:${col}: ${e.message.split('\n')[0]!}`)
  }
  const raw: unknown = doc.toJS({ maxAliasCount: CONFIG_LIMITS.aliases })
  const data = isObject(raw) ? raw : {}
  const node = isMap(doc.contents) ? doc.contents.get('bindings', true) : undefined
  const seq = isSeq(node) ? node : undefined
  const bindings = Array.isArray(data.bindings) ? (data.bindings as unknown[]).map((b) => (isObject(b) ? b : {})) : []
  const aliased = new Set<string>()
  visit(doc, {
    Alias(_, a) {
      aliased.add(a.source)
    },
  })
  return { text, doc, lines, data, bindings, aliased, ...(seq ? { seq } : {}) }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The offset where the line holding `offset` starts. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

/** The offset just after the newline ending the line that holds `offset` (the text's end on its last line). */
export function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset)
  return nl === -1 ? text.length : nl + 1
}

/** The `- ` of item `index` of the block sequence `seq`, from its source tokens. */
function dashOffset(seq: YAMLSeq, index: number): number | undefined {
  const token = seq.srcToken
  if (token?.type !== 'block-seq') return undefined
  return token.items[index]?.start.find((t) => t.type === 'seq-item-ind')?.offset
}

/** The whole lines of binding `index`: from its `- ` line to after its last line. */
export function itemLines(ed: EditDoc, index: number): { start: number; end: number } {
  const item = ed.seq!.items[index] as Node
  const range = item.range!
  const dash = dashOffset(ed.seq!, index) ?? range[0]
  return { start: lineStart(ed.text, dash), end: lineEnd(ed.text, Math.max(range[1] - 1, range[0])) }
}

/** Why binding `index` cannot be edited alone, or undefined when it can. */
function notEditable(ed: EditDoc, index: number): string | undefined {
  const item = ed.seq!.items[index]
  if (isAlias(item)) return `this binding is an alias (*${item.source}) of another node: edit the node it repeats`
  if (ed.seq!.flow) return 'bindings: is written as a flow sequence ([ ... ]): the editor changes block sequences only'
  if (!isMap(item)) return 'this binding is not a mapping'
  const { aliased } = ed
  let reason: string | undefined
  const check = (node: Node): void => {
    if (node.anchor !== undefined && aliased.has(node.anchor))
      reason ??= `its node &${node.anchor} is repeated elsewhere by *${node.anchor}: an edit here would change that place too`
  }
  check(item)
  visit(item, {
    Pair(_, pair) {
      if (isScalar(pair.key) && (pair.key.source === '<<' || typeof pair.key.value === 'symbol'))
        reason ??= 'it is built by a merge key (<<): its fields are written in another node, shared with other bindings'
    },
    Node(_, node) {
      check(node)
    },
  })
  return reason
}

/** The binding's own fields, without `on` and `page`. */
export function bindingJson(data: Record<string, unknown>): BindingJson {
  const { on: _on, page: _page, ...rest } = data
  return rest
}

/** Every binding of the file with where it is written. */
export function allBindings(ed: EditDoc, file: string): FoundBinding[] {
  if (!ed.seq) return []
  return ed.bindings.map((data, index) => describe(ed, index, data, file))
}

function describe(ed: EditDoc, index: number, data: Record<string, unknown>, file: string): FoundBinding {
  const { start, end } = itemLines(ed, index)
  const line = ed.lines.linePos(start).line
  const reason = notEditable(ed, index)
  return {
    index,
    start,
    end,
    line,
    where: `${file}:${line}`,
    yaml: ed.text.slice(start, end),
    binding: bindingJson(data),
    ...(typeof data.page === 'string' ? { page: data.page } : {}),
    editable: reason === undefined,
    ...(reason !== undefined ? { reason } : {}),
  }
}

/** The index of the binding of `ref` written with exactly its page (none: the one without a page). */
export function indexOf(ed: EditDoc, ref: BindingRef): number | undefined {
  const on = `${ref.surface}/${ref.control}`
  const i = ed.bindings.findIndex((b) => b.on === on && (b.page ?? undefined) === ref.page)
  return i === -1 ? undefined : i
}

/**
 * The binding of `ref`: the one on its page, else (for a page) the control's binding without a page,
 * which is the one the control has there. Undefined when the control has none.
 *
 * ASSUMED: an edit at a page where the control has only its page-less binding edits that binding (the
 * one the operator pressed and saw), on every page; a binding for that page alone is an add with `page`.
 */
export function locateBinding(ed: EditDoc, ref: BindingRef, file: string): FoundBinding | undefined {
  if (!ed.seq) return undefined
  let index = indexOf(ed, ref)
  if (index === undefined && ref.page !== undefined) index = indexOf(ed, { surface: ref.surface, control: ref.control })
  return index === undefined ? undefined : describe(ed, index, ed.bindings[index]!, file)
}

/** The map node of binding `index` (an editable binding is one). */
export function bindingNode(ed: EditDoc, index: number): YAMLMap {
  return ed.seq!.items[index] as YAMLMap
}
