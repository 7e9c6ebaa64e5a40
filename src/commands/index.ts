/**
 * Every subcommand, by the name it is called by. Each lives in its own module, parses its own arguments
 * (`node:util` parseArgs) and returns the exit code: 0 done, 1 could not run, 2 bad command line (the
 * contract is `subcommand.ts`, which the commands import; this list imports the commands).
 * `src/cli.ts` dispatches to them and lists them in `--help`, in this order.
 */
import { checkCommand } from './check.js'
import { commandsCommand } from './commands.js'
import { devicesCommand } from './devices.js'
import { learnCommand } from './learn.js'
import { probeCommand } from './probe.js'
import { replayCommand } from './replay.js'
import { runCommand } from './run.js'
import { sendCommand } from './send.js'
import { simCommand } from './sim.js'
import type { Subcommand } from './subcommand.js'
import { surfacesCommand } from './surfaces.js'

export const SUBCOMMANDS: Record<string, Subcommand> = {
  run: runCommand,
  check: checkCommand,
  commands: commandsCommand,
  devices: devicesCommand,
  learn: learnCommand,
  send: sendCommand,
  sim: simCommand,
  surfaces: surfacesCommand,
  probe: probeCommand,
  replay: replayCommand,
}
