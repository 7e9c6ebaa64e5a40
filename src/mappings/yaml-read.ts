/**
 * The mapping file's YAML, read with bounded work, and its syntax errors as the author needs them.
 *
 * Depth is refused while parsing: the yaml library's parser and composer work in proportion to depth
 * per token (10,000 nested `[` held the loop long before any check could run, and overflowed the
 * stack in the composer). The lexer and parser are driven here token by token, and the file is refused
 * at the first token that opens a level past the limit, at its `line:col`.
 *
 * One syntax mistake makes the library report several errors (a tab in the indentation also gives
 * "nested mappings are not allowed in compact mappings" and "implicit keys need to be on a single
 * line" for the same place). Only the first real cause is reported, in words that say what to do for
 * the common ones: a tab in the indentation, a key indented differently from its neighbours, a dash
 * without its space, a value with `: ` in it (quote it). Duplicate keys are each their own mistake
 * and are all reported, each with its name and where the key it repeats was written.
 */
import {
  Composer,
  isCollection,
  isPair,
  isScalar,
  Lexer,
  Parser,
  visit,
  YAMLParseError,
  type CST,
  type Document,
  type LineCounter,
} from 'yaml'
import { nameText } from './problems.js'
import { CONFIG_LIMITS } from './limits.js'

/**
 * Besides one entry per level of nesting, the parser's stack holds the document and, at the deepest
 * point, a pair's key or value: a file within CONFIG_LIMITS.depth stays within this many more. What the
 * stack lets through (at most this much deeper) is refused after composing, by the data's own depth.
 */
const PARSER_STACK_SLACK = 3

/** A file read as YAML, or the offset where it nests too deep. */
export type YamlRead = { doc: Document } | { tooDeepAt: number }

/**
 * Parses `text` as one YAML document with merge keys (`<<: *base`) on, refusing it at the first token
 * nested past `maxDepth`. `lines` gets every line start read.
 */
export function parseYaml(text: string, lines: LineCounter, maxDepth = CONFIG_LIMITS.depth): YamlRead {
  const parser = new Parser(lines.addNewLine)
  lines.addNewLine(0)
  const tokens: CST.Token[] = []
  for (const lexeme of new Lexer().lex(text)) {
    const start = parser.offset
    for (const token of parser.next(lexeme)) tokens.push(token)
    if (parser.stack.length > maxDepth + PARSER_STACK_SLACK) return { tooDeepAt: start }
  }
  for (const token of parser.end()) tokens.push(token)

  // As the library's parseDocument: the first document, and an error for a second one. Its own check of
  // unique keys compares each key with every key before it in its map (quadratic: a 256 KiB flow map of
  // short keys held the thread for seconds); the same errors come from one walk below (`duplicateKeys`).
  const composer = new Composer({ merge: true, uniqueKeys: false })
  let doc: Document | undefined
  for (const next of composer.compose(tokens, true, text.length)) {
    if (doc === undefined) doc = next
    else {
      doc.errors.push(
        new YAMLParseError(
          [next.range[0], next.range[1]],
          'MULTIPLE_DOCS',
          'the file holds more than one YAML document',
        ),
      )
      break
    }
  }
  // compose(…, forceDoc) always ends with a document.
  for (const at of duplicateKeys(doc!).keys())
    doc!.errors.push(new YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique'))
  return { doc: doc! }
}

/**
 * The offset of the first collection nested past `maxDepth` in the document as written (the top
 * collection is level 1, as `jsonDepthExceeds` counts), or undefined when only aliases make it deeper.
 * Walked with a list, not recursion; the parse already bounded the depth to a few levels past the limit.
 */
export function tooDeepOffset(doc: Document, maxDepth = CONFIG_LIMITS.depth): number | undefined {
  const stack: { node: unknown; depth: number }[] = [{ node: doc.contents, depth: 1 }]
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!
    if (!isCollection(node)) continue
    if (depth > maxDepth) return node.range?.[0]
    // Reversed, so the first item is walked first and the first too-deep one in the file is found.
    for (const item of [...node.items].reverse()) {
      for (const child of isPair(item) ? [item.value, item.key] : [item]) stack.push({ node: child, depth: depth + 1 })
    }
  }
  return undefined
}

/** A syntax problem: where, and what to do. */
export interface SyntaxProblem {
  offset: number
  message: string
}

/** The line around `offset`: its start and its text. */
function lineAt(text: string, offset: number): { start: number; line: string } {
  const start = text.lastIndexOf('\n', offset - 1) + 1
  const end = text.indexOf('\n', offset)
  return { start, line: text.slice(start, end === -1 ? text.length : end) }
}

/** The offset of the first character that is not a space on the line starting at `start`. */
function indentEnd(text: string, start: number): number {
  let i = start
  while (text[i] === ' ' || text[i] === '\t') i++
  return i
}

/** `value` in YAML single quotes, as the author could write it. */
function quoted(value: string): string {
  return `'${value.replaceAll("'", "''")}'`
}

/** A plain value written up to the end of its line or its flow collection's next comma or bracket. */
function plainValueAt(text: string, offset: number, inFlow: boolean): string {
  const { start, line } = lineAt(text, offset)
  let value = line.slice(offset - start)
  const comment = value.search(/\s#/)
  if (comment !== -1) value = value.slice(0, comment)
  if (inFlow) value = value.split(/[,\]}]/)[0]!
  return value.trim()
}

