/**
 * `panelbridge run [--config FILE] [--rehearse] [--trace] [--record FILE]`: the daemon. Without `--config`, the system config when it exists,
 * else the bundled default (the simulator and a web console); the first log line says which.
 *
 * SIGINT and SIGTERM stop it through one idempotent path (surfaces blanked, links closed) within
 * STOP_BOUND_MS (`untilStopped`, as every long-running command); SIGHUP reloads the config. Exit codes: 0 stopped
 * cleanly, 1 could not start for another reason or a stop past its bound, 2 bad command line, 78 (EXIT.config)
 * could not start because of the configuration (refused, or a port it names taken or not allowed).
 */
import { parseArgs } from 'node:util'
import { Daemon, DaemonConfigError, defaultConfigPath } from '../daemon/daemon.js'
import { SYSTEM_CONFIG } from '../defaults.js'
import { createLogger } from '../log.js'
import { usageFailure } from './args.js'
import { EXIT, type Subcommand } from './subcommand.js'
import { holdSignalsWhileStarting, untilStopped } from './until-stopped.js'
import { traceTo, traceWanted, TRACE } from '../daemon/trace.js'
import { DEFAULT_RECORD_MAX_MB, recordWanted, type RecordWanted } from '../daemon/recorder.js'

const log = createLogger('run')

/** A start that failed on the configuration (EXIT.config: systemd does not restart it), else EXIT.failure. */
export function startFailureExit(err: unknown): number {
  if (err instanceof DaemonConfigError) return EXIT.config
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code
    if ((e as NodeJS.ErrnoException).syscall === 'listen' && code !== undefined && LISTEN_CONFIG_CODES.has(code))
      return EXIT.config
  }
  return EXIT.failure
}

/** A listen that fails on these fails on the address the file names: taken, not allowed, not this machine's. */
const LISTEN_CONFIG_CODES = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'])

export const runCommand: Subcommand = {
  usage: 'run [--config FILE] [--rehearse] [--trace] [--record FILE [--record-max-mb N]]',
  summary: 'run the daemon (default config: /etc/panelbridge/config.yaml, else the simulator demo)',
  help: `panelbridge run — the daemon: surfaces, bindings, the application link, the page, the remote API

Usage:
  panelbridge run [--config FILE] [--rehearse] [--trace] [--record FILE [--record-max-mb N]]

Options:
  --config FILE   the mapping file (default: ${SYSTEM_CONFIG} when it exists, else the
                  bundled config/default.yaml: the built-in simulator and a web console at
                  http://127.0.0.1:8088/)
  --rehearse      configured hardware that is not plugged in takes presses from the page and the
                  remote API, to rehearse a show (as rehearse: true on every such surface)
  --trace         print each command sent and its outcome on one line (stdout), for
                  commissioning: control, command, parameters (secrets as ***), outcome, ms;
                  also ${TRACE.env}=1
  --record FILE   write every control input, command sent and page change to FILE, one JSON line
                  each, for panelbridge replay (overrides the config's record:)
  --record-max-mb N
                  rotate the recording past N MB (default ${DEFAULT_RECORD_MAX_MB}; FILE.1 .. FILE.3 kept)

Signals: SIGHUP reloads the config (so does saving the file); SIGINT and SIGTERM stop.

Examples:
  panelbridge run
  panelbridge run --config /etc/panelbridge/config.yaml
  panelbridge run --config show.yaml --rehearse
  panelbridge run --config show.yaml --trace

Exit codes: 0 stopped cleanly, 1 could not start, 2 bad command line, ${EXIT.config} the configuration
stops the start (the file refused, a port it names taken): starting again will not help.
`,
  async run(argv) {
    let config: string
    let why: string
    let rehearse: boolean
    let trace: boolean
    let record: RecordWanted | undefined
    try {
      const { values, positionals } = parseArgs({
        args: [...argv],
        options: {
          config: { type: 'string' },
          rehearse: { type: 'boolean' },
          trace: { type: 'boolean' },
          record: { type: 'string' },
          'record-max-mb': { type: 'string' },
        },
        strict: true,
        allowPositionals: true,
      })
      if (positionals.length > 0) throw new Error(`unexpected argument '${positionals[0]}'`)
      rehearse = values.rehearse === true
      trace = traceWanted(values.trace === true)
      record = recordWanted(values.record, values['record-max-mb'])
      if (values.config !== undefined) {
        config = values.config
        why = '--config'
      } else ({ path: config, why } = defaultConfigPath())
    } catch (err) {
      return usageFailure('run', err instanceof Error ? err.message : String(err))
    }
    log.info(`config: ${config} (${why})`, { config })
    // From here on a signal is never met by Node's default (see holdSignalsWhileStarting).
    const held = holdSignalsWhileStarting(log)
    let daemon: Daemon
    try {
      daemon = await Daemon.start({
        config,
        rehearse,
        ...(record ? { record } : {}),
        ...(trace ? { onCommand: traceTo((text) => void process.stdout.write(text)) } : {}),
      })
    } catch (err) {
      held.drop()
      if (err instanceof DaemonConfigError) {
        for (const line of err.errors) process.stderr.write(`${line}\n`)
        process.stderr.write(
          `panelbridge: ${config}: refused (${err.errors.length} error${err.errors.length === 1 ? '' : 's'})\n`,
        )
      } else {
        process.stderr.write(`panelbridge: cannot start: ${err instanceof Error ? err.message : String(err)}\n`)
      }
      return startFailureExit(err)
    }
    // SIGHUP reloads until the stop begins; from then on it is logged and ignored (until-stopped.ts). Its
    // listeners are added as it is called, before the held signals are raised again and before the line
    // that tells a watching process it may signal.
    const stopped = untilStopped(() => daemon.stop(), { log, onHangup: () => void daemon.reload() })
    held.release()
    process.stdout.write(`panelbridge running: ${daemon.url}\n`)
    return stopped
  },
}
