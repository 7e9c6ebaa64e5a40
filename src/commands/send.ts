/**
 * `panelbridge send COMMAND [key=value ...] [--url URL | --config FILE] [--unlisted]`: one command to
 * the application, the reply's `result` printed as JSON on stdout.
 *
 * Values are typed by the command catalogue: numeric text for numbers, `true`/`false` for booleans,
 * comma lists for string arrays, JSON for objects; then `checkParams` (the rules the client and
 * `panelbridge check` use) lists every problem before anything is sent. A command the catalogue lacks is
 * refused unless `--unlisted` (then `true`/`false`, numbers and JSON objects or arrays keep their type,
 * the rest is text).
 *
 * The mapping file's safety rules hold here too (`checkSafety`): a command that acts on everything when
 * its target is left out needs `--all`, a hold-to-confirm command `--yes`.
 */
import { parseArgs } from 'node:util'
import { CommandClient } from '../api/client.js'
import { checkParams } from '../api/codec.js'
import { getCommandSpec, type ParamSpec } from '../api/commands.js'
import { isCommandError } from '../api/errors.js'
import { APP_DEFAULT_PORTS } from '../api/protocol.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import { defaultAppSection } from '../mappings/apps.js'
import { CONFIRM_COMMANDS } from '../mappings/constants.js'
import { targetAllFinding } from '../mappings/target-all.js'
import type { Subcommand } from './subcommand.js'
import { usageMessage } from './args.js'

/** Where `send` goes without `--url` or `--config`: the application's default address. */
const SEND_DEFAULT_URL = `http://127.0.0.1:${APP_DEFAULT_PORTS.http}`

export interface SendDeps {
  out(text: string): void
  err(line: string): void
}
const DEFAULT_DEPS: SendDeps = {
  out: (text) => void process.stdout.write(text),
  err: (line) => void process.stderr.write(`${line}\n`),
}

const HELP = `panelbridge send — one command to the application, its reply printed as JSON

Usage:
  panelbridge send COMMAND [key=value ...] [--all] [--yes] [--url URL | --config FILE] [--unlisted]

Sends one command to the application and prints its reply (the result object) as JSON.
Values are typed by the command catalogue: numbers as numeric text, booleans as true or false,
string lists as a,b,c, objects as JSON.

Options:
  --url URL       the application's command interface (default ${SEND_DEFAULT_URL})
  --config FILE   take the address from the mapping file's app.url
  --unlisted      send a command the catalogue lacks (values: true/false, numbers and JSON keep
                  their type)
  --all           send a command that acts on everything when its target is left out, on purpose
                  (schedule without id or title: every title); refused without it, as in a binding
  --yes           send a command a binding sends only after a hold to confirm (destructive on air:
                  stopStreaming, closeProject, clearPlaylist, deleteTitle, replay_disarm_inputs)

Examples:
  panelbridge send getAllVideoIns
  panelbridge send schedule action=animateIn 'title=Lower Third'
  panelbridge send switchVideoIn channel=0 'video=Camera 2' --url http://10.0.0.5:9022
  panelbridge send replay_arm_inputs 'inputs=Camera 1,Camera 2'
  panelbridge send schedule action=animateOut --all
  panelbridge send getPlayStatus 'title=Lower Third' --config /etc/panelbridge/config.yaml

Exit codes: 0 the application answered, 1 it answered with an error or could not be reached,
2 bad command line (unknown command or parameter, a value of the wrong type, a command that
needs --all or --yes without it: nothing is sent).
`

class UsageError extends Error {}

/** A catalogue parameter's value from its command-line text. */
function typedValue(key: string, spec: ParamSpec | undefined, raw: string): unknown {
  switch (spec?.type) {
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw
    case 'string[]':
      return raw === '' ? [] : raw.split(',')
    case 'object':
      try {
        return JSON.parse(raw) as unknown
      } catch {
        throw new UsageError(`parameter ${key} takes a JSON object, e.g. ${key}='{"Home Score":"2"}'`)
      }
    case 'number':
    case 'string':
    case undefined:
      // Numbers stay numeric text: the catalogue's check converts it (and refuses anything else).
      return raw
  }
}

/** A value for a command the catalogue lacks: booleans, numbers and JSON keep their type. */
function unlistedValue(key: string, raw: string): unknown {
  if (raw === 'true' || raw === 'false') return raw === 'true'
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw)
  if (raw.startsWith('{') || raw.startsWith('[')) {
    try {
      return JSON.parse(raw) as unknown
    } catch {
      throw new UsageError(`parameter ${key} looks like JSON but is not: ${raw.slice(0, 40)}`)
    }
  }
  return raw
}

interface SendLine {
  command: string
  params: Record<string, unknown>
  url: string | undefined
  config: string | undefined
  unlisted: boolean
}

