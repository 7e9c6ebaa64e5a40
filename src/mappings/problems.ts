/**
 * How the loader's problems are placed and written: each at the node its path names, as
 * `file:line:col: message`, sorted by position, at most MAX_PROBLEMS of them. The checks themselves
 * (`load.ts`) and the reading of schema issues (`schema-issues.ts`) only say what is wrong and where.
 */
import {
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type Document,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml'
import { CONFIG_LIMITS } from './limits.js'

/** How many problems are listed before the rest are counted. */
const MAX_PROBLEMS = 200

export type Severity = 'error' | 'warning'

export interface ConfigProblem {
  file: string
  line: number
  col: number
  severity: Severity
  message: string
}

/** `file:line:col: message` (warnings say so). */
export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`
}

/** A file refused: every problem, formatted. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'))
  }
}

/** A name from the file as a message shows it: cut, with its length, when it is over CONFIG_LIMITS.nameShownChars. */
export function nameText(name: string): string {
  return name.length <= CONFIG_LIMITS.nameShownChars
    ? name
    : `${name.slice(0, CONFIG_LIMITS.nameShownChars - 1)}… (${name.length} characters)`
}

/** How many merge keys (`<<: *base`, whose bases may merge others) are followed to find a key. */
const MAX_MERGE_HOPS = 8

/** Whether a pair is a merge key (`<<`), which the yaml library reads as a symbol with `merge: true`. */
function isMergePair(p: unknown): p is Pair {
  return isPair(p) && isScalar(p.key) && typeof p.key.value === 'symbol' && p.key.value.description === '<<'
}

/** Where in the file's data a problem is: map keys and list indexes from the top. */
export type Path = readonly (string | number)[]

/** `bindings[0].press`: a path as the messages write it. */
export function pathText(path: Path): string {
  let out = ''
  for (const step of path) out += typeof step === 'number' ? `[${step}]` : out === '' ? step : `.${step}`
  return out
}

export function rangeStart(node: unknown): number | undefined {
  return isNode(node) && (node as Node).range ? (node as Node).range![0] : undefined
}

/** Where problems go, each at the node its path names in the file's document and line table. */
export class Problems {
  readonly list: ConfigProblem[] = []
  private dropped = 0
  constructor(
    private readonly file: string,
    private readonly doc: Document | undefined,
    private readonly lines: LineCounter,
  ) {}

  get errors(): number {
    return this.list.filter((p) => p.severity === 'error').length + this.dropped
  }

  at(offset: number, severity: Severity, message: string): void {
    if (this.list.length >= MAX_PROBLEMS) {
      this.dropped++
      return
    }
    const { line, col } = this.lines.linePos(offset)
    // An empty line table (nothing parsed yet) answers 0:0; a position is 1-based.
    this.list.push({ file: this.file, line: Math.max(1, line), col: Math.max(1, col), severity, message })
  }

  /** A problem at the node of `path`; `key` points at a map key instead of its value. */
  add(path: Path, severity: Severity, message: string, key?: string): void {
    // Past the cap a problem is only counted: finding its node (a walk of its map's pairs) is skipped, so
    // a file of thousands of unknown keys costs no more than the first MAX_PROBLEMS of them.
    if (this.list.length >= MAX_PROBLEMS) {
      this.dropped++
      return
    }
    this.at(this.offsetOf(path, key), severity, message)
  }

  finish(): ConfigProblem[] {
    const out = [...this.list].sort((a, b) => a.line - b.line || a.col - b.col)
    if (this.dropped > 0) {
      out.push({
        file: this.file,
        line: 1,
        col: 1,
        severity: 'error',
        message: `${this.dropped} more problems not listed`,
      })
    }
    return out
  }

  /** The line the node of `path` starts on (as written: a merge key's base is not followed); 1 when none. */
  lineOf(path: Path): number {
    const node = this.doc?.getIn(path, true)
    return this.lines.linePos(rangeStart(node) ?? 0).line
  }

  /** The offset of the deepest node on `path` that exists (a missing key points at its map). */
  private offsetOf(path: Path, key?: string): number {
    if (!this.doc) return 0
    let node: unknown = this.doc.contents
    let offset = rangeStart(node) ?? 0
    for (const step of path) {
      const next = isMap(node)
        ? this.pairOf(node, step)?.value
        : isSeq(node) && typeof step === 'number'
          ? node.get(step, true)
          : undefined
      if (next === undefined || next === null) break
      node = next
      offset = rangeStart(node) ?? offset
    }
    if (key !== undefined && isMap(node)) {
      const start = rangeStart(this.pairOf(node, key)?.key)
      if (start !== undefined) return start
    }
    return offset
  }

  /**
   * The pair of `key` in `map`: its own, or one a merge key brings in (`<<: *base`), which stands where
   * the base was written.
   */
  private pairOf(map: YAMLMap, key: string | number, hops = 0): Pair | undefined {
    const own = map.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key)
    if (own !== undefined || hops >= MAX_MERGE_HOPS) return own
    for (const merge of map.items.filter(isMergePair)) {
      const sources = isSeq(merge.value) ? merge.value.items : [merge.value]
      for (const source of sources) {
        const base = isAlias(source) ? source.resolve(this.doc!) : source
        const found = isMap(base) ? this.pairOf(base, key, hops + 1) : undefined
        if (found !== undefined) return found
      }
    }
    return undefined
  }
}
