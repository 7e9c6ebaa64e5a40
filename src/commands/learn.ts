/**
 * `panelbridge learn [--config FILE] [--url URL]`: prints each control event as its canonical id
 * (`desk/key:3 down`), the `surfaces:` entry that claims the device (or one to add), and, once per
 * control, a binding ready to paste into the mapping file.
 *
 * A running daemon holds the devices, so `learn` asks `GET /api/status` at the daemon's address first.
 * When a daemon answers, it learns through the daemon's event stream (`GET /api/events`) and takes no
 * device; the daemon goes on acting on every event. Otherwise it opens every device the drivers find.
 * Both print the same lines.
 *
 * `learn --raw` reads generic HID devices' input reports and prints which bytes and bits change, to
 * write a report map (see `learn-raw.ts`).
 */
import { parseArgs } from 'node:util'
import type { DaemonStatus, UnclaimedDeviceEvent } from '../daemon/api.js'
import { readListenToken } from '../daemon/auth.js'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT, SYSTEM_CONFIG } from '../defaults.js'
import { reachableHost } from '../listen-address.js'
import { createLogger } from '../log.js'
import { readFileSync } from 'node:fs'
import { allBindings, parseForEdit } from '../mappings/edit/locate.js'
import { loadConfigFile } from '../mappings/load.js'
import type { Config } from '../mappings/schema.js'
import { assignClaims } from '../families/claims.js'
import { SurfaceManager, type SurfaceStatus } from '../surfaces/manager.js'
import { DRIVER_FAMILIES, hardwareHotplug, isDriverName } from '../surfaces/drivers.js'
import type { SurfaceDriver } from '../surfaces/types.js'
import type { ControlKind } from '../face/control-id.js'
import { isRecord } from '../wire.js'
import {
  DEFAULT_HARDWARE_DEPS,
  configuredDrivers,
  formatStatus,
  readClaims,
  surfaceEntryFor,
  yamlLine,
  type ConfigClaims,
  type HardwareCommandDeps,
} from './hardware.js'
import type { Subcommand } from './subcommand.js'
import { DEVICE_ARG, learnRaw } from './learn-raw.js'
import { LearnRecording, type LearnRecordSummary } from './learn-record.js'
import {
  messageOf,
  parseInputEvent,
  parseSurfaceEvent,
  parseUnclaimedEvent,
  parseUnclaimedInputEvent,
  printable,
  readServerSentEvents,
  type ServerSentEvent,
} from './learn-stream.js'
import { untilStopped, whileListening } from './until-stopped.js'
import { usageMessage } from './args.js'
import type { ControlDescriptor, DetectedDevice } from '../face/surface.js'

const log = createLogger('learn')

/**
 * ASSUMED: how long `learn` waits for a daemon's `/api/status` before taking the devices itself, ms. It
 * only waits when something accepts the connection and does not answer (with no daemon, loopback refuses
 * at once), and a daemon taken for none makes `learn` fight it for the devices: 3 s, room for a daemon
 * whose loop is busy (a reload, a flood of input) or whose machine is.
 */
const LEARN_DAEMON_PROBE_MS = 3_000
/** How long `learn` waits for the daemon's event stream to answer, ms. */
const LEARN_STREAM_CONNECT_MS = 5_000
/** The environment variable `learn` takes a daemon's token from. */
const LEARN_TOKEN_ENV = 'PANELBRIDGE_TOKEN'

/** learn's usage, in its help and in the general help's list. */
const LEARN_USAGE = 'learn [--config FILE] [--url URL] [--token-file FILE] [--record FILE] [--raw]'

export interface LearnDeps extends HardwareCommandDeps {
  /** Stops learning (default: SIGINT or SIGTERM). */
  stop?: AbortSignal
  /** Where LEARN_TOKEN_ENV is read (default: `process.env`). */
  env?: Readonly<Record<string, string | undefined>>
}

