/**
 * `replay --compare`: the commands a replay produced set against the ones the trace recorded, binding
 * by binding (a binding is known by its control, `surface/control`, the commands' `origin`).
 *
 * What may differ between two runs of the same input, and is not a difference:
 * - the jog's coalesced positions: `replay_set_scrub_position` is sent latest-wins, so how many go out
 *   depends on the application's speed. Each run of jog events (turns, up to the next input that is not a
 *   turn: `ComparedCommand.run`) counts by its final position alone;
 * - the order of reads sent together (the jog's seed sends `replay_get_play_info` and
 *   `replay_get_settings` at once; their replies come back in either order): consecutive reads of one
 *   control are compared in name order;
 * - the streaming poll (`streaming poll`), which follows the clock, not the input;
 * - durations, and which error a failed command got (a replay against the simulator words its refusals
 *   otherwise than the application did): a command is its name and its parameters. Whether it failed
 *   does count: a command that went through when recorded and failed when replayed (or the other way
 *   round) is an `outcome` difference.
 *
 * Both sides are counted the same way, after these rules: `compared` says how many commands of each
 * were set against each other.
 *
 * The order across bindings counts for the commands that act (neither reads nor scrub positions).
 */

/** What the comparison needs of a command. */
export interface ComparedCommand {
  command: string
  params: Record<string, unknown>
  origin: string
  /**
   * Which run of turns it came in: how many inputs other than turns had reached the engine before it
   * came back. Scrub positions collapse within a run only (undefined: all in one run).
   */
  run?: number
  /** `ok`, or the error code it failed with; absent: not known (not compared). */
  outcome?: string
  /** A failure's text, where the run kept it (a replay does; a recording does not). */
  message?: string
}

export interface Difference {
  /** The binding's control, `surface/control`. */
  binding: string
  /**
   * `changed`: sends something else; `gone`: no longer sent; `new`: sent now only; `order`: both sent, in
   * another order; `outcome`: the same command went through on one side and failed on the other.
   */
  kind: 'changed' | 'gone' | 'new' | 'order' | 'outcome'
  before?: ComparedCommand
  after?: ComparedCommand
}

export const SCRUB_COMMAND = 'replay_set_scrub_position'
/** The poll's origin (src/mappings/engine.ts): not input-driven. */
const POLL_ORIGIN = 'streaming poll'
/** Beyond this many cells the per-binding diff pairs commands by position instead (a bound on time and memory). */
const MAX_DIFF_CELLS = 4_000_000

function isRead(c: ComparedCommand): boolean {
  return /(^|_)get_/.test(c.command)
}

/** JSON with sorted keys: two parameter objects written in another order are the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (typeof v === 'object' && v !== null)
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

/**
 * The run of each recorded command (see `ComparedCommand.run`): the inputs that are not turns and came
 * before it, by the trace's times. Both lists are in time order.
 */
export function runsOf(
  inputs: readonly { t: number; event: { type: string } }[],
  commands: readonly { t: number }[],
): number[] {
  const out: number[] = []
  let i = 0
  let run = 0
  for (const c of commands) {
    while (i < inputs.length && inputs[i]!.t <= c.t) if (inputs[i++]!.event.type !== 'rotate') run++
    out.push(run)
  }
  return out
}

export function commandKey(c: ComparedCommand): string {
  return `${c.command} ${canonical(c.params)}`
}

/** Each binding's commands, normalised as the header says, in the order they came. */
export function byBinding(commands: readonly ComparedCommand[]): Map<string, ComparedCommand[]> {
  const out = new Map<string, ComparedCommand[]>()
  for (const c of commands) {
    if (c.origin === POLL_ORIGIN) continue
    let list = out.get(c.origin)
    if (!list) out.set(c.origin, (list = []))
    const last = list.at(-1)
    // A scrub position replaces the one before it in the same run.
    if (last && last.command === SCRUB_COMMAND && c.command === SCRUB_COMMAND && last.run === c.run)
      list[list.length - 1] = c
    else list.push(c)
  }
  for (const list of out.values()) sortReadRuns(list)
  return out
}