/**
 * The mapping file's safety rules, for one command line: a command that acts on everything without its
 * target needs `--all` (the binding's `all: true`, by the same rule: `targetAllFinding`), and a command
 * a binding sends only after a hold to confirm needs `--yes`. Throws the reason.
 */
function checkSafety(command: string, params: Record<string, unknown>, all: boolean, yes: boolean): void {
  const finding = targetAllFinding(command, params, all)
  switch (finding.kind) {
    case 'all-not-everything':
      throw new UsageError(`--all: ${command} does not act on everything; remove --all`)
    case 'all-with-target':
      throw new UsageError(
        `--all sends ${command} to everything, without ${finding.named.join(' or ')}: ` +
          `remove ${finding.named.join(' and ')}, or --all to name one`,
      )
    case 'needs-all':
      throw new UsageError(
        `${command} without ${finding.targets.join(' or ')} acts on everything: ` +
          `name its ${finding.targets.at(-1)!}, or add --all to mean everything`,
      )
    case 'ok':
      break
  }
  if (CONFIRM_COMMANDS.has(command) && !yes)
    throw new UsageError(
      `${command} is destructive on air (a binding sends it only after a hold to confirm): add --yes to send it`,
    )
}

function readLine(argv: readonly string[]): SendLine {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      url: { type: 'string' },
      config: { type: 'string' },
      unlisted: { type: 'boolean' },
      all: { type: 'boolean' },
      yes: { type: 'boolean' },
    },
  })
  const [command, ...pairs] = positionals
  if (command === undefined) throw new UsageError('send needs the command to send')
  if (values.url !== undefined && values.config !== undefined) throw new UsageError('give --url or --config, not both')
  if (values.url !== undefined && !/^https?:\/\/[^/]/.test(values.url))
    throw new UsageError('--url must be an http:// URL')
  const spec = getCommandSpec(command)
  const unlisted = values.unlisted === true
  if (spec === undefined && !unlisted)
    throw new UsageError(`unknown command '${command}' (not in the catalogue; --unlisted sends it anyway)`)
  const params: Record<string, unknown> = {}
  for (const pair of pairs) {
    const at = pair.indexOf('=')
    if (at <= 0) throw new UsageError(`'${pair}' is not key=value`)
    const key = pair.slice(0, at)
    if (Object.hasOwn(params, key)) throw new UsageError(`parameter ${key} is given twice`)
    const raw = pair.slice(at + 1)
    const p = spec && Object.hasOwn(spec.params, key) ? spec.params[key] : undefined
    Object.defineProperty(params, key, {
      value: spec ? typedValue(key, p, raw) : unlistedValue(key, raw),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  if (spec) {
    const problems = checkParams(command, params)
    if (problems.length > 0)
      throw new UsageError(
        problems.map((p) => `${command}: ${p.message}${p.kind === 'type' ? ` (got ${p.given})` : ''}`).join('\n'),
      )
  }
  checkSafety(command, params, values.all === true, values.yes === true)
  return { command, params, url: values.url, config: values.config, unlisted: unlisted && spec === undefined }
}

/** `send` with its seams: the subcommand runs this with stdout and stderr. */
export async function runSend(argv: readonly string[], deps: SendDeps = DEFAULT_DEPS): Promise<number> {
  let line: SendLine
  try {
    line = readLine(argv)
  } catch (err) {
    deps.err(`panelbridge send: ${usageMessage('send', err)}`)
    deps.err(`Run 'panelbridge send --help' for usage.`)
    return 2
  }
  let url = line.url ?? SEND_DEFAULT_URL
  if (line.config !== undefined) {
    const { config, problems } = await loadConfigFile(line.config)
    if (!config) {
      for (const p of problems) deps.err(formatProblem(p))
      deps.err(`panelbridge send: ${line.config} is refused; its app.url cannot be used`)
      return 1
    }
    // With apps:, the default application's (issue 27); app: alone, its url as before.
    url = defaultAppSection(config).url
  }
  const client = new CommandClient({ baseUrl: url, connections: 1 })
  try {
    const result = await client.callByName(line.command, line.params, { unlisted: line.unlisted })
    deps.out(`${JSON.stringify(result.raw, null, 2)}\n`)
    return 0
  } catch (err) {
    const code = isCommandError(err) ? err.code : undefined
    deps.err(`panelbridge send: ${err instanceof Error ? err.message : String(err)}${code ? ` [${code}]` : ''}`)
    if (code === 'CONNECTION_REFUSED') deps.err(`nothing answers at ${url}: is the application running?`)
    return code === 'BAD_PARAMS' ? 2 : 1
  } finally {
    await client.close()
  }
}

export const sendCommand: Subcommand = {
  usage: 'send COMMAND [key=value ...] [--all] [--yes]',
  summary: 'send one command to the application and print its reply as JSON',
  help: HELP,
  run: (argv) => runSend(argv),
}
