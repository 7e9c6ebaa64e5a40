/**
 * What a subcommand is. Each command module (`run.ts`, `check.ts`, ...) imports this file and exports
 * one `Subcommand`; `index.ts` imports the commands and lists them; `src/cli.ts` dispatches to them and
 * lists them in `--help`. (The type lives apart from the list so that no command imports the list.)
 */

/** The exit statuses of panelbridge's commands. */
export const EXIT = {
  /** Done, or stopped cleanly by SIGINT or SIGTERM. */
  ok: 0,
  /** Could not run (a stop past its bound, a failure that another try may not meet). */
  failure: 1,
  /** A bad command line. */
  usage: 2,
  /** `check --app URL`: the application could not be reached; the files were checked without it. */
  appUnreachable: 3,
  /**
   * `run` could not start because of its configuration: the file refused, or an address it names taken or
   * not allowed. Starting again changes nothing until the file (or the box) does, so the unit's
   * RestartPreventExitStatus= names this status and systemd stops instead of restart-looping.
   * ASSUMED: 78, sysexits' EX_CONFIG, which systemd prints as `status=78/CONFIG`.
   */
  config: 78,
} as const

export interface Subcommand {
  /** One line for `panelbridge --help`, after the usage (e.g. `run [--config FILE]`). */
  usage: string
  summary: string
  /** `panelbridge COMMAND --help`: the options and examples. */
  help: string
  /** Reads its own arguments (after the command's name) and resolves with the exit code. */
  run(argv: readonly string[]): Promise<number>
}
