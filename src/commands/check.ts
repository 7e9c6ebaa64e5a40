/**
 * `panelbridge check FILE`: every problem of a mapping file on stdout as `file:line:col: message`, then
 * a summary line. Exit codes: 0 the file loads (warnings allowed), 1 it is refused, 2 bad command line.
 */
import { parseArgs } from 'node:util'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import { UsageError, usageFailure } from './args.js'
import { EXIT_FAILURE, EXIT_OK, type Subcommand } from './subcommand.js'

export interface CheckCommandLine {
  kind: 'check'
  file: string
}

/** Reads `check`'s arguments (after `check`). Never throws. */
export function parseCheckArgs(argv: readonly string[]): CheckCommandLine | { kind: 'error'; message: string } {
  try {
    // No options: any option given is named in the refusal rather than parseArgs's generic one.
    const { tokens } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, tokens: true })
    const option = tokens.find((t) => t.kind === 'option')
    if (option?.kind === 'option') throw new UsageError(`--${option.name} is not an option of 'check'`)
    const [file, ...extra] = tokens.flatMap((t) => (t.kind === 'positional' ? [t.value] : []))
    if (file === undefined) throw new UsageError('check needs the mapping file to check')
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`)
    return { kind: 'check', file }
  } catch (err) {
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  }
}

/** Checks the file: its problems, then `FILE: ok: ...` or `FILE: refused: ...`; 0 when it loads. */
export async function runCheck(file: string, out: (text: string) => void): Promise<number> {
  const { config, problems } = await loadConfigFile(file)
  for (const p of problems) out(`${formatProblem(p)}\n`)
  const errors = problems.filter((p) => p.severity === 'error').length
  const warnings = problems.length - errors
  if (!config) {
    out(
      `${file}: refused: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
    )
    return EXIT_FAILURE
  }
  const surfaces = Object.keys(config.surfaces).length
  out(
    `${file}: ok: ${config.bindings.length} bindings on ${surfaces} surface${surfaces === 1 ? '' : 's'}` +
      `${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}\n`,
  )
  return EXIT_OK
}

export const checkCommand: Subcommand = {
  usage: 'check FILE',
  summary: 'check a mapping file: every problem as file:line:col (exit 1 on errors)',
  help: `panelbridge check — check a mapping file without running anything

Usage:
  panelbridge check FILE

Prints every problem as FILE:LINE:COL: message (errors and warnings), then one line: ok, with the
number of bindings and surfaces, or refused, with the number of errors.

Examples:
  panelbridge check /etc/panelbridge/config.yaml

Exit codes: 0 the file loads (warnings allowed), 1 it is refused, 2 bad command line.
`,
  run(argv) {
    const cmd = parseCheckArgs(argv)
    if (cmd.kind === 'error') return Promise.resolve(usageFailure('check', cmd.message))
    return runCheck(cmd.file, (text) => void process.stdout.write(text))
  },
}
