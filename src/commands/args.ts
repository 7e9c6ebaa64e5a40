/** The pieces of argument reading that more than one subcommand uses. */
import { EXIT_USAGE } from './subcommand.js'

/** A command line that cannot be run; a command's parser turns it into `{kind: 'error'}`. */
export class UsageError extends Error {}

/** A port number from 0 to 65535 (0: the system picks a free one), or `fallback` when not given. */
export function portArg(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new UsageError(`${name} must be a port number from 0 to 65535, got '${raw}'`)
  return Number(raw)
}

/** A whole number of 0 or more, or `fallback` when not given. */
export function wholeNumberArg(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined) return fallback
  if (!/^\d+$/.test(raw)) throw new UsageError(`${name} must be a whole number, got '${raw}'`)
  return Number(raw)
}

/** Says what is wrong with the command line on stderr, with where to read the usage; exit code 2. */
export function usageFailure(command: string, message: string): number {
  process.stderr.write(`panelbridge: ${message}\nRun 'panelbridge ${command} --help' for usage.\n`)
  return EXIT_USAGE
}
