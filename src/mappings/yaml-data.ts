/**
 * The data of a plainly written mapping file, read without building its YAML document (issue 24).
 *
 * The loader reads a file with the `yaml` library's document (`yaml-read.ts`): every node with its
 * position, so that each problem can be shown at its `file:line:col`. For a 4,092-binding file that
 * document and the syntax tree it is built from held ~45 MB at once (resident memory of a reload's
 * worker went from 65 to 130 MB) and took 2.3 s under the daemon's V8 flags. A file with no problem
 * never needs a position. So the loader first reads the text as plain data with js-yaml (no syntax
 * tree, no positions: ~5 MB and 0.36 s for the same file) and checks that; only when a problem is
 * found does it build the document, for the problems' positions (a `Problems` given a `locate` function).
 *
 * The data must be what the document would have given, to the letter. js-yaml is run with a schema
 * made of the `yaml` library's own core scalar tags (their tests and their resolvers, in the
 * library's order), and the read gives up (the caller then reads the document, as before) on anything
 * where the two libraries could differ or where the document's checks apply: directives, anchors and
 * aliases (alias limits), merge keys, keys that are null or collections, nesting past the depth limit,
 * more than one document, and any error js-yaml raises. `test/mappings/yaml-data.test.ts` holds the
 * two to equal data over generated files. The one thing not seen on this path is a `yaml` warning
 * that does not stop a file from loading (a flow collection whose closing bracket is not indented
 * more than its parent).
 */
import jsyaml from 'js-yaml'
import { Document, isScalar } from 'yaml'
import { MAX_CONFIG_DEPTH } from './yaml-read.js'

/** A core scalar tag of the `yaml` library, as its schema lists it. */
interface YamlScalarTag {
  tag: string
  default?: boolean | 'key'
  test?: RegExp
  resolve: (source: string, onError: (message: string) => void, options: { intAsBigInt: boolean }) => unknown
}

/** Why a tag's resolver gave no value (js-yaml asks `resolve` first, then `construct`). */
const NOT_RESOLVED = Symbol('not resolved')

/** The value `tag` gives `source` as the `yaml` library resolves it (a Scalar's value), or NOT_RESOLVED. */
function resolved(tag: YamlScalarTag, source: string): unknown {
  let failed = false
  const value = tag.resolve(source, () => (failed = true), { intAsBigInt: false })
  if (failed) return NOT_RESOLVED
  return isScalar(value) ? value.value : value
}

/**
 * The `yaml` library's core schema's plain-scalar tags as js-yaml implicit types: one type per tag
 * name (js-yaml keeps one type a name), trying the library's tests of that name in its order. The
 * tests of different names do not overlap (null, bool, int, float), so only the order within a name
 * matters, and it is the library's.
 */
function coreTypes(): jsyaml.Type[] {
  const tags = new Document(null, { schema: 'core' }).schema.tags as unknown as YamlScalarTag[]
  const byName = new Map<string, (YamlScalarTag & { test: RegExp })[]>()
  for (const t of tags) {
    if (t.default !== true || !(t.test instanceof RegExp)) continue
    byName.set(t.tag, [...(byName.get(t.tag) ?? []), t as YamlScalarTag & { test: RegExp }])
  }
  const value = (group: (YamlScalarTag & { test: RegExp })[], data: unknown): unknown => {
    if (typeof data !== 'string') return NOT_RESOLVED
    const tag = group.find((t) => t.test.test(data))
    return tag ? resolved(tag, data) : NOT_RESOLVED
  }
  return [...byName].map(
    ([name, group]) =>
      new jsyaml.Type(name, {
        kind: 'scalar',
        resolve: (data: unknown) => value(group, data) !== NOT_RESOLVED,
        construct: (data: unknown) => value(group, data),
      }),
  )
}

let schema: jsyaml.Schema | undefined
function coreSchema(): jsyaml.Schema {
  schema ??= jsyaml.FAILSAFE_SCHEMA.extend({ implicit: coreTypes() })
  return schema
}

/**
 * Text this read leaves to the document, found before reading (a false alarm only costs the faster
 * read): a directive (`%YAML 1.1` changes the schema) at the start of a line; the explicit key
 * indicator `?`; a flow collection used as a key (`[a, b]: 1`; js-yaml makes a collection key a
 * string, "a,b", where the document's data has another); what js-yaml reads otherwise than the
 * document (found by the generated files of `test/mappings/yaml-data.test.ts`).
 */
