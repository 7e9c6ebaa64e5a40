/**
 * The application simulator: a stand-in for the live-graphics application's HTTP command interface
 * (and, through the WebSocket side, its QWebChannel notifications), for tests, demos and the default
 * configuration.
 */
import { HttpHooks } from './hooks.js'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { SIM_ASSUMED_DEFAULTS } from '../../api/protocol.js'
import { DEFAULT_LISTEN_HOST } from '../../defaults.js'
import { ensureDir } from './files.js'
import { HANDLERS } from './handlers/index.js'
import { writeSeedProjects } from './handlers/project.js'
import { startHttpServer } from './http.js'
import { removeTempDir, trackTempDir } from './temp-dir.js'
import type { QWebChannelServer } from './qwebchannel-server.js'
import { getProfile, type SimProfile } from './profile.js'
import { startQWebChannelSimulator, type ClientAnnouncement } from './scheduler.js'
import { SimulatorState } from './state.js'

export { HttpHooks, type CommandLogEntry } from './hooks.js'
export { SimulatorState } from './state.js'
export { senderMatches, type Sender, type NotificationTopic } from './model.js'
export type { Reply, ReplyResult, SimTitle } from './types.js'
export { DEFAULT_PROFILE, getProfile, loadProfiles, profileNames, type SimProfile } from './profile.js'

export interface SimulatorOptions {
  /** HTTP port; 0 picks a free one. Default 0 (the CLI defaults to 9022). */
  httpPort?: number
  /** QWebChannel WebSocket port; 0 picks a free one. Default 0, like httpPort (the CLI defaults to 9023). */
  wsPort?: number
  /** Listen address. Default 127.0.0.1. */
  host?: string
  /** Folder for title, layer-list and project files. Default: a fresh temporary folder, removed by close(). */
  dataDir?: string
  /** In/out animation length of a title, ms. Default SIM_ASSUMED_DEFAULTS.animationMs. */
  animationMs?: number
  /** DNS names besides `localhost` accepted in `Host` on both sides (see `src/http-guard.ts`). */
  allowedHosts?: string[]
  /** Appends one JSON line per received HTTP command to this file (time, name, parameters, transport). */
  logCommands?: string
  /** Commands the in-memory log (`http.log`) keeps; 0 keeps none. Default COMMAND_LOG_MAX. */
  commandLogMax?: number
  /** The variant of the application to play: a profile of `config/app-profiles/` by name, or one given. Default `captivate`. */
  profile?: string | SimProfile
}

export interface SimulatorHandle {
  /** The variant of the application being played. */
  profile: SimProfile
  httpUrl: string
  httpPort: number
  state: SimulatorState
  /** QWebChannel WebSocket URL, `ws://host:port`. */
  wsUrl: string
  wsPort: number
  /**
   * The QWebChannel server, with its test hooks: dropAll(), setSilent(), restart({shuffle}),
   * setReplyDelay(), sendGarbage(), setShuffle(), stop()/start().
   */
  ws: QWebChannelServer
  /** Every notifyClientConnected call seen on the WebSocket. */
  wsAnnouncements: readonly ClientAnnouncement[]
  /** The HTTP side's test hooks: setDelay(), inFlight(), highWater(), the command log. */
  http: HttpHooks
  /**
   * The application quits and starts again: both transports stop (every socket dropped, HTTP refused),
   * the state restarts (`SimulatorState.restarted`: nothing on air, default subscriptions, fresh title
   * ids when the profile says `title_ids_on_restart: new`), and both listen again on the same ports
   * (with new method indexes when the profile shuffles them).
   */
  restart(): Promise<void>
  close(): Promise<void>
}

/** Every command name the simulator has a handler for. */
export const SIMULATOR_COMMANDS: readonly string[] = Object.freeze(Object.keys(HANDLERS).sort())

export async function startSimulator(opts: SimulatorOptions = {}): Promise<SimulatorHandle> {
  // An unknown profile fails here, before anything is created.
  const profile = getProfile(opts.profile)
  const ownDataDir = opts.dataDir === undefined
  const dataDir = opts.dataDir !== undefined ? resolve(opts.dataDir) : mkdtempSync(join(tmpdir(), 'panelbridge-sim-'))
  // A given folder is created if its parent exists; an unusable one fails here with the file system's message.
  if (!ownDataDir) ensureDir(dataDir)
  // A folder the caller gave is theirs; a temporary one we made goes with the simulator, and with the
  // process if it dies first (signal, uncaught exception).
  if (ownDataDir) trackTempDir(dataDir)
  const removeDataDir = (): void => {
    if (ownDataDir) removeTempDir(dataDir)
  }
  let state: SimulatorState
  try {
    state = new SimulatorState({ dataDir, animationMs: opts.animationMs ?? SIM_ASSUMED_DEFAULTS.animationMs, profile })
    writeSeedProjects(state)
  } catch (err) {
    removeDataDir()
    throw err
  }
  const host = opts.host ?? DEFAULT_LISTEN_HOST
  const guard = opts.allowedHosts ? { allowedHosts: opts.allowedHosts } : {}
  const hooks = new HttpHooks(opts.logCommands, opts.commandLogMax)
  let http = await startHttpServer(state, opts.httpPort ?? 0, host, { ...guard, hooks }).catch((err: unknown) => {
    removeDataDir()
    throw err
  })
  const qwc = await startQWebChannelSimulator({
    backend: state,
    log: (name, parameters, transport) => hooks.record(name, parameters, transport),
    port: opts.wsPort ?? 0,
    host,
    ...guard,
  }).catch(async (err: unknown) => {
    await http.close()
    removeDataDir()
    throw err
  })
  let closed = false
  let restarting: Promise<void> | undefined
  return {
    profile,
    http: hooks,
    httpUrl: http.url,
    httpPort: http.port,
    state,
    wsUrl: qwc.url,
    wsPort: qwc.server.boundPort,
    ws: qwc.server,
    wsAnnouncements: qwc.announcements,
    restart() {
      if (closed) return Promise.reject(new Error('the simulator is closed'))
      const previous = restarting
      restarting = (async () => {
        await previous?.catch(() => undefined)
        await Promise.all([qwc.server.stop(), http.close()])
        state.restarted()
        // Same ports: the first start's (port 0 picked one) are the addresses clients hold.
        http = await startHttpServer(state, http.port, host, { ...guard, hooks })
        await qwc.server.start()
      })()
      return restarting
    },
    async close() {
      closed = true
      // A restart under way finishes first, so that the servers it starts are the ones closed here.
      await restarting?.catch(() => undefined)
      await qwc.close()
      state.close()
      await http.close()
      removeDataDir()
    },
  }
}
