/**
 * What `panelbridge probe` saw, read in the terms of the application profiles (the facts of
 * `app-profile-facts.ts`) and of panelbridge's other assumptions. Pure: the probe session
 * (`probe.ts`) gathers `ProbeObservations`; these functions only read them, so each verdict can be
 * tested on a hand-made observation.
 *
 * A fact one session cannot see is `unchecked` with the reason, never guessed: play, data and
 * title-added forms need the operator to act during the listen window (and a subscription that
 * covers the event: probe itself does not subscribe), a restart is needed for `method_order` and
 * `title_ids_on_restart`, and calling methods by name needs a client panelbridge does not have.
 */
import { getCommandSpec, type FieldSpec, type Shape } from '../api/commands.js'
import { PROFILE_FACT_NAMES, type ProfileFact } from './app-profile-facts.js'
import { parsePlayState } from '../api/protocol.js'
import type { ReplyShape } from '../api/reply.js'
import { isRecord, jsonDepthExceeds, jsonSnippet } from '../wire.js'

/** One reply probe read (both transports), through the one reply reader. */
export interface ReplySeen {
  transport: 'http' | 'socket'
  /** The command (`scheduleCommand`'s first argument over the socket). */
  command: string
  /** readReply's reading; absent when the reply could not be read (`unreadable` says why). */
  shape?: ReplyShape
  unreadable?: string
  /** The reply's fields (the result's when wrapped). */
  fields?: Record<string, unknown>
  error?: string
  /** The requestId sent with the command. */
  requestId?: string
  /** HTTP: the command client's failure code, when it refused the reply or the call failed. */
  clientFailure?: string
  /** A read of the listen window (the titles change then), not one of the first reads. */
  poll?: boolean
}

/** One read of the titles' states: a `getTitleControlInfo` (and the layer state when published). */
export interface TitlePoll {
  t: number
  titles: { id: string; status?: unknown; variables: string }[]
  /** `getValueForKey('newblue.automation.layerstate')`: title id → playState. */
  layer?: Record<string, string>
}

export interface SignalSeen {
  t: number
  signal: string
  args: unknown[]
}

export interface ProbeObservations {
  http: { reached: boolean; failure?: string }
  socket: { reached: boolean; failure?: string; scheduler: boolean }
  replies: ReplySeen[]
  /** The scheduler's methods and signals as each socket connection's init reply gave them. */
  inits: { methods: ReadonlyMap<string, number>; signals: ReadonlyMap<string, number> }[]
  /** What `notifyClientConnected` answered, as received. */
  clientInfo?: unknown
  /** What `getValueForKey('newblue.automation.layerstate')` answered, each time. */
  layerReads: unknown[]
  /** `_cmp_v1_query(kind)` answers. */
  registry: { kind: string; reply: unknown }[]
  signals: SignalSeen[]
  polls: TitlePoll[]
  /** Whether the listen window ran (the socket was up). */
  listened: boolean
}

/** A fact as seen: `value` when observed (the most frequent one when several were), else unchecked. */
export interface FactObservation {
  fact: ProfileFact
  value?: string | boolean
  /** Other values seen besides `value` (a mixed application). */
  others?: (string | boolean)[]
  seen: string
}

export interface AssumptionCheck {
  name: string
  verdict: 'held' | 'differs' | 'unchecked'
  seen: string
}

// ---- notification forms -----------------------------------------------------------------------------

/** The forms an `onNotify` message may take (decisions: Notifications), or what else it was. */
export type NotificationKind =
  | 'id-play'
  | 'event-play'
  | 'event-data'
  | 'data-update'
  | 'control-add-title'
  | 'control-other'
  | 'event-other'
  | 'unknown'
  | 'not-json'

/** Deepest notification read; the forms are flat objects. */
const NOTIFICATION_MAX_DEPTH = 32

/** Reads one `onNotify` argument (JSON text, as the notes say; an object is read too). Never throws. */
export function classifyNotification(arg: unknown): NotificationKind {
  let msg = arg
  if (typeof arg === 'string') {
    try {
      msg = JSON.parse(arg)
    } catch {
      return 'not-json'
    }
  }
  if (!isRecord(msg) || jsonDepthExceeds(msg, NOTIFICATION_MAX_DEPTH)) return 'unknown'
  if (typeof msg.event === 'string') {
    if (msg.event === 'play') return 'event-play'
    if (msg.event === 'data') return 'event-data'
    return 'event-other'
  }
  if (typeof msg.control === 'string') return msg.control === 'addTitle' ? 'control-add-title' : 'control-other'
  if (typeof msg.data === 'string' && msg.data.toLowerCase() === 'update') return 'data-update'
  if (msg.id !== undefined && typeof msg.play === 'string') return 'id-play'
  return 'unknown'
}