const HELP = `panelbridge learn — each control's id as it is pressed, turned or moved, with a binding to paste

Usage:
  panelbridge ${LEARN_USAGE}
  panelbridge learn --raw [--config FILE] [--device VID:PID[:USAGE_PAGE]] [--report-ids]

Prints each press, turn or move as its canonical control id (desk/key:3 down), the surfaces: entry
that claims the device (or one to add), and, once per control, a binding ready to paste into the
mapping file. Ctrl+C stops.

When a panelbridge daemon answers at its address (listen: of the config, or --url), learn follows
the daemon's event stream and takes no device from it: the daemon goes on acting on every event.
Events injected through its remote API are marked so. A Stream Deck a page of the daemon connected
that no surfaces: entry claims is shown with the entry to add, and its presses (they reach no
binding). Otherwise learn opens every device it finds.

A daemon bound beyond loopback wants its token: learn takes it from --token-file, else from the
${LEARN_TOKEN_ENV} environment variable, else from the config's listen.token or listen.token_file.

--raw reads generic HID devices (a pedal, a game controller, a button box) and prints which bytes
and bits change from one input report to the next, to write the report map of a surface with
driver: hid, e.g.:
  report 1: byte 3 0x00→0x04 (bit 2 set)
It reads the config's hid surfaces, or the device --device names (hex ids, as panelbridge devices
and lsusb show them). Byte numbers count as the map's byte: does.

--record FILE writes the raw input reports of the HID panels learn opens (Contour Shuttle, X-keys),
each with the events it made, as JSON lines: a trace to attach to a bug report, which the tests
(test/fixtures/hid/) replay as it is. It needs the devices: not while a daemon holds them.

Options:
  --config FILE      the mapping file whose surfaces: name the devices
                     (default: ${SYSTEM_CONFIG} when it exists)
  --url URL          the daemon's address
                     (default: the config's listen:, else http://${DEFAULT_LISTEN_HOST}:${DEFAULT_PANELBRIDGE_PORT})
  --token-file FILE  the daemon's token, for a daemon bound beyond loopback
  --record FILE      write the HID panels' raw input reports and their events to FILE (replaced)
  --raw              show the changing bytes of generic HID devices' input reports
  --device ID        with --raw: the HID device to read, VID:PID or VID:PID:USAGE_PAGE (hex)
  --report-ids       with --raw and --device: the device numbers its reports (the first byte is the
                     id, as the map's report_id:); bytes are then counted after it

Examples:
  panelbridge learn
  panelbridge learn --config /etc/panelbridge/config.yaml
  panelbridge learn --raw --device 05f3:00ff
  panelbridge learn --record shuttle-trace.jsonl

Exit codes: 0 stopped, 1 could not learn (the daemon refused or went away, the config is refused,
no such HID device), 2 bad command line.
`

interface LearnOptions {
  config?: string
  url?: string
  'token-file'?: string
  raw?: boolean
  device?: string
  'report-ids'?: boolean
  record?: string
}

/** Where a running daemon would answer. A wildcard listen address is reached on loopback (`reachableHost`). */
function daemonUrl(url: string | undefined, listen: { host: string; port: number } | undefined): string {
  if (url !== undefined) return url.replace(/\/+$/, '')
  if (!listen) return `http://${DEFAULT_LISTEN_HOST}:${DEFAULT_PANELBRIDGE_PORT}`
  return `http://${reachableHost(listen.host)}:${listen.port}`
}

/** What answered at the daemon's address: a daemon, with its status when it gave one. */
export interface DaemonProbe {
  /** Undefined when the daemon wants a token learn does not have (401). */
  status: Pick<DaemonStatus, 'version' | 'config'> | undefined
}

/**
 * Asks `GET /api/status` at `base` (with the token, when there is one) within LEARN_DAEMON_PROBE_MS.
 * Undefined when no panelbridge daemon answers.
 */
