/**
 * "Did you mean": the known name nearest a name that is not known. The distance is optimal string
 * alignment (Damerau's edit distance without re-editing a swapped pair): an inserted, dropped or
 * changed letter is one edit, and so is a swap of two neighbours, so `lable`, `titel` and `Runing`
 * find `label`, `title` and `Running`. Case is ignored.
 *
 * The work is bounded whatever the file holds (issue 24: a 10,000-character key held the loop): a
 * name longer than CONFIG_LIMITS.suggestMaxChars gets no suggestion before any comparison, and each comparison
 * stops as soon as it is past the largest distance that would be suggested.
 */
import { CONFIG_LIMITS } from './limits.js'

/** The largest distance suggested for `word`: one edit per three letters, at least one. */
export function maxSuggestDistance(word: string): number {
  return Math.max(1, Math.floor(word.length / 3))
}

/**
 * The optimal-string-alignment distance of `a` and `b`, or `max + 1` as soon as it is known to be
 * over `max` (a length difference over `max`, or a row of the table whose every entry is over it).
 * O(|a|·|b|) at most; callers keep both short.
 */
export function distanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let before = new Array<number>(b.length + 1).fill(0)
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  let row = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    row[0] = i
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost)
      // A swap of two neighbours (`ab` for `ba`) is one edit.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      row[j] = d
      if (d < rowMin) rowMin = d
    }
    if (rowMin > max) return max + 1
    ;[before, prev, row] = [prev, row, before]
  }
  return Math.min(prev[b.length]!, max + 1)
}

/**
 * The known name nearest `word` within its largest suggested distance (the first in `known`'s order
 * on a tie), or undefined. Names over CONFIG_LIMITS.suggestMaxChars, given or known, are never compared.
 */
export function nearest(word: string, known: Iterable<string>): string | undefined {
  if (word.length === 0 || word.length > CONFIG_LIMITS.suggestMaxChars) return undefined
  const w = word.toLowerCase()
  let best: string | undefined
  let bestDistance = maxSuggestDistance(word) + 1
  for (const k of known) {
    if (k.length > CONFIG_LIMITS.suggestMaxChars || k === word) continue
    const d = distanceWithin(w, k.toLowerCase(), bestDistance - 1)
    if (d < bestDistance) {
      best = k
      bestDistance = d
    }
  }
  return best
}

/** ` (did you mean X?)` for the known name nearest `word`, or '' when none is near enough. */
export function suggest(word: string, known: Iterable<string>): string {
  const near = nearest(word, known)
  return near === undefined ? '' : ` (did you mean ${near}?)`
}
