/**
 * `panelbridge check FILE...`: every problem of each mapping file on stdout as `file:line:col: message`,
 * then a summary line per file; `--format json` prints one JSON document instead (for CI). Besides the
 * loader's checks: the rules of `listen:` that `run` applies (`applyListenRules`), a warning when an
 * absolute `record.file` is where the packaged service may not write (`service-sandbox.ts`), and with
 * `--app URL` the titles and inputs the file names, looked up in the running application (`check-app.ts`).
 *
 * Exit codes: 0 every file loads (warnings allowed), 1 a file is refused, 2 bad command line, 3 the
 * application of `--app` could not be reached (the files were checked without it).
 */
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { LineCounter, parseDocument } from 'yaml'
import { CLIENT_DEFAULTS } from '../api/client.js'
import { applyListenRules } from '../daemon/listen-rules.js'
import { serviceRecordProblem } from '../daemon/service-sandbox.js'
import { namesInConfig, type NameKind, type NameUse } from '../mappings/config-names.js'
import { formatProblem, loadConfigFile, type ConfigProblem } from '../mappings/load.js'
import { pathText, Problems } from '../mappings/problems.js'
import type { Config } from '../mappings/schema.js'
import { UsageError, usageFailure } from './args.js'
import { appProblems, AppUnreachableError, readAppNames, type AppNames } from './check-app.js'
import { EXIT, type Subcommand } from './subcommand.js'
import { CONFIG_LIMITS } from '../mappings/limits.js'

/** The most files one `check` takes (each is read whole, up to CONFIG_LIMITS.fileBytes). */
const MAX_CHECK_FILES = 256

export type CheckFormat = 'text' | 'json'

export interface CheckCommandLine {
  kind: 'check'
  files: string[]
  format: CheckFormat
  /** `--app URL`: look the file's names up in this application (read-only). */
  app?: string
}