function notificationKinds(obs: ProbeObservations): NotificationKind[] {
  return obs.signals.filter((s) => s.signal === 'onNotify').map((s) => classifyNotification(s.args[0]))
}

// ---- evidence from the polls ------------------------------------------------------------------------

interface Change {
  what: string
}

function statusOf(v: unknown): string {
  return typeof v === 'string' ? v : jsonSnippet(v, 40)
}

/** A title whose play state changed between two reads (its status, or its layer state). */
function playChange(obs: ProbeObservations, via: 'status' | 'layer' | 'any' = 'any'): Change | undefined {
  for (let i = 1; i < obs.polls.length; i++) {
    const before = obs.polls[i - 1]!
    const after = obs.polls[i]!
    if (via !== 'layer') {
      const old = new Map(before.titles.map((t) => [t.id, t.status]))
      for (const t of after.titles) {
        if (old.has(t.id) && t.status !== undefined && statusOf(old.get(t.id)) !== statusOf(t.status)) {
          return { what: `${t.id} went ${statusOf(old.get(t.id))} → ${statusOf(t.status)} in getTitleControlInfo` }
        }
      }
    }
    if (via !== 'status' && before.layer && after.layer) {
      const ids = new Set([...Object.keys(before.layer), ...Object.keys(after.layer)])
      for (const id of ids) {
        const a = before.layer[id] ?? 'off'
        const b = after.layer[id] ?? 'off'
        if (a !== b) return { what: `${id} went ${a} → ${b} in the layer state` }
      }
    }
  }
  return undefined
}

function variablesChange(obs: ProbeObservations): Change | undefined {
  for (let i = 1; i < obs.polls.length; i++) {
    const old = new Map(obs.polls[i - 1]!.titles.map((t) => [t.id, t.variables]))
    for (const t of obs.polls[i]!.titles) {
      if (old.has(t.id) && old.get(t.id) !== t.variables) return { what: `a variable of ${t.id} changed` }
    }
  }
  return undefined
}

function titleAdded(obs: ProbeObservations): Change | undefined {
  for (let i = 1; i < obs.polls.length; i++) {
    const old = new Set(obs.polls[i - 1]!.titles.map((t) => t.id))
    const added = obs.polls[i]!.titles.find((t) => !old.has(t.id))
    if (added) return { what: `title ${added.id} appeared` }
  }
  return undefined
}

/**
 * Whether a subscription covers `event` (getSubscriptions): probe does not subscribe, so onNotify
 * carries only what some sender's events include. Undefined when getSubscriptions was not read.
 */
function covered(obs: ProbeObservations, event: string): boolean | undefined {
  const reply = obs.replies.find((r) => r.command === 'getSubscriptions' && r.fields && r.error === undefined)
  const senders = reply?.fields?.senders
  if (!Array.isArray(senders)) return undefined
  return senders.some(
    (s) =>
      isRecord(s) &&
      typeof s.events === 'string' &&
      s.events
        .split(',')
        .map((e) => e.trim())
        .includes(event),
  )
}

// ---- facts ------------------------------------------------------------------------------------------

/** The most frequent value first, the others after. */
function tally<T extends string | boolean>(values: T[]): { value: T; others: T[] } | undefined {
  if (values.length === 0) return undefined
  const counts = new Map<T, number>()
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1])
  return { value: sorted[0]![0], others: sorted.slice(1).map(([v]) => v) }
}

function countsText<T>(values: T[]): string {
  const counts = new Map<string, number>()
  for (const v of values) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1)
  return [...counts.entries()].map(([v, n]) => `${v} ×${n}`).join(', ')
}

function observed(
  fact: ProfileFact,
  values: (string | boolean)[],
  seen: (t: { value: string | boolean; others: (string | boolean)[] }) => string,
  none: string,
): FactObservation {
  const t = tally(values)
  if (!t) return { fact, seen: none }
  return { fact, value: t.value, ...(t.others.length > 0 ? { others: t.others } : {}), seen: seen(t) }
}