export async function probeDaemon(base: string, token?: string): Promise<DaemonProbe | undefined> {
  try {
    const res = await fetch(`${base}/api/status`, {
      ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {}),
      signal: AbortSignal.timeout(LEARN_DAEMON_PROBE_MS),
    })
    // A 401 is a daemon too: one bound beyond loopback wants its token.
    if (res.status === 401) return { status: undefined }
    if (!res.ok) return undefined
    const body: unknown = await res.json()
    if (!isRecord(body) || typeof body.version !== 'string' || !Array.isArray(body.surfaces)) return undefined
    return { status: { version: body.version, config: typeof body.config === 'string' ? body.config : '' } }
  } catch {
    // Nothing listens there, or something that is not a daemon: the devices are free to take.
    return undefined
  }
}

/** The fields of an event that the printed line and snippet use. */
interface LearnedEvent {
  type: 'down' | 'up' | 'rotate' | 'value'
  /** The panel's own name for the control (`key 7` on an X-keys), shown next to the canonical id. */
  label?: string
  delta?: number
  value?: number
  raw?: number
}

/**
 * Controls whose value is centred, -1..1 (0 at rest; `src/surfaces/types.ts`): a range for them runs
 * from reverse to forward, so that rest is a speed of 0. The shuttle has a binding of its own.
 */
const CENTRED_VALUE_KINDS: ReadonlySet<ControlKind> = new Set(['pitchbend', 'joystick'])

/**
 * A fader's `range:` from the control's own range (issue 42 item 7): a control sending 0..1 maps onto
 * 0 to full speed, a centred one (-1..1) onto full reverse to full forward; a comment says what it sends.
 */
function valueBody(kind: ControlKind | undefined, event: LearnedEvent): string[] {
  const centred = (kind !== undefined && CENTRED_VALUE_KINDS.has(kind)) || (event.value ?? 0) < 0
  const sends = centred ? '-1..1, 0 at rest' : '0..1'
  const raw = event.raw !== undefined ? `; raw ${event.raw} now` : ''
  return [
    "label: 'Speed'",
    `# the control sends ${sends}${raw}: range maps its ends`,
    `value: { command: replay_set_replay_speed, param: speed, range: ${centred ? '[-2, 2]' : '[0, 2]'} }`,
  ]
}

/** What a control of this kind does first when touched, for the snippet. */
function bindingBody(kind: ControlKind | undefined, event: LearnedEvent): string[] {
  if (event.type === 'rotate') return ['jog: { scrub: { step_frames: 1 } }']
  if (event.type === 'value') {
    if (kind === 'shuttle') return ["label: '{{speed}}×'", 'shuttle: { speeds: [0, 0.1, 0.25, 0.5, 1, 2, 4, 8] }']
    return valueBody(kind, event)
  }
  return [
    'label: "{{name}}\\n{{play}}"',
    "press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }",
    "feedback: { title: 'Lower Third' }",
  ]
}

function eventDetail(e: LearnedEvent): string {
  if (e.type === 'rotate') return ` ${(e.delta ?? 0) > 0 ? '+' : ''}${e.delta}`
  if (e.type === 'value') return ` ${(e.value ?? 0).toFixed(3)}${e.raw !== undefined ? ` (raw ${e.raw})` : ''}`
  return ''
}

/** A binding in a few words, for `already bound`: its label, else what it sends (`play 'Lower Third'`). */
export function bindingSummary(b: Record<string, unknown>): string {
  const first = (v: unknown): Record<string, unknown> | undefined => {
    const one: unknown = Array.isArray(v) ? v[0] : v
    return isRecord(one) ? one : undefined
  }
  for (const use of ['press', 'value', 'rotate', 'long_press'] as const) {
    const c = first(b[use])
    if (!c) continue
    const params = isRecord(c.params) ? c.params : {}
    const what = typeof params.action === 'string' ? params.action : typeof c.command === 'string' ? c.command : use
    return typeof params.title === 'string' ? `${what} '${params.title}'` : what
  }
  for (const use of ['jog', 'shuttle', 'page', 'feedback']) if (b[use] !== undefined) return use
  return typeof b.label === 'string' ? `label '${b.label.replace(/\n/g, ' ')}'` : 'a binding'
}

