/**
 * Subcommands that live in their own modules. Each parses its own arguments (`node:util` parseArgs)
 * and returns the exit code: 0 done, 1 could not run, 2 bad command line. `src/cli.ts` dispatches to
 * them before its own parsing and lists them in `--help`.
 */
import { devicesCommand } from './devices.js'
import { learnCommand } from './learn.js'
import { probeCommand } from './probe.js'
import { runCommand } from './run.js'
import { sendCommand } from './send.js'
import { simCommand } from './sim.js'

export interface Subcommand {
  /** One line for `panelbridge --help`, after the usage (e.g. `run [--config FILE]`). */
  usage: string
  summary: string
  /** `panelbridge COMMAND --help`: the options and examples. */
  help: string
  run(argv: readonly string[]): Promise<number>
}

export const SUBCOMMANDS: Record<string, Subcommand> = {
  run: runCommand,
  devices: devicesCommand,
  learn: learnCommand,
  send: sendCommand,
  sim: simCommand,
  probe: probeCommand,
}
