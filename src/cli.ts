#!/usr/bin/env -S node --max-semi-space-size=1 --v8-pool-size=1 --liftoff-only --no-opt --optimize-for-size
/**
 * The `panelbridge` command line.
 *
 *   panelbridge check FILE
 *   panelbridge surfaces [--port 8088] [--host 127.0.0.1] [--no-hardware]
 *   panelbridge COMMAND ...   (the subcommands of src/commands/: run, sim, send, ...)
 *
 * Exit codes: 0 done (or stopped by SIGINT/SIGTERM), 1 could not run (e.g. the port is taken),
 * 2 bad command line.
 *
 * The first line is the one place the daemon's V8 flags live (the installed `panelbridge`, `npm start`
 * and `npm run bench daemon` all run through it). Each trades a little speed for resident memory, for a
 * small box that runs this for months; measured with the default config under the bench's steady load
 * (a press every 100 ms and a jog turn every 20 ms through the remote API):
 * - `--max-semi-space-size=1` (MB): V8's young generation otherwise grows to 16 MB per semi-space under
 *   a steady stream of small requests, 20 MB and more of memory a daemon that allocates little per
 *   event never needs; the cost is more frequent, shorter scavenges.
 * - `--v8-pool-size=1`: one V8 helper thread (concurrent marking and compiling) rather than one per
 *   core; each keeps its own C allocator arena. Idle: 75-76 MB in four runs, against 77-86 MB.
 * - `--liftoff-only`: undici parses HTTP replies with llhttp, compiled to WebAssembly on the first
 *   connection; V8's second, optimising compile of it (TurboFan) takes about 35 MB of compiler memory
 *   for a moment, which the C allocator keeps afterwards (idle: 84-89 MB before, 76-79 MB after).
 *   Liftoff's code parses the application's short replies in microseconds.
 * - `--no-opt --optimize-for-size`: no optimising compiler for JavaScript (Node 24's V8 still uses
 *   its mid tier, Maglev), and V8's smaller-heap settings. Under load the daemon stayed at 72-77 MB
 *   over 5 minutes, where it reached 82-90 MB; the cost measured was about 2 % more of one core
 *   (12.5 % instead of 10.3 %, the simulator included), and no change in the jog round trip beyond the
 *   machine's noise (median 1.5 ms against 1.6 ms, p99 3.7 against 4.5).
 * The bench prints the CPU, jog round trip and memory with whatever flags this line has, and
 * `BENCH_NODE_FLAGS` runs it with others, to compare.
 */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { DEFAULT_HTTP_PORT } from './api/protocol.js'
import { DEFAULT_LISTEN_HOST, DEFAULT_PANELBRIDGE_PORT } from './defaults.js'
import { SUBCOMMANDS } from './commands/index.js'
import { createLogger } from './log.js'
import { formatProblem, loadConfigFile } from './mappings/load.js'
import { startSurfaceCheck } from './surface-check.js'

export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2
/** How long a graceful stop may take before the process exits anyway, ms. */
const STOP_TIMEOUT_MS = 3000

const log = createLogger('cli')

export const HELP = `panelbridge — bridges hardware control panels to a live-graphics application

Usage:
  panelbridge check FILE          check a mapping file: every problem as file:line:col (exit 1 on errors)
  panelbridge surfaces [options]  check the control surfaces: list devices, print their input, echo it on the keys,
                                  and show them all on the web page
  panelbridge COMMAND --help      the options of one command (e.g. panelbridge sim --help)
  panelbridge --help              show this help

Options of surfaces:
  --port N            web page port (default ${DEFAULT_PANELBRIDGE_PORT}; 0 picks a free port)
  --host ADDR         listen address of the web page (default ${DEFAULT_LISTEN_HOST})
  --no-hardware       only the web surface; do not open USB devices

Examples:
  panelbridge check /etc/panelbridge/config.yaml
  panelbridge sim
  panelbridge surfaces
  panelbridge sim --port 0 --data-dir ./sim-data
  curl 'http://127.0.0.1:${DEFAULT_HTTP_PORT}/api/command/getAllVideoIns?requestId=r1'

Exit codes: 0 stopped cleanly, 1 could not start or run, 2 bad command line.
`

/** The help, with the subcommands of src/commands listed after the built-in ones. */
export function helpText(): string {
  const subs = Object.values(SUBCOMMANDS)
  if (subs.length === 0) return HELP
  const width = Math.max(...subs.map((c) => c.usage.length)) + 2
  const lines = subs.map((c) => `  panelbridge ${c.usage.padEnd(width)}${c.summary}`).join('\n')
  return HELP.replace('Usage:\n', `Usage:\n${lines}\n`)
}

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'surfaces'; port: number; host: string; hardware: boolean }
  | { kind: 'check'; file: string }
  | { kind: 'error'; message: string }

/** A command line that cannot be run; `parseCli` turns it into `{kind: 'error'}`. */
class UsageError extends Error {}

function port(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new UsageError(`${name} must be a port number from 0 to 65535, got '${raw}'`)
  return Number(raw)
}

/** Reads the command line (without `node` and the script). Never throws. */
export function parseCli(argv: readonly string[]): CliCommand {
  try {
    return readCommand(argv)
  } catch (err) {
    // parseArgs's own errors (unknown option, missing value) and ours (UsageError) alike.
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  }
}

