/**
 * `panelbridge sim`: the application simulator on its own (HTTP command interface and QWebChannel
 * WebSocket), playing one application profile (`config/app-profiles/`, `--profile NAME`).
 *
 * SIGINT and SIGTERM stop it within STOP_BOUND_MS (`untilStopped`). Exit codes: 0 stopped cleanly (or the profiles
 * listed), 1 could not start (e.g. the port is taken), 2 bad command line (an unknown profile included).
 */
import { parseArgs } from 'node:util'
import { APP_DEFAULT_PORTS, SIM_ASSUMED_DEFAULTS } from '../api/protocol.js'
import { DEFAULT_LISTEN_HOST } from '../defaults.js'
import { createLogger } from '../log.js'
import { writeFile } from 'node:fs/promises'
import type { SimulatorHandle } from '../app-kit/simulator/index.js'
import type { SimProfile } from '../app-kit/simulator/profile.js'
import { listenRefusal, refusalCause } from '../listen-refusal.js'
import { portArg, UsageError, usageFailure, wholeNumberArg } from './args.js'
import type { Subcommand } from './subcommand.js'
import { untilStopped } from './until-stopped.js'

const log = createLogger('cli')

export interface SimCommandLine {
  kind: 'sim'
  httpPort: number
  wsPort: number
  host: string
  dataDir?: string
  animationMs: number
  logCommands?: string
  /** A profile name, checked against the shipped ones when the simulator's modules are loaded. */
  profile?: string
  /** A `panelbridge probe --out` capture to play: the profile it shows (facts not seen: the default's). */
  replayCapture?: string
  /** With `replayCapture`: write that profile as a `config/app-profiles/` YAML file here and exit. */
  writeProfile?: string
}

export type SimParse = SimCommandLine | { kind: 'list-profiles' } | { kind: 'error'; message: string }

/** Reads `sim`'s arguments (after `sim`). Never throws. */
export function parseSimArgs(argv: readonly string[]): SimParse {
  try {
    return readSimArgs(argv)
  } catch (err) {
    // parseArgs's own errors (unknown option, missing value) and ours (UsageError) alike.
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) }
  }
}

function readSimArgs(argv: readonly string[]): SimParse {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      'ws-port': { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      'animation-ms': { type: 'string' },
      'log-commands': { type: 'string' },
      profile: { type: 'string' },
      'list-profiles': { type: 'boolean' },
      'replay-capture': { type: 'string' },
      'write-profile': { type: 'string' },
      // Known only to say whose option it is.
      'no-hardware': { type: 'boolean' },
    },
  })
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`)
  if (values['no-hardware'] !== undefined)
    throw new UsageError(`--no-hardware is an option of 'surfaces', not of 'sim'`)
  const host = values.host ?? DEFAULT_LISTEN_HOST
  if (host.trim() === '') throw new UsageError('--host must not be empty')
  if (values.profile !== undefined && values.profile.trim() === '') throw new UsageError('--profile must not be empty')
  if (values.profile !== undefined && values['replay-capture'] !== undefined)
    throw new UsageError('--profile and --replay-capture name the application twice: give one')
  if (values['write-profile'] !== undefined && values['replay-capture'] === undefined)
    throw new UsageError('--write-profile writes the profile of a capture: give --replay-capture FILE too')
  const cmd: SimCommandLine = {
    kind: 'sim',
    httpPort: portArg(values.port, APP_DEFAULT_PORTS.http, '--port'),
    wsPort: portArg(values['ws-port'], APP_DEFAULT_PORTS.ws, '--ws-port'),
    host,
    animationMs: wholeNumberArg(values['animation-ms'], SIM_ASSUMED_DEFAULTS.animationMs, '--animation-ms'),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
    ...(values['log-commands'] !== undefined ? { logCommands: values['log-commands'] } : {}),
    ...(values.profile !== undefined ? { profile: values.profile } : {}),
    ...(values['replay-capture'] !== undefined ? { replayCapture: values['replay-capture'] } : {}),
    ...(values['write-profile'] !== undefined ? { writeProfile: values['write-profile'] } : {}),
  }
  return values['list-profiles'] === true ? { kind: 'list-profiles' } : cmd
}

/** `--list-profiles`: one line per profile, the name padded, then its summary (the default says so). */
export function profileList(profiles: readonly { name: string; summary: string }[], defaultName: string): string {
  const width = Math.max(...profiles.map((p) => p.name.length)) + 2
  return profiles
    .map((p) => `${p.name.padEnd(width)}${p.summary}${p.name === defaultName ? ' (default)' : ''}\n`)
    .join('')
}

function usage(message: string): number {
  return usageFailure('sim', message)
}

async function runSim(argv: readonly string[]): Promise<number> {
  const cmd = parseSimArgs(argv)
  if (cmd.kind === 'error') return usage(cmd.message)
  // Loaded here, not at the top: every other subcommand starts without the simulator's modules.
  const profiles = await import('../app-kit/simulator/profile.js')
  let all: ReadonlyMap<string, { name: string; summary: string }>
  try {
    all = profiles.loadProfiles()
  } catch (err) {
    // A shipped file that cannot be read (ProfileError names it at its line): not the user's command line.
    process.stderr.write(`panelbridge: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  }
  const names = profiles.profileNames()
  if (cmd.kind === 'list-profiles') {
    process.stdout.write(
      profileList(
        names.map((n) => all.get(n)!),
        profiles.DEFAULT_PROFILE,
      ),
    )
    return 0
  }
  let profile: SimProfile | string = cmd.profile ?? profiles.DEFAULT_PROFILE
  if (cmd.replayCapture !== undefined) {
    const fromCapture = await profileOfCapture(cmd.replayCapture, cmd.writeProfile)
    if (typeof fromCapture === 'number') return fromCapture
    profile = fromCapture
  } else if (!all.has(profile)) {
    return usage(`no application profile named ${profile} (known: ${names.join(', ')})`)
  }
  let sim: SimulatorHandle
  try {
    sim = await (
      await import('../app-kit/simulator/index.js')
    ).startSimulator({
      httpPort: cmd.httpPort,
      wsPort: cmd.wsPort,
      host: cmd.host,
      animationMs: cmd.animationMs,
      profile,
      ...(cmd.dataDir !== undefined ? { dataDir: cmd.dataDir } : {}),
      ...(cmd.logCommands !== undefined ? { logCommands: cmd.logCommands } : {}),
      // A standalone simulator may run for days: its record is the --log-commands file, not memory.
      commandLogMax: 0,
    })
  } catch (err) {
    const refused = listenRefusal(err)
    const why = refused
      ? `cannot listen on ${refused.address}: ${refusalCause(refused)}; ` +
        `give ${refused.port === cmd.httpPort ? '--port' : '--ws-port'} another port`
      : err instanceof Error
        ? err.message
        : String(err)
    process.stderr.write(`panelbridge: cannot start the simulator: ${why}\n`)
    return 1
  }
  // The first line is the address, so that a script (or a test) starting on port 0 can read it.
  for (const line of [
    `panelbridge simulator listening on ${sim.httpUrl}`,
    `QWebChannel WebSocket on ${sim.wsUrl}`,
    `data folder: ${sim.state.dataDir}`,
    `application profile: ${sim.profile.name}`,
  ])
    process.stdout.write(`${line}\n`)
  return untilStopped(() => sim.close(), { log })
}