const NO_SOCKET = 'the QWebChannel socket was not reached'

/** A fact announced on onNotify: the form seen, `none` when the change happened without it, else unchecked. */
function notificationFact(
  obs: ProbeObservations,
  fact: ProfileFact,
  forms: NotificationKind[],
  event: string,
  change: Change | undefined,
  action: string,
): FactObservation {
  if (!obs.socket.reached) return { fact, seen: NO_SOCKET }
  const kinds = notificationKinds(obs).filter((k) => forms.includes(k))
  if (kinds.length > 0) return observed(fact, kinds, () => `onNotify carried ${countsText(kinds)}`, '')
  if (!obs.listened) return { fact, seen: 'probe did not listen' }
  if (!change) return { fact, seen: `nothing to see: ${action} while probe listens` }
  if (covered(obs, event) === false) {
    return {
      fact,
      seen: `${change.what}, but no subscription covers '${event}' events (probe does not subscribe): run probe while panelbridge or another client is connected`,
    }
  }
  return { fact, value: 'none', seen: `no ${event} message on onNotify while ${change.what}` }
}

function methodsOf(obs: ProbeObservations): ReadonlyMap<string, number> | undefined {
  return obs.socket.scheduler ? obs.inits[0]?.methods : undefined
}
function signalsOf(obs: ProbeObservations): ReadonlyMap<string, number> | undefined {
  return obs.socket.scheduler ? obs.inits[0]?.signals : undefined
}

function published(obs: ProbeObservations, fact: ProfileFact, members: string[], what: string): FactObservation {
  const methods = methodsOf(obs)
  const signals = signalsOf(obs)
  if (!methods || !signals) return { fact, seen: obs.socket.reached ? 'the socket publishes no scheduler' : NO_SOCKET }
  const have = members.filter((m) => methods.has(m) || signals.has(m))
  return {
    fact,
    value: have.length > 0,
    seen:
      have.length > 0 ? `${what}: ${have.join(', ')} published` : `${what}: none of ${members.join(', ')} published`,
  }
}

/** Whether a feedback change's `state` carries data (NewBlue's module: an empty one means re-query). */
function feedbackHasState(state: unknown): boolean {
  let s = state
  if (typeof s === 'string') {
    try {
      s = JSON.parse(s)
    } catch {
      return s !== ''
    }
  }
  return isRecord(s) && Object.keys(s).length > 0
}

/** Catalogue fields typed number, integer or boolean: sent natively or as text. */
function typedValues(fields: unknown, shape: Shape, out: { native: string[]; text: string[] }, depth = 0): void {
  if (!isRecord(fields) || depth > 8) return
  for (const [name, spec] of Object.entries(shape)) {
    typedValue(fields[name], spec, name, out, depth)
  }
}

function typedValue(
  value: unknown,
  spec: FieldSpec,
  name: string,
  out: { native: string[]; text: string[] },
  depth: number,
): void {
  if (value === undefined || value === null) return
  switch (spec.type) {
    case 'number':
    case 'integer':
    case 'boolean':
      if (typeof value === 'string') out.text.push(name)
      else if (typeof value === 'number' || typeof value === 'boolean') out.native.push(name)
      return
    case 'object':
      if (spec.fields) typedValues(value, spec.fields, out, depth + 1)
      return
    case 'array':
      if (Array.isArray(value) && spec.items !== undefined && typeof spec.items !== 'string') {
        for (const item of value.slice(0, 50)) typedValues(item, spec.items, out, depth + 1)
      }
      return
    case 'string':
    case 'flag':
      // The contract itself shows these as text: they say nothing about the application's habit.
      return
  }
}

function socketReply(obs: ProbeObservations): FactObservation {
  if (!obs.socket.reached) return { fact: 'socket_reply', seen: NO_SOCKET }
  const shapes = obs.replies
    .filter((r) => r.transport === 'socket' && r.shape && r.shape.envelope !== 'empty')
    .map((r) => `${r.shape!.envelope}-${r.shape!.encoding}`)
  return observed(
    'socket_reply',
    shapes,
    () => `scheduleCommand answered ${countsText(shapes)}`,
    'no scheduleCommand reply could be read',
  )
}

