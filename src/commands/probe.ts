/**
 * `panelbridge probe [--url URL] [--notifications URL] [--listen-s N] [--out FILE]`: how a real
 * application answers, in the terms of the application profiles. Read-only (`src/api/probe.ts` lists
 * the one set of commands it sends); the report compares each fact with the default profile
 * (`captivate`) as `ok`, `differs: <what was seen>` or `unchecked: <why>`, then panelbridge's other
 * assumptions as `held`, `differs` or `unchecked`. `--out` writes the capture (JSON, redacted, bounded)
 * a user attaches to a bug report; `profileFromCapture` (src/simulator/profile-from-capture.ts) turns
 * it into a profile the simulator can play.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { LINK_CLIENT_VERSION } from '../api/notifications.js'
import type { CaptureFact } from '../api/probe-capture.js'
import type { FactObservation } from '../api/probe-facts.js'
import { runProbe, type ProbeResult } from '../api/probe.js'
import { DEFAULT_HTTP_PORT, DEFAULT_WS_PORT } from '../api/protocol.js'
import { DEFAULT_PROFILE, getProfile, type SimProfile } from '../simulator/profile.js'
import type { Subcommand } from './subcommand.js'
import { usageMessage } from './args.js'

/** Where probe goes without `--url`: the application's default address. */
export const PROBE_DEFAULT_URL = `http://127.0.0.1:${DEFAULT_HTTP_PORT}`
/** How long probe listens by default, seconds (issue 20: while the operator plays a title). */
export const PROBE_DEFAULT_LISTEN_S = 30
/** The longest listen window accepted, seconds. */
export const PROBE_MAX_LISTEN_S = 3600

export interface ProbeDeps {
  out(line: string): void
  err(line: string): void
  /** Ends the listen window early (the command wires Ctrl-C to it). */
  signal?: AbortSignal
}

const PROBE_USAGE = 'probe [--url URL] [--notifications URL] [--listen-s N] [--out FILE]'

const HELP = `panelbridge probe — how the application answers, against what panelbridge expects

Usage:
  panelbridge ${PROBE_USAGE}

Reads how your application answers, changing nothing, and prints a compatibility report: each
fact of the application profiles as ok (as the default profile '${DEFAULT_PROFILE}'), differs (with what
was seen) or unchecked (with why), then panelbridge's other assumptions.

It connects to the HTTP command interface and to the QWebChannel socket, runs only commands that
read (getTitleControlInfo, getAllVideoIns, getOutputDevice, replay_get_play_info,
replay_get_settings, replay_is_trial_mode, getSubscriptions; on the socket also
notifyClientConnected, the layer state and the automation registry), then listens to every signal.
It does not subscribe: it sees the notifications that other clients' subscriptions (and the
default sender) carry. While it listens, play a title, change a variable or add a title in the
application.

Options:
  --url URL             the application's command interface (default ${PROBE_DEFAULT_URL})
  --notifications URL   its QWebChannel socket (default ws://<host of --url>:${DEFAULT_WS_PORT})
  --listen-s N          seconds to listen to the signals
                        (default ${PROBE_DEFAULT_LISTEN_S}; 0 to ${PROBE_MAX_LISTEN_S})
  --out FILE            write a capture (JSON: every request, reply and frame with times; stream
                        keys and tokens redacted) to attach to a bug report

Examples:
  panelbridge probe
  panelbridge probe --url http://10.0.0.5:9022 --listen-s 60 --out probe-capture.json

Exit codes: 0 the application answered (whatever differs), 1 neither transport could be reached
(or the capture could not be written), 2 bad command line.
`

class UsageError extends Error {}

interface ProbeLine {
  url: string
  notifications: string
  listenS: number
  out: string | undefined
}

function readLine(argv: readonly string[]): ProbeLine {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      notifications: { type: 'string' },
      'listen-s': { type: 'string' },
      out: { type: 'string' },
    },
  })
  if (positionals.length > 0) throw new UsageError(`probe takes no arguments (got '${positionals[0]}')`)
  const url = values.url ?? PROBE_DEFAULT_URL
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError('--url must be an http:// URL')
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    throw new UsageError(`--url is not a URL: ${url}`)
  }
  const notifications = values.notifications ?? `ws://${host}:${DEFAULT_WS_PORT}`
  if (!/^wss?:\/\/[^/]/.test(notifications)) throw new UsageError('--notifications must be a ws:// URL')
  try {
    new URL(notifications)
  } catch {
    throw new UsageError(`--notifications is not a URL: ${notifications}`)
  }
  const raw = values['listen-s']
  const listenS = raw === undefined ? PROBE_DEFAULT_LISTEN_S : Number(raw)
  if (raw !== undefined && (!/^\d+(\.\d+)?$/.test(raw) || listenS > PROBE_MAX_LISTEN_S)) {
    throw new UsageError(`--listen-s takes seconds from 0 to ${PROBE_MAX_LISTEN_S} (got '${raw}')`)
  }
  if (values.out === '') throw new UsageError('--out needs a file name')
  return { url, notifications, listenS, out: values.out }
}

