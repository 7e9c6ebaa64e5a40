/** The pieces of argument reading that more than one subcommand uses. */
import { EXIT } from './subcommand.js'

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

/**
 * What is wrong with a command line, in our words: `node:util` parseArgs's own refusals (an unknown
 * option, an option without its value, an argument where none is taken) are reworded, naming the
 * command; any other message is kept. Every subcommand's refusal goes through here (`usageFailure`, or
 * `usageMessage(command, err)` where a command writes its own refusal).
 */
export function usageText(command: string, message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message)
  if (unknown) return `${unknown[1]} is not an option of '${command}'`
  const missing = /^Option '(?:-\w, )?(-[^ ']+) <value>' argument missing/.exec(message)
  if (missing) return `${missing[1]} needs a value`
  const unexpected = /^Unexpected argument '([^']*)'/.exec(message)
  if (unexpected) return `unexpected argument '${unexpected[1]}'`
  return message
}

/** `usageText` of a thrown error (parseArgs's, a UsageError or any other). */
export function usageMessage(command: string, err: unknown): string {
  return usageText(command, err instanceof Error ? err.message : String(err))
}

/** Says what is wrong with the command line on stderr, with where to read the usage; exit code 2. */
export function usageFailure(command: string, message: string): number {
  process.stderr.write(`panelbridge: ${usageText(command, message)}\nRun 'panelbridge ${command} --help' for usage.\n`)
  return EXIT.usage
}

/** The widest line of a help text, in columns: every `--help` keeps to it (a test holds them to it). */
const HELP_WIDTH = 100

/** `text` broken at spaces into lines of at most `width` columns, each after `indent`. */
export function wrapText(text: string, indent: string, width = HELP_WIDTH): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(`${indent}${line}`)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  if (line !== '') lines.push(`${indent}${line}`)
  return lines
}