function sortReadRuns(list: ComparedCommand[]): void {
  let i = 0
  while (i < list.length) {
    let j = i
    while (j < list.length && isRead(list[j]!)) j++
    if (j - i > 1) list.splice(i, j - i, ...list.slice(i, j).sort((a, b) => commandKey(a).localeCompare(commandKey(b))))
    i = Math.max(j, i + 1)
  }
}

/** The commands that act, in order across bindings. */
function acting(commands: readonly ComparedCommand[]): ComparedCommand[] {
  return commands.filter((c) => c.origin !== POLL_ORIGIN && c.command !== SCRUB_COMMAND && !isRead(c))
}

/** What `compareCommands` found, and how many commands of each side it compared. */
export interface Comparison {
  differences: Difference[]
  /** The commands set against each other, each side counted by the same rules (the header's). */
  compared: { recorded: number; replayed: number }
}

function count(lists: Map<string, ComparedCommand[]>): number {
  let n = 0
  for (const list of lists.values()) n += list.length
  return n
}

/** Whether a command went through: undefined when its outcome is not known. */
function wentThrough(c: ComparedCommand): boolean | undefined {
  return c.outcome === undefined ? undefined : c.outcome === 'ok'
}

/** Whether one side went through and the other failed (both known). */
function outcomeChanged(x: ComparedCommand, y: ComparedCommand): boolean {
  const a = wentThrough(x)
  const b = wentThrough(y)
  return a !== undefined && b !== undefined && a !== b
}

/** The differences between what was recorded (`before`) and what the replay sent (`after`). */
export function compareCommands(before: readonly ComparedCommand[], after: readonly ComparedCommand[]): Difference[] {
  return compareRuns(before, after).differences
}

/** The differences, and how many commands of each side were compared. */
export function compareRuns(before: readonly ComparedCommand[], after: readonly ComparedCommand[]): Comparison {
  const a = byBinding(before)
  const b = byBinding(after)
  const compared = { recorded: count(a), replayed: count(b) }
  const out: Difference[] = []
  const bindings = [...new Set([...a.keys(), ...b.keys()])].sort()
  for (const binding of bindings) out.push(...diffBinding(binding, a.get(binding) ?? [], b.get(binding) ?? []))
  return { differences: [...out, ...orderDifference(out, before, after)], compared }
}

/** Where every binding sent the same commands, the first acting command sent out of order, if any. */
function orderDifference(
  found: readonly Difference[],
  before: readonly ComparedCommand[],
  after: readonly ComparedCommand[],
): Difference[] {
  const out: Difference[] = []
  if (found.some((d) => d.kind !== 'outcome')) return out
  // Every binding sent the same: the order across them must hold too.
  const x = acting(before)
  const y = acting(after)
  const i = x.findIndex((c, k) => y[k] === undefined || commandKey(c) !== commandKey(y[k]) || c.origin !== y[k].origin)
  if (i >= 0) out.push({ binding: x[i]!.origin, kind: 'order', before: x[i]!, ...(y[i] ? { after: y[i] } : {}) })
  return out
}

/** One binding's commands diffed (longest common subsequence); a gone next to a new is a change. */
function diffBinding(binding: string, x: ComparedCommand[], y: ComparedCommand[]): Difference[] {
  const kx = x.map(commandKey)
  const ky = y.map(commandKey)
  const steps = x.length * y.length <= MAX_DIFF_CELLS ? lcsSteps(kx, ky) : positional(kx, ky)
  const out: Difference[] = []
  let gone: ComparedCommand[] = []
  let added: ComparedCommand[] = []
  const settle = (): void => {
    const n = Math.max(gone.length, added.length)
    for (let k = 0; k < n; k++) {
      const before = gone[k]
      const after = added[k]
      const kind = before && after ? 'changed' : before ? 'gone' : 'new'
      out.push({ binding, kind, ...(before ? { before } : {}), ...(after ? { after } : {}) })
    }
    gone = []
    added = []
  }
  let i = 0
  let j = 0
  for (const step of steps) {
    if (step === '=') {
      settle()
      const before = x[i++]!
      const after = y[j++]!
      if (outcomeChanged(before, after)) out.push({ binding, kind: 'outcome', before, after })
    } else if (step === '-') gone.push(x[i++]!)
    else added.push(y[j++]!)
  }
  settle()
  return out
}