function httpReply(obs: ProbeObservations): FactObservation {
  if (!obs.http.reached) return { fact: 'http_reply', seen: 'the HTTP command interface was not reached' }
  const shapes = obs.replies
    .filter((r) => r.transport === 'http' && r.shape && r.shape.envelope !== 'empty')
    .map((r) => r.shape!.envelope)
  return observed('http_reply', shapes, () => `HTTP answered ${countsText(shapes)}`, 'no HTTP reply could be read')
}

function titleStatus(obs: ProbeObservations): FactObservation {
  const titles = obs.polls.flatMap((p) => p.titles)
  if (titles.length === 0) return { fact: 'title_status', seen: 'no title was listed' }
  if (titles.every((t) => t.status === undefined)) {
    return {
      fact: 'title_status',
      value: 'layer-state-only',
      seen: 'getTitleControlInfo lists titles without status',
    }
  }
  const byStatus = playChange(obs, 'status')
  const byLayer = playChange(obs, 'layer')
  if (!byStatus && byLayer) {
    return {
      fact: 'title_status',
      value: 'layer-state-only',
      seen: `titles carry a status that did not follow the play change (${byLayer.what})`,
    }
  }
  return {
    fact: 'title_status',
    value: 'in-title-list',
    seen: byStatus ? `status follows play (${byStatus.what})` : 'titles carry status (no play change seen)',
  }
}

function layerState(obs: ProbeObservations): FactObservation {
  const methods = methodsOf(obs)
  if (!methods) return { fact: 'layer_state', seen: obs.socket.reached ? 'no scheduler' : NO_SOCKET }
  if (!methods.has('getValueForKey')) {
    return { fact: 'layer_state', value: false, seen: 'getValueForKey is not published' }
  }
  const reads = obs.layerReads.filter(isRecord)
  if (reads.length > 0) {
    const most = Math.max(...reads.map((r) => Object.keys(r).length))
    return {
      fact: 'layer_state',
      value: true,
      seen: `getValueForKey('newblue.automation.layerstate') answers an object (up to ${most} titles)`,
    }
  }
  if (obs.layerReads.length === 0) return { fact: 'layer_state', seen: 'the layer state could not be read' }
  return {
    fact: 'layer_state',
    value: false,
    seen: `getValueForKey('newblue.automation.layerstate') answers ${jsonSnippet(obs.layerReads[0], 60)}`,
  }
}

function feedbackSignal(obs: ProbeObservations): FactObservation {
  const signals = signalsOf(obs)
  if (!signals) return { fact: 'feedback_signal', seen: obs.socket.reached ? 'no scheduler' : NO_SOCKET }
  if (!signals.has('_cmp_v1_handleFeedbackChangeEvent')) {
    return { fact: 'feedback_signal', value: 'none', seen: '_cmp_v1_handleFeedbackChangeEvent is not published' }
  }
  const events = obs.signals.filter((s) => s.signal === '_cmp_v1_handleFeedbackChangeEvent')
  if (events.length > 0) {
    const withState = events.filter((e) => feedbackHasState(e.args[3])).length
    const empty = events.length - withState
    const value = withState > 0 && empty > 0 ? 'mixed' : withState > 0 ? 'with-state' : 'empty-state'
    return { fact: 'feedback_signal', value, seen: `${withState} changes with a state, ${empty} with an empty one` }
  }
  const change = playChange(obs)
  if (obs.listened && change) {
    return { fact: 'feedback_signal', value: 'none', seen: `published, but silent while ${change.what}` }
  }
  return { fact: 'feedback_signal', seen: 'nothing to see: play a title in the application while probe listens' }
}

function values(obs: ProbeObservations): FactObservation {
  const out = { native: [] as string[], text: [] as string[] }
  for (const r of obs.replies) {
    const spec = getCommandSpec(r.command)
    if (spec && r.fields && r.error === undefined) typedValues(r.fields, spec.reply, out)
  }
  if (out.native.length + out.text.length === 0) {
    return { fact: 'values', seen: 'no reply carried a field the contract types as a number or boolean' }
  }
  if (out.text.length > 0) {
    const names = [...new Set(out.text)].slice(0, 6).join(', ')
    return { fact: 'values', value: 'strings', seen: `numbers or booleans sent as text (${names})` }
  }
  return {
    fact: 'values',
    value: 'contract-types',
    seen: `numbers and booleans as the contract types them (${[...new Set(out.native)].slice(0, 6).join(', ')})`,
  }
}

