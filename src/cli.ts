#!/bin/sh
//bin/true; case "$1" in run|sim|surfaces|learn) exec node --max-semi-space-size=1 --v8-pool-size=1 --liftoff-only "$0" "$@";; esac
//bin/true; exec node "$0" "$@"
/**
 * The `panelbridge` command line: dispatch to the subcommands of src/commands/ (index.ts lists them)
 * and the help. Each command reads its own arguments and returns its exit code: 0 done (or stopped by
 * SIGINT/SIGTERM), 1 could not run (e.g. the port is taken), 2 bad command line.
 *
 * The first three lines are a launcher, kept by tsc into dist/cli.js: run as a program (`./dist/cli.js`,
 * the installed `panelbridge`, `npm start`), the file is a shell script first, whose `exec` replaces the
 * shell with node (the same process: systemd's main PID, its signals and sd_notify stay the daemon's).
 * To JavaScript the two `//bin/true` lines are comments (to the shell, `//bin/true` is /bin/true). The
 * long-running commands (run, sim, surfaces, learn) get V8 flags that trade a little speed for resident
 * memory, for a small box that runs them for months; the short ones (check, send, devices, probe, help)
 * start without them. What each flag does and what it measured is with the bench that measured it:
 * bench/daemon.bench.ts. `node dist/cli.js` skips the launcher (as it did the flags before), so run the
 * program directly.
 */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { APP_DEFAULT_PORTS } from './api/protocol.js'
import { parseCheckArgs, type CheckCommandLine } from './commands/check.js'
import { SUBCOMMANDS } from './commands/index.js'
import { EXIT } from './commands/subcommand.js'
import { wrapText } from './commands/args.js'
import { parseSurfacesArgs, type SurfacesCommandLine } from './commands/surfaces.js'
import { PANELBRIDGE_VERSION } from './version.js'

export { EXIT }

export const HELP = `panelbridge — bridges hardware control panels to a live-graphics application

Usage:
  panelbridge COMMAND [options]   run one of the commands below
  panelbridge COMMAND --help      the options of one command (e.g. panelbridge sim --help)
  panelbridge --help              show this help
  panelbridge --version           show panelbridge's version

Examples:
  sudo panelbridge check /etc/panelbridge/config.yaml
  panelbridge sim
  panelbridge surfaces
  panelbridge sim --port 0 --data-dir ./sim-data
  curl 'http://127.0.0.1:${APP_DEFAULT_PORTS.http}/api/command/getAllVideoIns?requestId=r1'

Exit codes: 0 stopped cleanly, 1 could not start or run, 2 bad command line, ${EXIT.config} (run) the
configuration stops the start: starting again will not help.
`

/** The help, with a `Commands:` section: each subcommand of src/commands, its usage, then what it does. */
export function helpText(): string {
  const subs = Object.values(SUBCOMMANDS)
  if (subs.length === 0) return HELP
  const lines = subs.flatMap((c) => [`  panelbridge ${c.usage}`, ...wrapText(c.summary, '      ')])
  return HELP.replace('\nExamples:\n', `\nCommands:\n${lines.join('\n')}\n\nExamples:\n`)
}

type TopLevel = { kind: 'help' } | { kind: 'version' } | { kind: 'error'; message: string }

/** A command line no subcommand takes: `--help`, `--version` (alone), or what is wrong with it. */
function topLevel(argv: readonly string[]): TopLevel {
  if (argv.some((a) => a === '--help' || a === '-h')) return { kind: 'help' }
  const [first] = argv
  if (first === undefined) return { kind: 'error', message: 'no command given' }
  if (first === '--version' && argv.length === 1) return { kind: 'version' }
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
      return EXIT.ok
    }
    return sub.run(rest)
  }
  const read = topLevel(argv)
  if (read.kind === 'help') {
    process.stdout.write(helpText())
    return EXIT.ok
  }
  if (read.kind === 'version') {
    process.stdout.write(`panelbridge ${PANELBRIDGE_VERSION}\n`)
    return EXIT.ok
  }
  process.stderr.write(`panelbridge: ${read.message}\nRun 'panelbridge --help' for usage.\n`)
  return EXIT.usage
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
      process.exit(EXIT.failure)
    },
  )
}