/** `--app`'s value: an http(s) URL. */
function appUrlArg(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(`--app must be an http:// URL, got '${raw}'`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--app must be an http:// URL, got '${raw}'`)
  return raw.replace(/\/+$/, '')
}

/** Reads `check`'s arguments (after `check`). Never throws. */
export function parseCheckArgs(argv: readonly string[]): CheckCommandLine | { kind: 'error'; message: string } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { app: { type: 'string' }, format: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    })
    if (positionals.length === 0) throw new UsageError('check needs the mapping file to check')
    if (positionals.length > MAX_CHECK_FILES) throw new UsageError(`check takes at most ${MAX_CHECK_FILES} files`)
    const format = values.format ?? 'text'
    if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, got '${format}'`)
    return {
      kind: 'check',
      files: positionals,
      format,
      ...(values.app !== undefined ? { app: appUrlArg(values.app) } : {}),
    }
  } catch (err) {
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  }
}

/** One file's verdict. */
export interface FileReport {
  path: string
  ok: boolean
  problems: ConfigProblem[]
  /** The summary line's words after `FILE: `. */
  summary: string
}

/** What `--app` found, once for all the files. */
type AppOutcome = { url: string; names: AppNames } | { url: string; unreachable: string }

/** Places problems of a loaded file at their nodes (the file is read again: the loader keeps no document). */
async function locator(file: string): Promise<Problems> {
  const lines = new LineCounter()
  try {
    const bytes = await readFile(file)
    if (bytes.length <= CONFIG_LIMITS.fileBytes) {
      const doc = parseDocument(bytes.toString('utf8'), { lineCounter: lines, prettyErrors: false })
      return new Problems(file, doc, lines)
    }
  } catch {
    // Changed since it loaded: the problems go to 1:1 rather than nowhere.
  }
  return new Problems(file, undefined, lines)
}

/**
 * The problems of a loaded file beyond the loader's: `listen:`'s rules, a record file the packaged
 * service may not write, and the names `--app` lacks.
 */
async function moreProblems(file: string, config: Config, uses: readonly NameUse[], app?: AppOutcome) {
  const placed = await locator(file)
  const listen = await applyListenRules(config.listen)
  // At the key of `listen:` the rule is about (a host left to its default is loopback: never a problem).
  for (const p of listen.problems) placed.add(['listen'], 'error', p.message, p.key)
  const record = config.record && serviceRecordProblem(config.record.file)
  if (record) placed.add(['record'], 'warning', record, 'file')
  if (app && 'names' in app)
    for (const p of appProblems(uses, app.names)) placed.add(p.path, 'error', `${pathText(p.path)}: ${p.message}`)
  return placed.finish()
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** A file as the loader left it. */
interface Loaded {
  file: string
  config?: Config | undefined
  problems: ConfigProblem[]
}

/** One loaded file, with the checks that need a loaded file. */
async function report({ file, config, problems: loaded }: Loaded, app?: AppOutcome): Promise<FileReport> {
  const extra = config ? await moreProblems(file, config, namesInConfig(config), app) : []
  const problems = [...loaded, ...extra].sort((a, b) => a.line - b.line || a.col - b.col)
  const errors = problems.filter((p) => p.severity === 'error').length
  const warnings = problems.length - errors
  if (!config || errors > 0)
    return {
      path: file,
      ok: false,
      problems,
      summary: `refused: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`,
    }
  const surfaces = Object.keys(config.surfaces).length
  const checked = app && 'names' in app ? `, names found at ${app.url}` : ''
  return {
    path: file,
    ok: true,
    problems,
    summary:
      `ok: ${plural(config.bindings.length, 'binding')} on ${plural(surfaces, 'surface')}` +
      `${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}${checked}`,
  }
}

/** Asks the application, once, for the kinds of names the loaded files give. */
async function askApp(files: readonly Loaded[], url: string): Promise<AppOutcome> {
  const wanted = new Set<NameKind>()
  for (const { config } of files) for (const use of config ? namesInConfig(config) : []) wanted.add(use.kind)
  try {
    return { url, names: await readAppNames(url, wanted, CLIENT_DEFAULTS.timeoutMs) }
  } catch (err) {
    if (err instanceof AppUnreachableError) return { url, unreachable: err.message }
    throw err
  }
}

/** Why `--app` looked no name up in a file the loader refused: there is no loaded file to take names from. */
const NOT_LOOKED_UP = 'the file is refused before its names can be read; fix the errors above and check again'

/** The files whose names `--app` did not look up (the application answered; the loader refused them). */
function notLookedUp(loaded: readonly Loaded[], app: AppOutcome | undefined): string[] {
  return app && 'names' in app ? loaded.filter((l) => !l.config).map((l) => l.file) : []
}

/** The JSON document of `--format json`. */
function jsonReport(reports: readonly FileReport[], app: AppOutcome | undefined, skipped: readonly string[]): string {
  const doc = {
    ok: reports.every((r) => r.ok) && !(app && 'unreachable' in app),
    files: reports.map((r) => ({ path: r.path, ok: r.ok, problems: r.problems })),
    ...(app
      ? {
          app:
            'names' in app
              ? {
                  url: app.url,
                  reachable: true,
                  notes: app.names.notes,
                  notLookedUp: skipped.map((path) => ({ path, reason: NOT_LOOKED_UP })),
                }
              : { url: app.url, reachable: false, error: app.unreachable },
        }
      : {}),
  }
  return `${JSON.stringify(doc, null, 2)}\n`
}

/** A file this user may not read (the packaged /etc/panelbridge/config.yaml is root's and the service's). */
function unreadableForUser(r: FileReport): boolean {
  return r.problems.some((p) => /^cannot read the file: (EACCES|EPERM):/.test(p.message))
}

/**
 * Checks each file: its problems, then `FILE: ok: ...` or `FILE: refused: ...` (or one JSON document).
 * 1 when a file is refused, else 3 when `--app` could not be reached, else 0.
 */
export async function runCheck(
  cmd: Omit<CheckCommandLine, 'kind'>,
  out: (text: string) => void,
  err: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<number> {
  const loaded: Loaded[] = []
  for (const file of cmd.files) loaded.push({ file, ...(await loadConfigFile(file)) })
  const app = cmd.app === undefined ? undefined : await askApp(loaded, cmd.app)
  const reports: FileReport[] = []
  for (const l of loaded) reports.push(await report(l, app))
  const skipped = notLookedUp(loaded, app)
  if (cmd.format === 'json') out(jsonReport(reports, app, skipped))
  else {
    for (const r of reports) out(`${r.problems.map((p) => `${formatProblem(p)}\n`).join('')}${r.path}: ${r.summary}\n`)
    if (app && 'names' in app) for (const note of app.names.notes) out(`check --app: ${note}\n`)
    for (const file of skipped) out(`check --app: ${file}: names not looked up: ${NOT_LOOKED_UP}\n`)
  }
  if (app && 'unreachable' in app) err(`panelbridge: check --app: ${app.unreachable}\n`)
  for (const r of reports)
    if (unreadableForUser(r))
      err(`panelbridge: cannot read ${r.path}: permission denied; try: sudo panelbridge check ${r.path}\n`)
  if (reports.some((r) => !r.ok)) return EXIT.failure
  return app && 'unreachable' in app ? EXIT.appUnreachable : EXIT.ok
}

export const checkCommand: Subcommand = {
  usage: 'check [--app URL] [--format text|json] FILE...',
  summary: 'check mapping files: every problem as file:line:col (exit 1 on errors)',
  help: `panelbridge check — check mapping files without running anything

Usage:
  panelbridge check [--app URL] [--format text|json] FILE...

Prints every problem as FILE:LINE:COL: message (errors and warnings), then one line per file: ok,
with the number of bindings and surfaces, or refused, with the number of errors. Besides the file's
own checks, the rules of listen: that run applies (a host beyond loopback needs a token, token or
token_file but not both, a token_file that can be read).

Options:
  --app URL       also look up the titles, video inputs and replay inputs the files name in the
                  application at URL (e.g. http://127.0.0.1:9022), each one it lacks an error with
                  the nearest name it has. Read-only: it only lists titles and inputs. A file
                  refused for its other errors has no names to read: a line says so
  --format FMT    text (default), or json: one JSON document for CI, {ok, files: [{path, ok,
                  problems: [{file, line, col, severity, message}]}], app: {url, reachable}}

Examples:
  sudo panelbridge check /etc/panelbridge/config.yaml   (the installed file is the service's)
  panelbridge check --app http://127.0.0.1:9022 config.yaml
  panelbridge check --format json config/*.yaml

Exit codes: 0 every file loads (warnings allowed), 1 a file is refused, 2 bad command line,
3 the application of --app could not be reached (the files were checked without it).
`,
  run(argv) {
    const cmd = parseCheckArgs(argv)
    if (cmd.kind === 'error') return Promise.resolve(usageFailure('check', cmd.message))
    return runCheck(cmd, (text) => void process.stdout.write(text))
  },
}