function methodOrder(obs: ProbeObservations): FactObservation {
  const [a, b] = obs.inits
  if (!a || !b) return { fact: 'method_order', seen: 'needs two socket connections; fewer were made' }
  const changed = [...a.methods].filter(([name, index]) => b.methods.has(name) && b.methods.get(name) !== index)
  if (changed.length > 0) {
    return {
      fact: 'method_order',
      value: 'shuffled-per-start',
      seen: `method indexes changed between two connections (${changed
        .slice(0, 3)
        .map(([n, i]) => `${n} ${i} → ${b.methods.get(n)}`)
        .join(', ')})`,
    }
  }
  return {
    fact: 'method_order',
    seen: 'the indexes were the same on two connections; whether they change when the application restarts needs a restart',
  }
}

/** How each profile fact is read from the observations: one small reading per fact. */
const FACTS: Record<ProfileFact, (obs: ProbeObservations) => FactObservation> = {
  socket_reply: socketReply,
  http_reply: httpReply,
  play_notification: (obs) =>
    notificationFact(
      obs,
      'play_notification',
      ['id-play', 'event-play'],
      'play',
      playChange(obs),
      "play a title in the application (a title's play state did not change)",
    ),
  data_notification: (obs) =>
    notificationFact(
      obs,
      'data_notification',
      ['event-data', 'data-update'],
      'data',
      variablesChange(obs),
      "change a title's variable in the application (no variable changed)",
    ),
  title_added: (obs) =>
    notificationFact(
      obs,
      'title_added',
      ['control-add-title'],
      'control',
      titleAdded(obs),
      'add a title in the application (no title was added)',
    ),
  title_status: titleStatus,
  layer_state: layerState,
  companion_registry: (obs) =>
    published(
      obs,
      'companion_registry',
      ['_cmp_v1_query', '_cmp_v1_queryFeedbackState', '_cmp_v1_performAction'],
      'automation registry',
    ),
  feedback_signal: feedbackSignal,
  xml_commands: (obs) => published(obs, 'xml_commands', ['scheduleCommandXml', 'newCommandXML'], 'XML command set'),
  variables_signal: (obs) => published(obs, 'variables_signal', ['variablesChanged'], 'variables signal'),
  values,
  method_calls: () => ({
    fact: 'method_calls',
    seen: "probe calls methods by the index the init reply gives, as the application's own clients do; calling by name needs a client panelbridge does not have",
  }),
  method_order: methodOrder,
  title_ids_on_restart: () => ({
    fact: 'title_ids_on_restart',
    seen: 'needs a restart of the application between two reads',
  }),
}

/** Every profile fact, in report order, as these observations show it. */
export function observeFacts(obs: ProbeObservations): FactObservation[] {
  return PROFILE_FACT_NAMES.map((k) => FACTS[k](obs))
}

// ---- panelbridge's other assumptions ----------------------------------------------------------------

const BRACED_UUID = /^\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}$/
const PNG_DATA_URL = 'data:image/png;base64,'
const CLIENT_INFO_FIELDS = ['buildDate', 'buildTime', 'host', 'platform', 'sku', 'version']
/** The icon size probe asks for, as NewBlue's module does (protocol notes 1.3). */
export const PROBE_ICON_SIDE = 72

/** Width and height of a PNG data URL (its IHDR), or undefined. */
export function pngSize(dataUrl: unknown): { width: number; height: number } | undefined {
  if (typeof dataUrl !== 'string' || !dataUrl.startsWith(PNG_DATA_URL)) return undefined
  const head = Buffer.from(dataUrl.slice(PNG_DATA_URL.length, PNG_DATA_URL.length + 44), 'base64')
  if (head.length < 24 || head.toString('latin1', 12, 16) !== 'IHDR') return undefined
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) }
}

/** A value from outside as text: strings and numbers as they are, anything else as a bounded snippet. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : jsonSnippet(v, 60)
}

function titlesOf(r: ReplySeen): Record<string, unknown>[] {
  const titles = r.fields?.titles
  return Array.isArray(titles) ? titles.filter(isRecord) : []
}

function list(items: string[], max = 4): string {
  const unique = [...new Set(items)]
  return unique.length > max ? `${unique.slice(0, max).join(', ')} and ${unique.length - max} more` : unique.join(', ')
}

/** What every assumption check reads: the observations, and their replies by transport. */
interface Seen {
  obs: ProbeObservations
  http: ReplySeen[]
  socket: ReplySeen[]
}