const DOCUMENT_DECIDES: readonly RegExp[] = [
  /^%/m,
  /(^|[\s,[{-])\?(\s|$)/m,
  // A tag (`!`, `!!str`, `!local`): the two libraries do not resolve every tag alike.
  /(^|[\s,[{])!/m,
  // A block scalar with an indentation indicator (`|2`, `>1-`): lines of spaces in it differ.
  /[|>]([1-9]|[-+][1-9])/,
  /[\]}]\s*:(\s|$)/,
  // An empty sequence entry (a line of dashes ending in one with nothing after it): js-yaml 4.3 puts
  // the next, less indented entry into the sequence it ends (`-\n  -\n- x` gives [[null, 'x']]).
  /^[ \t]*(-[ \t]+)*-[ \t]*(#.*)?$/m,
]

/** Keys js-yaml makes of a null or a collection key: the document's data would differ, so they give up. */
const UNSURE_KEYS = new Set(['null', '[object Object]', '<<', '__proto__'])

/** Whether the data is a tree the document would give the same (see the module's comment). */
function plainTree(data: unknown): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value: data, depth: 1 }]
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!
    if (value === null || typeof value !== 'object') continue
    if (depth > MAX_CONFIG_DEPTH) return false
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth: depth + 1 })
      continue
    }
    for (const [key, item] of Object.entries(value)) {
      if (UNSURE_KEYS.has(key)) return false
      stack.push({ value: item, depth: depth + 1 })
    }
  }
  return true
}

/** What js-yaml's parser state shows its listener (js-yaml 4's `State`). */
interface ParserState {
  position: number
  kind: string | null
  anchorMap: object
}

/**
 * Follows js-yaml's parse, node by node, for what this read leaves to the document:
 * - anchors: the document counts what aliases expand to (MAX_CONFIG_ALIASES); any anchor gives up;
 * - a quoted or plain scalar or a flow collection written over several lines: js-yaml takes lines
 *   indented less than YAML allows (`a: "x` / `"q": 1` is one string to it and an error to the
 *   document), so any such node gives up. Block collections and block scalars (`|`, `>`) are read alike;
 * - a comment not after white space, touching a flow collection or a quoted scalar (`[a]#`, `[#`):
 *   js-yaml reads a comment, the document an error.
 */
class NodeWatch {
  private readonly starts: number[] = []
  private state: ParserState | undefined
  private multiLine = false
  /** A comment that touches a flow collection or quoted scalar (`commentTouches`). */
  private tightComment = false
  constructor(private readonly text: string) {}

  event(event: string, state: ParserState): void {
    this.state = state
    if (event === 'open') {
      this.starts.push(state.position)
      return
    }
    const start = this.starts.pop() ?? 0
    if (this.multiLine || this.tightComment) return
    const at = this.contentStart(start, state.position)
    const c = this.text[at]
    const flow = c === '[' || c === '{'
    const checked = state.kind === 'scalar' ? c !== '|' && c !== '>' : flow
    if (checked && this.spansLines(at, state.position)) this.multiLine = true
    if ((flow || c === '"' || c === "'") && this.commentTouches(at, state.position, flow)) this.tightComment = true
  }

  /**
   * Whether a `#` touches a flow collection or a quoted scalar: right after its end (`[a]#`, `"a"#`), or
   * inside a collection right after `[`, `{` or `,`. The document refuses such a comment (it must follow
   * white space); js-yaml takes it as one. Inside a quoted string (`["a,#b"]`) it is no comment, and
   * giving up there too only costs the document's read.
   */
  private commentTouches(at: number, end: number, flow: boolean): boolean {
    if (this.text[end] === '#') return true
    if (!flow) return false
    for (let i = this.text.indexOf('#', at); i !== -1 && i < end; i = this.text.indexOf('#', i + 1)) {
      const before = this.text[i - 1]
      if (before === '[' || before === '{' || before === ',') return true
    }
    return false
  }

  /** Whether the node's text from `at` to `end` (trailing blanks aside) holds a line break; no copy made. */
  private spansLines(at: number, end: number): boolean {
    let last = end
    while (last > at && /\s/.test(this.text[last - 1]!)) last--
    const nl = this.text.indexOf('\n', at)
    return nl !== -1 && nl < last
  }

  /** Whether the parse met nothing this read leaves to the document. */
  plain(): boolean {
    return (
      this.state !== undefined &&
      !this.multiLine &&
      !this.tightComment &&
      Object.keys(this.state.anchorMap).length === 0
    )
  }

  /** Where a node's own text starts: past the spaces, line breaks and comments before it. */
  private contentStart(from: number, to: number): number {
    let i = from
    while (i < to) {
      const c = this.text[i]
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++
      else if (c === '#') {
        const eol = this.text.indexOf('\n', i)
        i = eol === -1 ? to : eol
      } else break
    }
    return i
  }
}

/**
 * The data of `text` when it reads as plain data the same as its YAML document would; undefined when
 * the document must decide (a problem, or anything this read does not take).
 */
export function readPlainData(text: string): { data: unknown } | undefined {
  if (DOCUMENT_DECIDES.some((re) => re.test(text))) return undefined
  const watch = new NodeWatch(text)
  try {
    const data: unknown = jsyaml.load(text, {
      schema: coreSchema(),
      // Deeper than the limit is refused by the document's read, at its line and column.
      maxDepth: MAX_CONFIG_DEPTH + 2,
      listener: (event, state) => watch.event(event, state as unknown as ParserState),
    } as jsyaml.LoadOptions)
    return watch.plain() && plainTree(data) ? { data } : undefined
  } catch {
    return undefined
  }
}