/**
 * Where each control is bound in `file` (`surface/control` → `file:line: summary`; the binding without a
 * page first), read with the editor's locator; empty when the file cannot be read or parsed.
 */
export function boundControlsOf(file: string | undefined): Map<string, string> {
  const bound = new Map<string, string>()
  if (file === undefined) return bound
  try {
    const ed = parseForEdit(readFileSync(file, 'utf8'))
    const found = allBindings(ed, file)
    ed.bindings.forEach((data, i) => {
      const where = found[i]
      if (typeof data.on !== 'string' || !where) return
      const page = typeof data.page === 'string' ? ` (page ${data.page})` : ''
      const line = `${where.where}: ${bindingSummary(data)}${page}`
      if (!bound.has(data.on) || data.page === undefined) bound.set(data.on, line)
    })
  } catch {
    // A file learn cannot read is no reason to stop learning; `check` says what is wrong with it.
  }
  return bound
}

/** The lines `learn` prints, whichever way the events come (devices opened here, or a daemon's stream). */
class LearnPrinter {
  private readonly shown = new Set<string>()

  constructor(
    private readonly out: (line: string) => void,
    private readonly surfaces: Config['surfaces'] | undefined,
    /** Where each control is bound already (`boundControlsOf`). */
    private readonly bound: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** A surface that is not open (waiting, failed, closed): its status line. */
  status(s: SurfaceStatus): void {
    this.out(formatStatus(s))
  }

  /**
   * An open surface, learnt as `name`: its status line, and the `surfaces:` entry of the config that
   * claims it, else `otherwise` (an entry to add, or who claims it).
   */
  opened(s: SurfaceStatus, name: string, otherwise: string | undefined): void {
    this.out(`${formatStatus(s)}: learning as ${name}`)
    const configured = this.surfaces?.[name]
    if (configured) this.out(`  claimed by surfaces: ${yamlLine({ [name]: configured })}`)
    else if (otherwise !== undefined) this.out(otherwise)
  }

  /**
   * A device the daemon sees that no entry claims, learnt as `name`: its line, and the entry to add
   * (the wording of a device learn opens itself); or that it went.
   */
  unclaimed(u: UnclaimedDeviceEvent, name: string): void {
    const model = u.model !== undefined ? ` (${u.model})` : ''
    if (u.state === 'gone') {
      this.out(`${u.driver} ${u.device}${model}: no longer unclaimed (gone, or a surface claims it now)`)
      return
    }
    const presses = u.presses ? `learning as ${name}` : `${name}; its presses are not seen (left to other software)`
    this.out(`${u.driver} ${u.device}${model}: not claimed by any surface of the daemon: ${presses}`)
    if (u.entry) this.out(`  not in the config; add under surfaces: ${yamlLine({ [name]: u.entry })}`)
  }

  /** An event: its id and detail, and once per control and kind of use, a binding to paste. */
  input(name: string, control: string, kind: ControlKind | undefined, e: LearnedEvent, note = ''): void {
    const id = `${name}/${control}`
    const own = e.label !== undefined ? ` [${e.label} on the panel]` : ''
    this.out(`${id} ${e.type}${eventDetail(e)}${own}${note}`)
    if (e.type === 'up') return
    const key = `${id} ${e.type === 'down' ? 'press' : e.type}`
    if (this.shown.has(key)) return
    this.shown.add(key)
    const at = this.bound.get(id)
    if (at !== undefined) this.out(`  already bound at ${at}`)
    const body = bindingBody(kind, e)
    this.out(['  binding:', `    - on: ${id}`, ...body.map((line) => `      ${line}`)].join('\n'))
  }
}

/** `learn` with its seams: the subcommand runs this with the defaults. */
export async function runLearn(argv: readonly string[], deps: LearnDeps = DEFAULT_HARDWARE_DEPS): Promise<number> {
  let values: LearnOptions
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        url: { type: 'string' },
        'token-file': { type: 'string' },
        raw: { type: 'boolean' },
        device: { type: 'string' },
        'report-ids': { type: 'boolean' },
        record: { type: 'string' },
      },
      strict: true,
    }))
    if (values.url !== undefined && !/^https?:\/\/[^/]/.test(values.url))
      throw new Error('--url must be an http:// URL')
    if (!values.raw && (values.device !== undefined || values['report-ids']))
      throw new Error('--device and --report-ids go with --raw')
    if (values['report-ids'] && values.device === undefined)
      throw new Error('--report-ids goes with --device (a configured map says it with report_id:)')
    if (values.device !== undefined && !DEVICE_ARG.test(values.device))
      throw new Error('--device must be VID:PID or VID:PID:USAGE_PAGE in hex, e.g. 05f3:00ff')
    if (values.record !== undefined && values.raw) throw new Error('--record goes without --raw')
    if (values.record === '') throw new Error('--record needs a file name')
  } catch (err) {
    deps.err(`panelbridge learn: ${usageMessage('learn', err)}`)
    deps.err(`Run 'panelbridge learn --help' for usage.`)
    return 2
  }
  const read = await readClaims(values.config, deps)
  if (!read) return 1
  if (values.raw) return learnRaw({ device: values.device, reportIds: values['report-ids'] === true }, read, deps)

  const token = await tokenFor(values['token-file'], read, deps)
  if (token === false) return 1
  const base = daemonUrl(values.url, read.config?.listen)
  const probe = await probeDaemon(base, token.token)
  if (probe && values.record !== undefined) {
    deps.err(`panelbridge learn --record: a panelbridge daemon at ${base} holds the devices, and their raw reports.`)
    deps.err('Stop it (sudo systemctl stop panelbridge), run panelbridge learn --record, then start it again.')
    return 1
  }
  if (probe) return whileListening(deps.stop, (stop) => learnThroughDaemon(base, token, probe, read, deps, stop))
  return learnFromDevices(read, deps, base, values.record)
}

