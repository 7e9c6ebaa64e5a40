/**
 * The one rule for reading a number or a boolean that may arrive as text: the application sends
 * numbers and flags as strings as often as not (protocol notes 3.1), and a YAML template hands over
 * `"2"`. Used by the reply decoder, the request encoder, what a command implies of the app state and
 * the jog's seed. Imports nothing, so every layer may use it.
 */

/** A number, or numeric text (`"23"`, `" 2.5 "`); NaN for anything else, empty or blank text included. */
export function numberOf(value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.trim() !== '') return Number(value)
  return Number.NaN
}

/** `numberOf` when it is finite, else undefined. */
export function finiteNumberOf(value: unknown): number | undefined {
  const n = numberOf(value)
  return Number.isFinite(n) ? n : undefined
}

/** `true`/`false`, `1`/`0`, or their text in any case with blanks around; undefined for anything else. */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 0) return value === 1
  if (typeof value === 'string') {
    switch (value.trim().toLowerCase()) {
      case 'true':
      case '1':
        return true
      case 'false':
      case '0':
        return false
    }
  }
  return undefined
}
