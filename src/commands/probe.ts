/**
 * `panelbridge probe [--url URL] [--notifications URL] [--listen-s N] [--out FILE]`: how a real
 * application answers, in the terms of the application profiles. This module reads the command line; the
 * work is the application kit's (`src/app-kit/probe-command.ts`, loaded then). Read-only
 * (`src/app-kit/probe.ts` lists the one set of commands it sends); the report compares each fact with the default profile
 * (`captivate`) as `ok`, `differs: <what was seen>` or `unchecked: <why>`, then panelbridge's other
 * assumptions as `held`, `differs` or `unchecked`. `--out` writes the capture (JSON, redacted, bounded)
 * a user attaches to a bug report; `profileFromCapture` (src/app-kit/simulator/profile-from-capture.ts) turns
 * it into a profile the simulator can play.
 */
import { parseArgs } from 'node:util'
import type { ProbeDeps, ProbeLine } from '../app-kit/probe-command.js'
import { APP_DEFAULT_PORTS } from '../api/protocol.js'
import { DEFAULT_APP_PROFILE } from '../defaults.js'
import type { Subcommand } from './subcommand.js'
import { usageMessage } from './args.js'

export type { ProbeDeps }

/** Where probe goes without `--url`: the application's default address. */
const PROBE_DEFAULT_URL = `http://127.0.0.1:${APP_DEFAULT_PORTS.http}`
/** How long probe listens by default, seconds (issue 20: while the operator plays a title). */
const PROBE_DEFAULT_LISTEN_S = 30
/** The longest listen window accepted, seconds. */
const PROBE_MAX_LISTEN_S = 3600

const PROBE_USAGE = 'probe [--url URL] [--notifications URL] [--listen-s N] [--out FILE]'

const HELP = `panelbridge probe — how the application answers, against what panelbridge expects

Usage:
  panelbridge ${PROBE_USAGE}

Reads how your application answers, changing nothing, and prints a compatibility report: each
fact of the application profiles as ok (as the default profile '${DEFAULT_APP_PROFILE}'), differs (with what
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
  --notifications URL   its QWebChannel socket (default ws://<host of --url>:${APP_DEFAULT_PORTS.ws})
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
  const notifications = values.notifications ?? `ws://${host}:${APP_DEFAULT_PORTS.ws}`
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
  // Loaded here, not at the top: no other command loads probe or the simulator's profiles.
  const { probeApplication } = await import('../app-kit/probe-command.js')
  return probeApplication(line, deps)
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
