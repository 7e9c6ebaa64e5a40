/**
 * The controls a surface has, written as ranges for a message: `key:0–key:7`, `note:1:36–note:1:51`,
 * `jog`. Used when a binding names a control its surface lacks, so the message says what is there.
 */

/** How many ranges a message lists before it counts the rest. */
const MAX_RANGES_SHOWN = 8

/** A control id as a prefix and a trailing number (`note:1:` and 36), or the whole id alone (`jog`). */
function split(id: string): { prefix: string; n: number | undefined } {
  const m = /^(.*:)(\d+)$/.exec(id)
  return m ? { prefix: m[1]!, n: Number(m[2]) } : { prefix: id, n: undefined }
}

/** The ids as ranges of consecutive numbers under one prefix, in the order the ids first come. */
export function controlRanges(ids: Iterable<string>): string[] {
  const groups = new Map<string, number[]>()
  const out: string[] = []
  for (const id of ids) {
    const { prefix, n } = split(id)
    if (n === undefined) {
      out.push(id)
      continue
    }
    let list = groups.get(prefix)
    if (!list) {
      groups.set(prefix, (list = []))
      out.push(prefix) // a placeholder, replaced by the group's ranges below
    }
    list.push(n)
  }
  return out.flatMap((entry) => {
    const list = groups.get(entry)
    if (list === undefined) return [entry]
    const sorted = [...new Set(list)].sort((a, b) => a - b)
    const ranges: string[] = []
    let from = sorted[0]!
    for (let i = 1; i <= sorted.length; i++) {
      if (i < sorted.length && sorted[i] === sorted[i - 1]! + 1) continue
      const to = sorted[i - 1]!
      ranges.push(from === to ? `${entry}${from}` : `${entry}${from}–${entry}${to}`)
      from = sorted[i]!
    }
    return ranges
  })
}

/** The ranges joined, at most MAX_RANGES_SHOWN of them. */
function listed(ranges: readonly string[]): string {
  const shown = ranges.slice(0, MAX_RANGES_SHOWN).join(', ')
  return ranges.length > MAX_RANGES_SHOWN ? `${shown} and ${ranges.length - MAX_RANGES_SHOWN} more` : shown
}

/**
 * What a surface has instead of `asked`: its controls of the same kind (`it has key:0–key:7`), or, when
 * it has none of that kind, all its controls.
 */
export function controlRangeHint(ids: Iterable<string>, asked: string): string {
  const all = [...ids]
  const kind = asked.split(':')[0]!
  const same = all.filter((id) => id === kind || id.startsWith(`${kind}:`))
  if (same.length > 0) return `it has ${listed(controlRanges(same))}`
  if (all.length === 0) return 'it has no controls'
  return `it has no ${kind} controls; it has ${listed(controlRanges(all))}`
}
