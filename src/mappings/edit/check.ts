/**
 * The loader's whole check as a save's `check`: the new text's errors, each at its field
 * (`bindings.3.press.params.title`), so the editor can show it beside that field.
 */
import { isCollection, isPair, parseDocument, type Node } from 'yaml'
import { loadConfigText, type LoadOptions } from '../load.js'
import type { CheckText, EditProblem } from './save.js'

/** The field path of the deepest node of `text` written at 1-based `line`:`col`, or undefined. */
export function fieldAt(text: string, line: number, col: number): string | undefined {
  let offset = 0
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset)
    if (nl === -1) return undefined
    offset = nl + 1
  }
  offset += col - 1
  const doc = parseDocument(text)
  const path: (string | number)[] = []
  let node: unknown = doc.contents
  const within = (n: unknown): boolean => {
    const range = (n as Node | null)?.range
    return range !== undefined && range !== null && offset >= range[0] && offset < range[2]
  }
  while (isCollection(node)) {
    let next: unknown
    for (const [i, item] of node.items.entries()) {
      if (isPair(item)) {
        if (within(item.key) || within(item.value)) {
          path.push(String((item.key as { value?: unknown } | null)?.value))
          next = within(item.value) ? item.value : undefined
          break
        }
      } else if (within(item)) {
        path.push(i)
        next = item
        break
      }
    }
    if (next === undefined) break
    node = next
  }
  return path.length > 0 ? path.join('.') : undefined
}

/** A `check` that runs the loader on the new text as `file` and returns its errors (warnings let a save through). */
export function loaderCheck(file: string, options: LoadOptions = {}): CheckText {
  return async (text: string): Promise<EditProblem[]> => {
    const result = await loadConfigText(text, file, options)
    return result.problems
      .filter((p) => p.severity === 'error')
      .map((p) => ({ path: fieldAt(text, p.line, p.col) ?? `${p.line}:${p.col}`, message: p.message }))
  }
}