type Verdict = AssumptionCheck['verdict']

function check(name: string, verdict: Verdict, seen: string): AssumptionCheck {
  return { name, verdict, seen }
}

/** `held` with one text, `differs` with the other. */
function heldIf(name: string, held: boolean, ifHeld: string, ifNot: string): AssumptionCheck {
  return check(name, held ? 'held' : 'differs', held ? ifHeld : ifNot)
}

/** Every reply readable by the one reader; HTTP replies accepted by the command client. */
function replyReader({ obs, http, socket }: Seen): AssumptionCheck[] {
  const unreadable = obs.replies.filter((r) => r.unreadable !== undefined)
  const refused = http.filter(
    (r) => r.unreadable === undefined && r.clientFailure !== undefined && r.clientFailure !== 'APP_ERROR',
  )
  if (obs.replies.length === 0) return [check('reply-reader', 'unchecked', 'no reply was received')]
  if (unreadable.length + refused.length === 0) {
    return [
      check(
        'reply-reader',
        'held',
        `${obs.replies.length} replies read (${http.length} HTTP, ${socket.length} socket)`,
      ),
    ]
  }
  const seen = list([
    ...unreadable.map((r) => `${r.transport} ${r.command}: ${r.unreadable}`),
    ...refused.map((r) => `http ${r.command}: ${r.clientFailure}`),
  ])
  return [check('reply-reader', 'differs', seen)]
}

function requestIdEcho(name: string, replies: ReplySeen[]): AssumptionCheck {
  const sent = replies.filter((r) => r.requestId !== undefined && r.fields && r.shape?.envelope !== 'empty')
  if (sent.length === 0) return check(name, 'unchecked', 'no reply to a command that carried a requestId')
  const echoed = (r: ReplySeen): unknown => r.fields?.requestId
  const wrong = sent.filter((r) => echoed(r) !== undefined && text(echoed(r)) !== r.requestId)
  const missing = sent.filter((r) => echoed(r) === undefined)
  if (wrong.length > 0)
    return check(name, 'differs', `another requestId came back: ${list(wrong.map((r) => r.command))}`)
  if (missing.length > 0) {
    return check(name, 'differs', `not echoed by ${list(missing.map((r) => r.command))} (a missing echo is accepted)`)
  }
  return check(name, 'held', `${sent.length} replies echoed the requestId sent`)
}

function requestIdEchoes({ http, socket }: Seen): AssumptionCheck[] {
  return [requestIdEcho('request-id-echo-http', http), requestIdEcho('request-id-echo-socket', socket)]
}

function errorBesideSuccess({ obs }: Seen): AssumptionCheck[] {
  const errors = obs.replies.filter((r) => r.error !== undefined && r.fields)
  if (errors.length === 0) return [check('error-beside-success', 'unchecked', 'no reply carried an error')]
  const withTrue = errors.filter((r) => r.fields!.success === true || r.fields!.success === 'true')
  return [
    heldIf(
      'error-beside-success',
      withTrue.length > 0,
      `success stays true beside an error (${list(withTrue.map((r) => r.command))}); panelbridge reads error`,
      `errors came with success false or absent (${list(errors.map((r) => r.command))})`,
    ),
  ]
}

function flagsAsStrings({ obs }: Seen): AssumptionCheck[] {
  const flags: unknown[] = []
  for (const r of obs.replies.filter((x) => x.command === 'getSubscriptions')) {
    const senders = r.fields?.senders
    if (Array.isArray(senders))
      for (const s of senders) if (isRecord(s) && s.is_default !== undefined) flags.push(s.is_default)
  }
  if (flags.length === 0) return [check('flags-as-strings', 'unchecked', 'no flag field (is_default) was seen')]
  const odd = flags.filter((f) => f !== '0' && f !== '1')
  return [
    heldIf(
      'flags-as-strings',
      odd.length === 0,
      `is_default as '0'/'1' (${flags.length})`,
      `is_default as ${list(odd.map((f) => jsonSnippet(f, 20)))}`,
    ),
  ]
}