/** The first line after the one holding `offset` with something on it (not blank, not a comment). */
function nextContentLine(text: string, offset: number): number | undefined {
  let at = text.indexOf('\n', offset)
  while (at !== -1) {
    const first = indentEnd(text, at + 1)
    if (first < text.length && text[first] !== '\n' && text[first] !== '#' && text[first] !== '\r') return first
    at = text.indexOf('\n', at + 1)
  }
  return undefined
}

const TAB_HINT = 'a tab in the indentation: YAML indents with spaces only'
const ALIGN_HINT =
  'this line is indented differently from the keys around it: the keys of one mapping start at the same column'

/** The hint for a key read as a plain value's continuation or a mapping where a value was meant. */
function compactMappingHint(text: string, e: YAMLParseError): SyntaxProblem | undefined {
  const offset = e.pos[0]
  const { start, line } = lineAt(text, offset)
  const dash = /^(\s*)-[^\s-]/.exec(line)
  if (dash) {
    return { offset: start + dash[1]!.length, message: 'a list item needs a space after its dash: `- key: value`' }
  }
  const value = plainValueAt(text, offset, e.code === 'BLOCK_IN_FLOW')
  if (/:(\s|$)/.test(value)) {
    return { offset, message: `a value with ": " in it must be quoted: quote it, ${quoted(value)}` }
  }
  const next = nextContentLine(text, offset)
  if (next !== undefined && e.code !== 'BLOCK_IN_FLOW') {
    return { offset: next, message: `${ALIGN_HINT} (indented more than the line above it)` }
  }
  return undefined
}

/** The first real cause as a problem: in words that say what to do where the mistake is a common one. */
function explain(text: string, e: YAMLParseError): SyntaxProblem {
  const plain = { offset: e.pos[0], message: e.message.split('\n')[0]! }
  const { start, line } = lineAt(text, e.pos[0])
  const indent = /^[ \t]*/.exec(line)![0]
  const tab = start + indent.indexOf('\t')
  if (e.code === 'TAB_AS_INDENT') return { offset: tab, message: TAB_HINT }
  if (e.code === 'BAD_INDENT' || e.code === 'MISSING_CHAR') {
    if (indent.includes('\t')) return { offset: tab, message: TAB_HINT }
    // "All mapping items must start at the same column", "Sequence item without - indicator".
    if (/same column|without - indicator/.test(plain.message) && line.trim() !== '')
      return { offset: start + indent.length, message: ALIGN_HINT }
    return plain
  }
  if (e.code === 'BLOCK_AS_IMPLICIT_KEY' || e.code === 'MULTILINE_IMPLICIT_KEY' || e.code === 'BLOCK_IN_FLOW')
    return compactMappingHint(text, e) ?? plain
  if (e.code === 'BAD_SCALAR_START') {
    return { offset: e.pos[0], message: `${plain.message}: quote it, ${quoted(plainValueAt(text, e.pos[0], false))}` }
  }
  return plain
}

/** A repeated key: its name, and where the first key equal to it in its mapping was written. */
interface Duplicate {
  name: string
  first: number
}

/**
 * Every repeated scalar key of the document by its offset (where the yaml library reports it), with
 * the first key equal to it (the library's own rule: equal values, so `1` and `1.0` are one key).
 */
function duplicateKeys(doc: Document): Map<number, Duplicate> {
  const out = new Map<number, Duplicate>()
  visit(doc, {
    Map(_, map) {
      const seen = new Map<unknown, number>()
      for (const { key } of map.items) {
        if (!isScalar(key) || !key.range) continue
        const first = seen.get(key.value)
        if (first === undefined) seen.set(key.value, key.range[0])
        else out.set(key.range[0], { name: String(key.value), first })
      }
    },
  })
  return out
}

/** A duplicate key's problem: its name and the line:col of its first, or the library's words. */
function duplicateProblem(e: YAMLParseError, found: Map<number, Duplicate>, lines: LineCounter): SyntaxProblem {
  const d = found.get(e.pos[0])
  if (d === undefined) return { offset: e.pos[0], message: e.message.split('\n')[0]! }
  const { line, col } = lines.linePos(d.first)
  return {
    offset: e.pos[0],
    message: `duplicate key '${nameText(d.name)}': first written at ${line}:${col}; a mapping holds each key once`,
  }
}

/**
 * The syntax errors worth reporting: every duplicate key (named, with where its first was written), and
 * of the rest only the first (the others follow from it), explained.
 */
export function syntaxProblems(text: string, doc: Document, lines: LineCounter): SyntaxProblem[] {
  const sorted = [...doc.errors].sort((a, b) => a.pos[0] - b.pos[0])
  const duplicates = sorted.filter((e) => e.code === 'DUPLICATE_KEY')
  const found = duplicates.length > 0 ? duplicateKeys(doc) : new Map<number, Duplicate>()
  const out: SyntaxProblem[] = duplicates.map((e) => duplicateProblem(e, found, lines))
  const first = sorted.find((e) => e.code !== 'DUPLICATE_KEY')
  if (first !== undefined) out.push(explain(text, first))
  return out
}