/**
 * The daemon's token: `--token-file`, else LEARN_TOKEN_ENV, else the config's `listen`. False (after
 * saying why) when `--token-file` cannot be read; a config's unreadable token file is only a note, used
 * if the daemon asks for a token.
 */
async function tokenFor(
  file: string | undefined,
  read: ConfigClaims,
  deps: LearnDeps,
): Promise<{ token?: string; note?: string } | false> {
  if (file !== undefined) {
    try {
      return { token: (await readListenToken({ token_file: file }))! }
    } catch (err) {
      deps.err(`panelbridge learn: --token-file: ${err instanceof Error ? err.message : String(err)}`)
      return false
    }
  }
  const env = (deps.env ?? process.env)[LEARN_TOKEN_ENV]?.trim()
  if (env) return { token: env }
  if (!read.config) return {}
  try {
    const token = await readListenToken(read.config.listen)
    return token !== undefined ? { token } : {}
  } catch (err) {
    return { note: err instanceof Error ? err.message : String(err) }
  }
}

/** Learns through a running daemon's `GET /api/events`: nothing is opened here. */
async function learnThroughDaemon(
  base: string,
  token: { token?: string; note?: string },
  probe: DaemonProbe,
  read: ConfigClaims,
  deps: LearnDeps,
  stop: AbortSignal,
): Promise<number> {
  const controller = new AbortController()
  const onStop = (): void => controller.abort()
  stop.addEventListener('abort', onStop, { once: true })
  try {
    const connectTimer = setTimeout(() => controller.abort(), LEARN_STREAM_CONNECT_MS)
    let res: Response
    try {
      res = await fetch(`${base}/api/events`, {
        headers: {
          accept: 'text/event-stream',
          ...(token.token !== undefined ? { authorization: `Bearer ${token.token}` } : {}),
        },
        signal: controller.signal,
      })
    } catch (err) {
      if (stop.aborted) return 0
      deps.err(`panelbridge learn: a daemon answers at ${base}, but its event stream does not: ${messageOf(err)}`)
      return 1
    } finally {
      clearTimeout(connectTimer)
    }
    const refused = streamRefusal(res, base, token)
    if (refused !== undefined || !res.body) {
      await res.body?.cancel().catch(() => undefined)
      for (const line of refused ?? [`panelbridge learn: the daemon at ${base} sent no event stream`]) deps.err(line)
      return 1
    }

    // Surface names are the daemon's: its config says what claims them, when learn was given none.
    let surfaces = read.config?.surfaces
    let from = read.file
    if (!surfaces && probe.status?.config) {
      const daemonConfig = (await loadConfigFile(probe.status.config).catch(() => undefined))?.config
      if (daemonConfig) {
        surfaces = daemonConfig.surfaces
        from = probe.status.config
      }
    }
    const printer = new LearnPrinter((line) => deps.out(line), surfaces, boundControlsOf(from))
    deps.out(
      `learning through the panelbridge daemon at ${base}, which keeps its devices: press, turn or move a control; ` +
        `Ctrl+C stops${from !== undefined ? ` (surface names from ${from})` : ''}`,
    )
    deps.out(`  (its devices' events, and those of its web page: press a key on ${base}/ to learn it too)`)
    let malformed = 0
    const unclaimed = new UnclaimedNames()
    try {
      for await (const e of readServerSentEvents(res.body)) {
        if (!printDaemonEvent(e, printer, unclaimed)) malformed++
        if (malformed === 1) {
          malformed++
          deps.err(`panelbridge learn: ignored a malformed event from ${base} (more are ignored silently)`)
        }
      }
    } catch (err) {
      if (stop.aborted) return 0
      deps.err(`panelbridge learn: the daemon at ${base} ended the event stream (stopped?): ${messageOf(err)}`)
      return 1
    }
    if (stop.aborted) return 0
    deps.err(`panelbridge learn: the daemon at ${base} ended the event stream (stopped?)`)
    return 1
  } finally {
    stop.removeEventListener('abort', onStop)
  }
}