function titleIds(titles: Record<string, unknown>[]): AssumptionCheck {
  const odd = titles.map((t) => t.id).filter((id) => typeof id !== 'string' || !BRACED_UUID.test(id))
  return heldIf(
    'braced-title-ids',
    odd.length === 0,
    'every title id is a braced UUID',
    `ids ${list(odd.map((i) => jsonSnippet(i, 60)))}`,
  )
}

function playStates(titles: Record<string, unknown>[]): AssumptionCheck {
  const states = titles.map((t) => t.status).filter((s) => s !== undefined)
  const unknown = states.filter((s) => parsePlayState(s) === undefined)
  if (states.length === 0) return check('play-states', 'unchecked', 'titles carry no status')
  return heldIf(
    'play-states',
    unknown.length === 0,
    `statuses ${list(states.map((s) => (typeof s === 'string' ? s : jsonSnippet(s, 30))))}`,
    `unknown statuses ${list(unknown.map((s) => jsonSnippet(s, 30)))}`,
  )
}

function titleVariables(titles: Record<string, unknown>[]): AssumptionCheck {
  const vars = titles.flatMap((t) => (Array.isArray(t.variables) ? (t.variables as unknown[]) : []))
  const odd = vars.filter((v) => !isRecord(v) || typeof v.variable !== 'string' || !('value' in v))
  if (vars.length === 0) return check('title-variables', 'unchecked', 'no title variable was listed')
  return heldIf(
    'title-variables',
    odd.length === 0,
    `${vars.length} variables as {variable, value}`,
    `variables like ${jsonSnippet(odd[0], 80)}`,
  )
}

function titleIcons(titleReplies: ReplySeen[]): AssumptionCheck {
  const iconReplies = titleReplies.filter((r) => titlesOf(r).some((t) => typeof t.image === 'string' && t.image !== ''))
  const images = iconReplies.flatMap(titlesOf).map((t) => t.image)
  if (images.length === 0) return check('title-icons', 'differs', 'getTitleControlInfo with icon 1 carried no image')
  const sizes = images.map(pngSize)
  const bad = sizes.filter((s) => !s || s.width !== PROBE_ICON_SIDE || s.height !== PROBE_ICON_SIDE)
  return heldIf(
    'title-icons',
    bad.length === 0,
    `${images.length} icons as 72×72 PNG data URLs`,
    `icons ${list(sizes.map((s) => (s ? `${s.width}×${s.height} PNG` : 'not a PNG data URL')))} for 72×72 asked`,
  )
}

/** The title list: its ids, play states, variables and icons. */
function titleList({ obs }: Seen): AssumptionCheck[] {
  const titleReplies = obs.replies.filter((r) => r.command === 'getTitleControlInfo' && r.fields)
  const titles = titleReplies.flatMap(titlesOf)
  if (titles.length === 0) {
    return ['braced-title-ids', 'play-states', 'title-variables', 'title-icons'].map((n) =>
      check(n, 'unchecked', 'no title was listed'),
    )
  }
  return [titleIds(titles), playStates(titles), titleVariables(titles), titleIcons(titleReplies)]
}

function sameTitles({ http, socket }: Seen): AssumptionCheck[] {
  // The first reads only: titles may come and go during the listen window.
  const idsOf = (replies: ReplySeen[]): Set<string> =>
    new Set(
      replies
        .filter((r) => r.command === 'getTitleControlInfo' && !r.poll)
        .flatMap((r) => titlesOf(r).map((t) => text(t.id))),
    )
  const httpIds = idsOf(http)
  const socketIds = idsOf(socket)
  if (httpIds.size === 0 || socketIds.size === 0)
    return [check('same-titles-both-transports', 'unchecked', 'titles were not read over both transports')]
  const onlyOne = [...httpIds].filter((i) => !socketIds.has(i)).concat([...socketIds].filter((i) => !httpIds.has(i)))
  return [
    heldIf(
      'same-titles-both-transports',
      onlyOne.length === 0,
      `${httpIds.size} titles on both`,
      `listed on one transport only: ${list(onlyOne)}`,
    ),
  ]
}