type Step = '=' | '-' | '+'

function lcsSteps(x: string[], y: string[]): Step[] {
  const n = x.length
  const m = y.length
  // len[i][j]: the longest common subsequence of x[i..] and y[j..].
  const len = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      len[i]![j] = x[i] === y[j] ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!)
  const steps: Step[] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      steps.push('=')
      i++
      j++
    } else if (len[i + 1]![j]! >= len[i]![j + 1]!) {
      steps.push('-')
      i++
    } else {
      steps.push('+')
      j++
    }
  }
  while (i++ < n) steps.push('-')
  while (j++ < m) steps.push('+')
  return steps
}

function positional(x: string[], y: string[]): Step[] {
  const steps: Step[] = []
  for (let k = 0; k < Math.max(x.length, y.length); k++) {
    if (k < x.length && k < y.length && x[k] === y[k]) steps.push('=')
    else {
      if (k < x.length) steps.push('-')
      if (k < y.length) steps.push('+')
    }
  }
  return steps
}

/** Parameters named so are positions in seconds, shown to the millisecond. */
const SECONDS_PARAMS: ReadonlySet<string> = new Set(['position'])

/**
 * Parameters as JSON for a person: positions rounded to milliseconds (`0.167`, not
 * `0.16683350016683351`). Only what is printed is rounded; the comparison uses the values as sent.
 */
export function paramsText(params: Record<string, unknown>): string {
  return JSON.stringify(params, (key, value: unknown) =>
    SECONDS_PARAMS.has(key) && typeof value === 'number' ? Math.round(value * 1000) / 1000 : value,
  )
}

/** A command's outcome for a person: `ok`, or its error code and text. */
function outcomeText(c: ComparedCommand): string {
  if (c.outcome === undefined) return 'not known'
  return c.message !== undefined && c.outcome !== 'ok' ? `${c.outcome} (${c.message})` : c.outcome
}

/** A difference as one line: `deck/key:3: changed: schedule {"title":"A"} → schedule {"title":"B"}`. */
export function formatDifference(d: Difference): string {
  const show = (c: ComparedCommand | undefined): string => {
    if (!c) return '—'
    const text = `${c.command} ${paramsText(c.params)}`
    // Two values that differ below a millisecond are shown whole rather than as the same text.
    const other = c === d.before ? d.after : d.before
    return other && text === `${other.command} ${paramsText(other.params)}` && commandKey(c) !== commandKey(other)
      ? `${c.command} ${JSON.stringify(c.params)}`
      : text
  }
  const outcomes = (): string => `recorded ${outcomeText(d.before!)}, replayed ${outcomeText(d.after!)}`
  switch (d.kind) {
    case 'changed':
      return `${d.binding}: changed: ${show(d.before)} → ${show(d.after)}${d.before && d.after && outcomeChanged(d.before, d.after) ? ` (and its outcome: ${outcomes()})` : ''}`
    case 'outcome':
      return `${d.binding}: outcome changed, ${wentThrough(d.before!) ? 'ok → error' : 'error → ok'}: ${show(d.before)}: ${outcomes()}`
    case 'gone':
      return `${d.binding}: gone: ${show(d.before)}`
    case 'new':
      return `${d.binding}: new: ${show(d.after)}`
    case 'order':
      return `${d.binding}: order: recorded ${show(d.before)} here, the replay ${d.after ? `${d.after.origin} ${show(d.after)}` : 'nothing'}`
  }
}