/**
 * One event of the daemon's stream, printed; false when it was malformed. Events of other kinds
 * (`command`, and any a newer daemon adds) are not learn's.
 */
function printDaemonEvent(e: ServerSentEvent, printer: LearnPrinter, unclaimed: UnclaimedNames): boolean {
  if (e.event === 'surface') {
    const s = parseSurfaceEvent(e.data)
    if (!s) return false
    // Named after the device, as when learn opens it itself; the daemon's name is the learnt one.
    if (s.state !== 'open') printer.status({ ...s, name: s.device ?? s.name })
    else
      printer.opened({ ...s, name: s.device ?? s.name }, s.name, `  claimed by the daemon's surfaces: entry ${s.name}`)
  } else if (e.event === 'input') {
    const input = parseInputEvent(e.data)
    if (!input) return false
    printer.input(input.surface, input.control, input.kind, input, input.injected ? ' (remote API)' : '')
  } else if (e.event === 'unclaimed') {
    // A device the daemon sees and no entry claims (a page's Stream Deck): the entry to paste, as for a device here.
    const u = parseUnclaimedEvent(e.data)
    if (!u) return false
    const name = unclaimed.nameOf(u.driver, u.device)
    if (name !== undefined) printer.unclaimed(u, name)
  } else if (e.event === 'unclaimed-input') {
    const input = parseUnclaimedInputEvent(e.data)
    if (!input) return false
    const name = unclaimed.nameOf(input.driver, input.device)
    if (name !== undefined) printer.input(name, input.control, input.kind, input, ' (not claimed: reaches no binding)')
  }
  return true
}