function clientInfo({ obs }: Seen): AssumptionCheck[] {
  if (obs.clientInfo === undefined) return [check('client-info', 'unchecked', 'notifyClientConnected was not answered')]
  let info: unknown = obs.clientInfo
  let asText = false
  if (typeof info === 'string') {
    asText = true
    try {
      info = JSON.parse(info)
    } catch {
      info = undefined
    }
  }
  const missing = isRecord(info) ? CLIENT_INFO_FIELDS.filter((f) => typeof info[f] !== 'string') : CLIENT_INFO_FIELDS
  return [
    heldIf(
      'client-info',
      asText && missing.length === 0,
      'notifyClientConnected answers JSON text with buildDate, buildTime, host, platform, sku, version',
      `notifyClientConnected answered ${asText ? 'text' : 'an object'}${missing.length > 0 ? ` without ${missing.join(', ')}` : ''}`,
    ),
  ]
}

function layerStateLowercase({ obs }: Seen): AssumptionCheck[] {
  const layers = obs.layerReads.filter(isRecord)
  const playStates = layers.flatMap((l) => Object.values(l)).map((v) => (isRecord(v) ? v.playState : v))
  if (playStates.length === 0) return [check('layer-state-lowercase', 'unchecked', 'the layer state named no title')]
  const odd = playStates.filter(
    (s) => typeof s !== 'string' || s !== s.toLowerCase() || parsePlayState(s) === undefined,
  )
  return [
    heldIf(
      'layer-state-lowercase',
      odd.length === 0,
      `playState ${list(playStates.map(String))}`,
      `playState ${list(odd.map((s) => jsonSnippet(s, 30)))}`,
    ),
  ]
}

function registryShape({ obs }: Seen): AssumptionCheck[] {
  if (obs.registry.length === 0) {
    return [check('registry-shape', 'unchecked', '_cmp_v1_query was not published or not answered')]
  }
  const bad = obs.registry.filter((r) => {
    let reply = r.reply
    if (typeof reply === 'string') {
      try {
        reply = JSON.parse(reply)
      } catch {
        return true
      }
    }
    return !isRecord(reply) || !(`companion_${r.kind}` in reply)
  })
  return [
    heldIf(
      'registry-shape',
      bad.length === 0,
      `_cmp_v1_query answers companion_${obs.registry.map((r) => r.kind).join(', companion_')}`,
      `_cmp_v1_query(${list(bad.map((r) => r.kind))}) answers without companion_<kind>`,
    ),
  ]
}

function notifications({ obs }: Seen): AssumptionCheck[] {
  const notes = obs.signals.filter((s) => s.signal === 'onNotify')
  if (notes.length === 0) {
    return [
      check(
        'broadcast-notifications',
        'unchecked',
        obs.listened ? 'no notification arrived (probe does not subscribe)' : 'probe did not listen',
      ),
      check('notification-forms', 'unchecked', 'no notification arrived'),
    ]
  }
  const kinds = notes.map((n) => ({ kind: classifyNotification(n.args[0]), text: typeof n.args[0] === 'string' }))
  const odd = kinds.filter((k) => !k.text || ['control-other', 'event-other', 'unknown', 'not-json'].includes(k.kind))
  return [
    check(
      'broadcast-notifications',
      'held',
      `${notes.length} notifications arrived without a subscribe of probe's own`,
    ),
    heldIf(
      'notification-forms',
      odd.length === 0,
      `every notification is JSON text in a known form (${countsText(kinds.map((k) => k.kind))})`,
      `${odd.length} notifications ${odd.some((k) => !k.text) ? 'not as one JSON text argument, or ' : ''}in forms panelbridge does not know (${countsText(odd.map((k) => k.kind))})`,
    ),
  ]
}

/** The assumption checks, in report order. */
const ASSUMPTIONS: readonly ((seen: Seen) => AssumptionCheck[])[] = [
  replyReader,
  requestIdEchoes,
  errorBesideSuccess,
  flagsAsStrings,
  titleList,
  sameTitles,
  clientInfo,
  layerStateLowercase,
  registryShape,
  notifications,
]

/** panelbridge's assumptions beyond the profile facts, each held, differing or unchecked. */
export function checkAssumptions(obs: ProbeObservations): AssumptionCheck[] {
  const seen: Seen = {
    obs,
    http: obs.replies.filter((r) => r.transport === 'http'),
    socket: obs.replies.filter((r) => r.transport === 'socket'),
  }
  return ASSUMPTIONS.flatMap((run) => run(seen))
}