type Value = string | boolean

function shown(values: Value[]): string {
  return values.map(String).join(' and ')
}

/** Each fact against the default profile: ok, differs (what was seen) or unchecked (why). */
export function factVerdicts(facts: FactObservation[], base: SimProfile): CaptureFact[] {
  return facts.map((f) => {
    const expected = base.facts[f.fact]
    if (f.value === undefined) return { fact: f.fact, verdict: 'unchecked', expected, seen: f.seen }
    const all = [f.value, ...(f.others ?? [])]
    return {
      fact: f.fact,
      verdict: all.every((v) => v === expected) ? 'ok' : 'differs',
      value: f.value,
      expected,
      seen: all.length > 1 ? `${shown(all)}: ${f.seen}` : f.seen,
    }
  })
}

/** One report line per fact: `<fact> ok: <value> — <seen>`, `<fact> differs: <value> (<base>: <v>) — <seen>`, `<fact> unchecked: <why>`. */
export function factLine(f: CaptureFact, baseName: string, others: Value[] = []): string {
  switch (f.verdict) {
    case 'ok':
      return `${f.fact} ok: ${String(f.value)} — ${f.seen}`
    case 'differs':
      return `${f.fact} differs: ${shown([f.value!, ...others])} (${baseName}: ${String(f.expected)}) — ${f.seen}`
    case 'unchecked':
      return `${f.fact} unchecked: ${f.seen}`
  }
}

/** The report, as lines (the heading of each part, then one line per fact and per assumption). */
export function reportLines(result: ProbeResult, verdicts: CaptureFact[], base: SimProfile): string[] {
  const lines = ['', `Compatibility with the default profile (${base.name}):`]
  for (const v of verdicts) {
    const others = result.facts.find((f) => f.fact === v.fact)?.others ?? []
    lines.push(factLine(v, base.name, others))
  }
  lines.push('', "panelbridge's other assumptions:")
  for (const a of result.assumptions) lines.push(`${a.name} ${a.verdict}: ${a.seen}`)
  const counts = { ok: 0, differs: 0, unchecked: 0 }
  for (const v of verdicts) counts[v.verdict]++
  lines.push(
    '',
    `${counts.ok} facts ok, ${counts.differs} differ, ${counts.unchecked} unchecked.` +
      (counts.differs > 0 ? ' Send us the capture (--out FILE) with the differences.' : ''),
  )
  return lines
}

/** `probe` with its seams: the subcommand runs this with stdout, stderr and Ctrl-C. */
export async function runProbeCommand(argv: readonly string[], deps: ProbeDeps): Promise<number> {
  let line: ProbeLine
  try {
    line = readLine(argv)
  } catch (err) {
    deps.err(`panelbridge probe: ${usageMessage('probe', err)}`)
    deps.err(`Run 'panelbridge probe --help' for usage.`)
    return 2
  }
  const base = getProfile(DEFAULT_PROFILE)
  deps.out(`panelbridge probe: ${line.url} and ${line.notifications} (read-only)`)
  const result = await runProbe({
    httpUrl: line.url,
    socketUrl: line.notifications,
    listenMs: line.listenS * 1000,
    onLine: (l) => deps.out(l),
    toolVersion: LINK_CLIENT_VERSION,
    ...(deps.signal ? { signal: deps.signal } : {}),
  })
  const verdicts = factVerdicts(result.facts, base)
  const reached = result.reached.http || result.reached.socket
  if (reached) for (const l of reportLines(result, verdicts, base)) deps.out(l)
  else
    deps.err(`panelbridge probe: nothing answers at ${line.url} or ${line.notifications}: is the application running?`)
  let code = reached ? 0 : 1
  if (line.out !== undefined) {
    const capture = result.recorder.finish(
      verdicts,
      result.assumptions.map((a) => ({ ...a })),
    )
    try {
      writeFileSync(line.out, `${JSON.stringify(capture, null, 1)}\n`, { mode: 0o600 })
      deps.out(`capture written to ${line.out} (secrets redacted)`)
    } catch (err) {
      deps.err(`panelbridge probe: cannot write ${line.out}: ${err instanceof Error ? err.message : String(err)}`)
      code = 1
    }
  }
  return code
}

export const probeCommand: Subcommand = {
  usage: PROBE_USAGE,
  summary: 'read how the application answers (changing nothing) and report what differs from what panelbridge expects',
  help: HELP,
  run: async (argv) => {
    // Ctrl-C during the listen window ends it early; the report still follows. A second one quits.
    const abort = new AbortController()
    const onInt = (): void => abort.abort()
    process.once('SIGINT', onInt)
    try {
      return await runProbeCommand(argv, {
        out: (l) => void process.stdout.write(`${l}\n`),
        err: (l) => void process.stderr.write(`${l}\n`),
        signal: abort.signal,
      })
    } finally {
      process.off('SIGINT', onInt)
    }
  },
}