/** Most unclaimed devices one learn names: a daemon has a few; what is past this is not shown. */
const MAX_UNCLAIMED_NAMES = 64

/** Names suggested for the daemon's unclaimed devices (`browser-deck1`), as learn names the devices it opens. */
class UnclaimedNames {
  private readonly names = new Map<string, string>()
  private suggested = 0

  nameOf(driver: string, device: string): string | undefined {
    const key = `${driver}\u0000${device}`
    let name = this.names.get(key)
    if (name === undefined && this.names.size < MAX_UNCLAIMED_NAMES) {
      // A driver name as the daemon sent it may hold anything: only what a surface name may.
      name = `${driver.replace(/[^A-Za-z0-9_-]/g, '') || 'surface'}${++this.suggested}`
      this.names.set(key, name)
    }
    return name
  }
}

/** Why the daemon refused the event stream, as lines for the user; undefined when it did not. */
function streamRefusal(res: Response, base: string, token: { token?: string; note?: string }): string[] | undefined {
  const type = res.headers.get('content-type') ?? ''
  if (res.status === 200 && type.startsWith('text/event-stream')) return undefined
  const head = `panelbridge learn: a panelbridge daemon is running at ${base} and holds the devices`
  if (res.status === 401) {
    return [
      `${head}; it wants its token${token.token !== undefined ? ', and refused the one given' : ''}.`,
      `Pass --token-file FILE, set ${LEARN_TOKEN_ENV}, or --config the daemon's config (listen.token or listen.token_file).`,
      ...(token.note !== undefined ? [`(the config's token: ${token.note})`] : []),
    ]
  }
  if (res.status === 404) {
    return [
      `${head}, and offers no event stream to learn through (an older version?).`,
      'Stop it (sudo systemctl stop panelbridge), run panelbridge learn, then start it again.',
    ]
  }
  if (res.status === 503) return [`${head}, and is serving as many event streams as it allows; close one and retry.`]
  return [`${head}, but its event stream answered ${res.status}${type !== '' ? ` (${printable(type)})` : ''}.`]
}

/**
 * Opens every device the drivers find (claims from the config, names suggested for the rest); with
 * `record`, their raw reports go to that file (`learn-record.ts`).
 */