/**
 * The profile a probe capture shows (`--replay-capture`), or the exit code: 1 for a capture that
 * cannot be read; 0 once `--write-profile` has written it as a profile file.
 */
async function profileOfCapture(file: string, writeTo: string | undefined): Promise<SimProfile | number> {
  const { CaptureError } = await import('../app-kit/probe-capture.js')
  const { profileFromCaptureFile, profileToYaml } = await import('../app-kit/simulator/profile-from-capture.js')
  let profile: SimProfile
  try {
    profile = await profileFromCaptureFile(file)
  } catch (err) {
    if (!(err instanceof CaptureError)) throw err
    process.stderr.write(`panelbridge: cannot play the capture: ${err.message}\n`)
    return 1
  }
  if (writeTo === undefined) return profile
  try {
    await writeFile(writeTo, profileToYaml(profile), { flag: 'wx' })
  } catch (err) {
    process.stderr.write(`panelbridge: cannot write ${writeTo}: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  }
  process.stdout.write(`wrote the profile ${profile.name} to ${writeTo}\n`)
  return 0
}

export const simCommand: Subcommand = {
  usage: 'sim [options]',
  summary: 'run the application simulator (HTTP command interface and QWebChannel WebSocket)',
  help: `panelbridge sim — the application simulator: its HTTP command interface and QWebChannel socket

Usage:
  panelbridge sim [options]
  panelbridge sim --list-profiles

Options:
  --port N            HTTP port (default ${APP_DEFAULT_PORTS.http}; 0 picks a free port)
  --ws-port N         WebSocket (QWebChannel) port (default ${APP_DEFAULT_PORTS.ws}; 0 picks a free port)
  --host ADDR         listen address (default ${DEFAULT_LISTEN_HOST})
  --data-dir DIR      folder for title, layer-list and project files
                      (default: a new temporary folder, removed on exit)
  --animation-ms N    length of a title's in/out animation (default ${SIM_ASSUMED_DEFAULTS.animationMs})
  --log-commands FILE append one JSON line per received command (time, name, parameters,
                      transport)
  --profile NAME      the variant of the application to play (config/app-profiles/NAME.yaml;
                      default: the current Captivate, marked in --list-profiles)
  --list-profiles     list the application profiles (name and summary) and exit
  --replay-capture FILE
                      play the application a 'panelbridge probe --out' capture shows (the facts
                      it observed; the others as the default profile)
  --write-profile OUT with --replay-capture: write that profile as a config/app-profiles file
                      (never over an existing file) and exit

Examples:
  panelbridge sim
  panelbridge sim --port 0 --data-dir ./sim-data
  panelbridge sim --profile strict-unknowns
  panelbridge sim --replay-capture probe-capture.json
  curl 'http://127.0.0.1:${APP_DEFAULT_PORTS.http}/api/command/getAllVideoIns?requestId=r1'

Exit codes: 0 stopped cleanly, 1 could not start or run, 2 bad command line (an unknown profile
too).
`,
  run: runSim,
}
