/**
 * `panelbridge replay FILE [--config FILE] [--speed 1|2|max] [--against sim|URL] [--yes] [--compare]`:
 * a recording (`run --record`) played into the real engine (src/replay/drive.ts), each command it
 * produces printed; `--compare` sets them against the ones the trace recorded (src/replay/compare.ts)
 * and exits 1 when they differ: a mapping change becomes a reviewable diff before the show.
 *
 * Against the built-in simulator by default; `--against URL` acts on a real application, so it is
 * refused without `--yes`.
 */
import { existsSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { defaultConfigPath } from '../daemon/daemon.js'
import { createLogger } from '../log.js'
import { formatProblem, loadConfigFile } from '../mappings/load.js'
import type { SentCommand } from '../mappings/sender.js'
import { redactText } from '../redact.js'
import { compareRuns, formatDifference, paramsText, runsOf } from '../replay/compare.js'
import { replayTrace, type ReplayedCommand, type ReplaySpeed } from '../replay/drive.js'
import { readTrace } from '../replay/trace.js'
import { usageFailure, UsageError } from './args.js'
import { EXIT, type Subcommand } from './subcommand.js'

const log = createLogger('replay')

/** A command's parameters in a printed line are cut to this many characters. */
const PRINT_MAX_PARAMS_CHARS = 400

interface ReplayArgs {
  file: string
  config: string | undefined
  speed: ReplaySpeed
  against: string
  compare: boolean
}

function parse(argv: readonly string[]): ReplayArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string' },
      speed: { type: 'string' },
      against: { type: 'string' },
      yes: { type: 'boolean' },
      compare: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  })
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0 ? 'which trace? replay FILE' : `unexpected argument '${positionals[1]}'`,
    )
  const speedText = values.speed ?? '1'
  if (speedText !== '1' && speedText !== '2' && speedText !== 'max')
    throw new UsageError(`--speed is 1, 2 or max, not '${speedText}'`)
  const against = values.against ?? 'sim'
  if (against !== 'sim') {
    let url: URL
    try {
      url = new URL(against)
    } catch {
      throw new UsageError(`--against is sim or an http:// URL, not '${against}'`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new UsageError(`--against is sim or an http:// URL, not '${against}'`)
    if (values.yes !== true)
      throw new UsageError(`--against ${against} acts on a real application: add --yes to replay into it`)
  }
  return {
    file: positionals[0]!,
    config: values.config,
    speed: speedText === 'max' ? 'max' : speedText === '2' ? 2 : 1,
    against: against === 'sim' ? 'sim' : against.replace(/\/$/, ''),
    compare: values.compare === true,
  }
}

/** One command produced, as `run --trace` prints one. */
function line(c: SentCommand): string {
  let params = redactText(paramsText(c.params))
  if (params.length > PRINT_MAX_PARAMS_CHARS) params = `${params.slice(0, PRINT_MAX_PARAMS_CHARS)}…`
  return `${JSON.stringify(c.origin)} ${c.command} ${params} ${c.outcome} ${c.durationMs} ms\n`
}

export const replayCommand: Subcommand = {
  usage: 'replay FILE [--config FILE] [--speed 1|2|max] [--against sim|URL --yes] [--compare]',
  summary: 'play a recording (run --record) into the engine; --compare: diff its commands against the recorded ones',
  help: `panelbridge replay — a recording's control input played into the engine, each command printed

Usage:
  panelbridge replay FILE [--config FILE] [--speed 1|2|max] [--against sim|URL --yes] [--compare]

FILE is a trace written by \`panelbridge run --record FILE\` (one JSON line per input, command and
page change). The inputs go into the real engine with their recorded spacing; the commands they
produce go to the built-in simulator (a fresh one on free ports) and are printed one a line.

Options:
  --config FILE   the mapping to replay with (default: the one the trace names, when it exists,
                  else the daemon's default); replay last week's trace with this week's mapping
                  to review it
  --speed S       1 (as recorded, the default), 2 (twice as fast: holds shorter than twice their
                  time become presses) or max (no idle time: only held presses and the jog's rests
                  keep their time)
  --against T     sim (the default) or the application's URL: that acts on a real application, and
                  is refused without --yes
  --yes           replay into a real application (--against URL)
  --compare       set the commands produced against the recorded ones, binding by binding, and
                  print every difference (changed: before → after, gone, new, order; outcome:
                  the same command went through on one side and failed on the other) and how
                  many of each side were compared; the jog's positions count by the last of
                  each run, the streaming poll not at all. Exit 1 when they differ, or when
                  lines of the trace were skipped (they were not compared)

Examples:
  panelbridge replay show.jsonl --speed max
  panelbridge replay show.jsonl --config new-show.yaml --speed max --compare
  panelbridge replay show.jsonl --against http://gfx-box:9022 --yes

Exit codes: 0 replayed (and, with --compare, the same commands, every line read), 1 could not
replay, the commands differ, or lines were skipped under --compare, 2 bad command line.
`,
  async run(argv) {
    let args: ReplayArgs
    try {
      args = parse(argv)
    } catch (err) {
      return usageFailure('replay', err instanceof Error ? err.message : String(err))
    }
    return replay(args)
  },
}

async function replay(args: ReplayArgs): Promise<number> {
  let trace
  try {
    trace = await readTrace(args.file)
  } catch (err) {
    process.stderr.write(`panelbridge: ${args.file}: ${err instanceof Error ? err.message : String(err)}\n`)
    return EXIT.failure
  }
  if (trace.skipped > 0)
    process.stderr.write(`panelbridge: ${args.file}: ${trace.skipped} lines skipped (not records)\n`)
  const configFile =
    args.config ?? (trace.config !== undefined && existsSync(trace.config) ? trace.config : defaultConfigPath().path)
  const loaded = await loadConfigFile(configFile)
  if (!loaded.config) {
    for (const p of loaded.problems) if (p.severity === 'error') process.stderr.write(`${formatProblem(p)}\n`)
    process.stderr.write(`panelbridge: ${configFile}: refused\n`)
    return EXIT.failure
  }
  process.stderr.write(
    `replaying ${trace.inputs.length} inputs from ${args.file} with ${configFile} against ${args.against === 'sim' ? 'the built-in simulator' : args.against}\n`,
  )
  const ac = new AbortController()
  const stop = (): void => ac.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  let produced: ReplayedCommand[]
  try {
    produced = await replayTrace({
      config: loaded.config,
      inputs: trace.inputs,
      pages: trace.pages,
      speed: args.speed,
      against: args.against,
      log,
      signal: ac.signal,
      onCommand: (c) => void process.stdout.write(line(c)),
    })
  } catch (err) {
    process.stderr.write(`panelbridge: cannot replay: ${err instanceof Error ? err.message : String(err)}\n`)
    return EXIT.failure
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
  if (!args.compare) return EXIT.ok
  const runs = runsOf(trace.inputs, trace.commands)
  const recorded = trace.commands.map((c, i) => ({ ...c, run: runs[i]! }))
  const { differences, compared } = compareRuns(recorded, produced)
  // Both sides counted by the same rules: what was set against each other, not every line sent.
  const skipped = `${trace.skipped} line${trace.skipped === 1 ? '' : 's'} skipped`
  const counted = `${compared.recorded} recorded, ${compared.replayed} replayed, ${skipped} (commands compared: streaming polls left out, each run of jog positions counted by its last)`
  if (differences.length === 0 && trace.skipped === 0) {
    process.stdout.write(`same commands: ${counted}\n`)
    return EXIT.ok
  }
  if (differences.length === 0) {
    // Lines that were not records were not compared: never called the same.
    process.stdout.write(`not compared in full: ${counted}; no difference in what was read\n`)
    return EXIT.failure
  }
  process.stdout.write(`${differences.length} difference${differences.length === 1 ? '' : 's'} in ${counted}:\n`)
  for (const d of differences) process.stdout.write(`${redactText(formatDifference(d))}\n`)
  return EXIT.failure
}