function readCommand(argv: readonly string[]): CliCommand {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      port: { type: 'string' },
      'ws-port': { type: 'string' },
      host: { type: 'string' },
      // sim's options (src/commands/sim.ts), known here only to say whose they are.
      'data-dir': { type: 'string' },
      'animation-ms': { type: 'string' },
      'log-commands': { type: 'string' },
      'no-hardware': { type: 'boolean' },
    },
  })
  if (values.help) return { kind: 'help' }
  const [command, ...rest] = positionals
  if (command === undefined) throw new UsageError('no command given')
  if (command === 'check') {
    const [file, ...extra] = rest
    if (file === undefined) throw new UsageError('check needs the mapping file to check')
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`)
    for (const [option, value] of Object.entries(values))
      if (value !== undefined) throw new UsageError(`--${option} is not an option of 'check'`)
    return { kind: 'check', file }
  }
  if (command !== 'surfaces') throw new UsageError(`unknown command '${command}'`)
  if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`)
  const host = values.host ?? DEFAULT_LISTEN_HOST
  if (host.trim() === '') throw new UsageError('--host must not be empty')
  for (const option of ['ws-port', 'data-dir', 'animation-ms', 'log-commands'] as const)
    if (values[option] !== undefined) throw new UsageError(`--${option} is an option of 'sim', not of '${command}'`)
  const webPort = port(values.port, DEFAULT_PANELBRIDGE_PORT, '--port')
  return { kind: 'surfaces', port: webPort, host, hardware: values['no-hardware'] !== true }
}

/**
 * Starts a long-running command, prints its banner, and resolves with the exit code once SIGINT or
 * SIGTERM has stopped it. A start that fails is exit code 1 with the reason on stderr.
 */
async function serve<H extends { close(): Promise<void> }>(
  what: string,
  start: () => Promise<H>,
  banner: (handle: H) => string[],
): Promise<number> {
  let handle: H
  try {
    handle = await start()
  } catch (err) {
    process.stderr.write(`panelbridge: cannot start the ${what}: ${err instanceof Error ? err.message : String(err)}\n`)
    return EXIT_FAILURE
  }
  for (const line of banner(handle)) process.stdout.write(`${line}\n`)
  return untilStopped(() => handle.close())
}

function runSurfaceCheck(cmd: Extract<CliCommand, { kind: 'surfaces' }>): Promise<number> {
  return serve(
    'surface check',
    () => startSurfaceCheck({ host: cmd.host, port: cmd.port, hardware: cmd.hardware }),
    (check) => [`web surface on ${check.url}`],
  )
}

/** `check FILE`: every problem on stdout as `file:line:col: message`, then a summary line. */
async function runCheck(cmd: Extract<CliCommand, { kind: 'check' }>): Promise<number> {
  const { config, problems } = await loadConfigFile(cmd.file)
  for (const p of problems) process.stdout.write(`${formatProblem(p)}\n`)
  const errors = problems.filter((p) => p.severity === 'error').length
  const warnings = problems.length - errors
  if (!config) {
    process.stdout.write(
      `${cmd.file}: refused: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
    )
    return EXIT_FAILURE
  }
  const surfaces = Object.keys(config.surfaces).length
  process.stdout.write(
    `${cmd.file}: ok: ${config.bindings.length} bindings on ${surfaces} surface${surfaces === 1 ? '' : 's'}` +
      `${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}\n`,
  )
  return EXIT_OK
}

/** Waits for SIGINT or SIGTERM, then stops (within STOP_TIMEOUT_MS) and resolves with the exit code. */
function untilStopped(close: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) return
      stopping = true
      log.info('stopping', { signal })
      const timer = setTimeout(() => {
        log.error('stop took too long; exiting anyway')
        resolve(EXIT_FAILURE)
      }, STOP_TIMEOUT_MS)
      timer.unref()
      close().then(
        () => {
          clearTimeout(timer)
          resolve(EXIT_OK)
        },
        (err: unknown) => {
          log.error('stop failed', { message: err instanceof Error ? err.message : String(err) })
          clearTimeout(timer)
          resolve(EXIT_FAILURE)
        },
      )
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

export async function main(argv: readonly string[]): Promise<number> {
  const sub = argv[0] !== undefined && Object.hasOwn(SUBCOMMANDS, argv[0]) ? SUBCOMMANDS[argv[0]] : undefined
  if (sub) {
    if (argv.slice(1).some((a) => a === '--help' || a === '-h')) {
      process.stdout.write(sub.help)
      return EXIT_OK
    }
    return sub.run(argv.slice(1))
  }
  const cmd = parseCli(argv)
  switch (cmd.kind) {
    case 'help':
      process.stdout.write(helpText())
      return EXIT_OK
    case 'error':
      process.stderr.write(`panelbridge: ${cmd.message}\nRun 'panelbridge --help' for usage.\n`)
      return EXIT_USAGE
    case 'surfaces':
      return runSurfaceCheck(cmd)
    case 'check':
      return runCheck(cmd)
  }
}

/** True when this file is the program being run (not imported by a test). */
function isEntryPoint(): boolean {
  const script = process.argv[1]
  if (script === undefined) return false
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false // argv[1] is not a file: not run as a script
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`panelbridge: ${err instanceof Error ? err.message : String(err)}\n`)
      process.exit(EXIT_FAILURE)
    },
  )
}
