/**
 * What a subcommand is. Each command module (`run.ts`, `check.ts`, ...) imports this file and exports
 * one `Subcommand`; `index.ts` imports the commands and lists them; `src/cli.ts` dispatches to them and
 * lists them in `--help`. (The type lives apart from the list so that no command imports the list.)
 */

/** Done, or stopped cleanly by SIGINT or SIGTERM. */
export const EXIT_OK = 0
/** Could not run (a refused config, a port taken, a stop past its bound). */
export const EXIT_FAILURE = 1
/** A bad command line. */
export const EXIT_USAGE = 2

export interface Subcommand {
  /** One line for `panelbridge --help`, after the usage (e.g. `run [--config FILE]`). */
  usage: string
  summary: string
  /** `panelbridge COMMAND --help`: the options and examples. */
  help: string
  /** Reads its own arguments (after the command's name) and resolves with the exit code. */
  run(argv: readonly string[]): Promise<number>
}
