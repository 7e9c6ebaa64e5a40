#!/usr/bin/env -S node --max-semi-space-size=1 --v8-pool-size=1 --liftoff-only --no-opt --optimize-for-size
/**
 * The `panelbridge` command line: dispatch to the subcommands of src/commands/ (index.ts lists them)
 * and the help. Each command reads its own arguments and returns its exit code: 0 done (or stopped by
 * SIGINT/SIGTERM), 1 could not run (e.g. the port is taken), 2 bad command line.
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
import { DEFAULT_HTTP_PORT } from './api/protocol.js'
import { parseCheckArgs, type CheckCommandLine } from './commands/check.js'
import { SUBCOMMANDS } from './commands/index.js'
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './commands/subcommand.js'
import { parseSurfacesArgs, type SurfacesCommandLine } from './commands/surfaces.js'

export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE }

export const HELP = `panelbridge — bridges hardware control panels to a live-graphics application

Usage:
  panelbridge COMMAND --help      the options of one command (e.g. panelbridge sim --help)
  panelbridge --help              show this help

Examples:
  panelbridge check /etc/panelbridge/config.yaml
  panelbridge sim
  panelbridge surfaces
  panelbridge sim --port 0 --data-dir ./sim-data
  curl 'http://127.0.0.1:${DEFAULT_HTTP_PORT}/api/command/getAllVideoIns?requestId=r1'

Exit codes: 0 stopped cleanly, 1 could not start or run, 2 bad command line.
`

/** The help, with every subcommand of src/commands listed first. */
export function helpText(): string {
  const subs = Object.values(SUBCOMMANDS)
  if (subs.length === 0) return HELP
  const width = Math.max(...subs.map((c) => c.usage.length)) + 2
  const lines = subs.map((c) => `  panelbridge ${c.usage.padEnd(width)}${c.summary}`).join('\n')
  return HELP.replace('Usage:\n', `Usage:\n${lines}\n`)
}

type TopLevel = { kind: 'help' } | { kind: 'error'; message: string }

/** A command line no subcommand takes: `--help`, or what is wrong with it. */
function topLevel(argv: readonly string[]): TopLevel {
  if (argv.some((a) => a === '--help' || a === '-h')) return { kind: 'help' }
  const [first] = argv
  if (first === undefined) return { kind: 'error', message: 'no command given' }
  if (first.startsWith('-')) return { kind: 'error', message: `unknown option '${first}'` }
  return { kind: 'error', message: `unknown command '${first}'` }
}

export type CliCommand = TopLevel | CheckCommandLine | SurfacesCommandLine

/**
 * Reads a command line without running it (without `node` and the script; never throws): `--help`, a
 * usage error, or the arguments of `check` and `surfaces` as their modules read them (the two that were
 * read here before they became subcommands; their option tests call this). `main` hands every command
 * to its module; the others read theirs there (`parseSimArgs`, ...).
 */
export function parseCli(argv: readonly string[]): CliCommand {
  const read = topLevel(argv)
  if (read.kind === 'help') return read
  const [command, ...rest] = argv
  if (command === 'check') return parseCheckArgs(rest)
  if (command === 'surfaces') return parseSurfacesArgs(rest)
  return read
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv
  const sub = name !== undefined && Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined
  if (sub) {
    if (rest.some((a) => a === '--help' || a === '-h')) {
      process.stdout.write(sub.help)
      return EXIT_OK
    }
    return sub.run(rest)
  }
  const read = topLevel(argv)
  if (read.kind === 'help') {
    process.stdout.write(helpText())
    return EXIT_OK
  }
  process.stderr.write(`panelbridge: ${read.message}\nRun 'panelbridge --help' for usage.\n`)
  return EXIT_USAGE
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