async function learnFromDevices(read: ConfigClaims, deps: LearnDeps, base: string, record?: string): Promise<number> {
  /** Every device detection listed, by identity: what claims and snippets are made from. */
  const detected = new Map<string, DetectedDevice>()
  /** The drivers whose last detection failed, with why (the manager logs it too, once). */
  const failed = new Map<string, string>()
  let trace: LearnRecording | undefined
  if (record !== undefined) {
    try {
      trace = await LearnRecording.open({ file: record, warn: (line) => deps.err(line) })
    } catch (err) {
      deps.err(`panelbridge learn --record: cannot write ${record}: ${messageOf(err)}`)
      return 1
    }
  }
  const recording = (driver: SurfaceDriver): SurfaceDriver => ({
    name: driver.name,
    async detect() {
      try {
        const list = await driver.detect()
        failed.delete(driver.name)
        for (const d of list) detected.set(d.id, d)
        return list
      } catch (err) {
        failed.set(driver.name, messageOf(err))
        throw err
      }
    },
    async open(device) {
      const surface = await driver.open(device)
      trace?.attach(device, surface)
      return surface
    },
  })
  const drivers = configuredDrivers(deps, read.config).map((e) => e.driver)
  const manager = new SurfaceManager({
    drivers: drivers.map(recording),
    claims: 'all',
    access: deps.access,
    // The raw drivers, not the recording wrappers: MIDI's port rescans are found by the driver's class.
    hotplug: hardwareHotplug(drivers, deps.hotplug),
  })
  /** Device identity → the surface name used in ids and snippets (configured, else suggested). */
  const names = new Map<string, string>()
  let suggested = 0
  const nameOf = (device: string): string => {
    let name = names.get(device)
    if (name === undefined) {
      const d = detected.get(device)
      name =
        assignClaims(read.claims, [...detected.values()]).get(device)?.name ?? `${d?.driver ?? 'surface'}${++suggested}`
      names.set(device, name)
    }
    return name
  }
  const controls = new Map<string, Map<string, ControlDescriptor>>()
  const printer = new LearnPrinter((line) => deps.out(line), read.config?.surfaces, boundControlsOf(read.file))

  manager.events.on('status', (s) => {
    if (s.state !== 'open') return printer.status(s)
    const device = detected.get(s.name)
    const name = nameOf(s.name)
    printer.opened(
      s,
      name,
      device ? `  not in the config; add under surfaces: ${surfaceEntryFor(name, device)}` : undefined,
    )
  })
  manager.events.on('added', (d) => controls.set(d.id, new Map(d.controls.map((c) => [c.id, c]))))
  manager.events.on('input', (e) => {
    const c = controls.get(e.surface)?.get(e.control)
    printer.input(nameOf(e.surface), e.control, c?.kind, {
      ...e,
      ...(c?.label !== undefined ? { label: c.label } : {}),
    })
  })

  return whileListening(deps.stop, async (stop) => {
    deps.out(
      `learning: press, turn or move a control; Ctrl+C stops${read.file !== undefined ? ` (surface names from ${read.file})` : ''}`,
    )
    // A family served by the daemon alone (Satellite clients attach to its server) has no devices here.
    const own = drivers.filter((d) => !(isDriverName(d.name) && DRIVER_FAMILIES[d.name].service))
    deps.out(`listening to the devices of: ${own.map((d) => d.name).join(', ')}`)
    deps.out(`  (no panelbridge daemon answers at ${base}: learn opens the devices itself)`)
    if (trace) deps.out(`recording the HID panels' raw input reports to ${trace.file}`)
    const close = async (): Promise<void> => {
      await manager.stop()
      if (trace) recordSummary(await trace.stop(), nameOf, deps)
    }
    try {
      await manager.start()
    } catch (err) {
      await close()
      throw err
    }
    if (detected.size === 0) sayNothingFound(failed, base, deps)
    return untilStopped(close, { log, stop })
  })
}

/**
 * Said once the first scan found no device, so that learn never waits silently: what it waits for, and
 * the ways to give it something to learn (plug a panel in, fix a driver, use a daemon's page).
 */
function sayNothingFound(failed: ReadonlyMap<string, string>, base: string, deps: Pick<LearnDeps, 'out'>): void {
  deps.out('nothing to listen to yet: no control surface found; learn waits, and takes a panel as it is plugged in.')
  for (const [driver, why] of failed) deps.out(`  ${driver}: detection failed: ${printable(why).slice(0, 200)}`)
  deps.out('  panelbridge devices lists what this machine has, with any permission problem to fix.')
  deps.out("  Or use the keys of the daemon's web page: start the daemon (sudo systemctl start panelbridge,")
  deps.out(`  or panelbridge run), open ${base}/ and run learn again: it follows the daemon.`)
}

/** What `learn --record` wrote, said at the stop. */
function recordSummary(
  s: LearnRecordSummary,
  nameOf: (device: string) => string,
  deps: Pick<LearnDeps, 'out' | 'err'>,
): void {
  const each = [...s.reports].map(([device, n]) => `${n} from ${nameOf(device)}`)
  deps.out(
    each.length > 0
      ? `recorded ${each.join(', ')} to ${s.file} (a trace for test/fixtures/hid/)`
      : `recorded no raw report to ${s.file}: no HID panel that gives them sent any`,
  )
  if (s.dropped > 0) deps.err(`learn --record: ${s.dropped} reports were dropped`)
}

export const learnCommand: Subcommand = {
  usage: LEARN_USAGE,
  summary: 'print each control event as its id, the surface that claims it, and a binding to paste',
  help: HELP,
  run: (argv) => runLearn(argv),
}
