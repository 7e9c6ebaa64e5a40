/**
 * The daemon's HTTP listener as the config's `listen:` section asks for it: started at start, replaced
 * by a reload that changes the address, the port, whether a token is needed or the allowed host names,
 * left alone otherwise.
 */
import type { Logger } from '../log.js'
import type { Config } from '../mappings/schema.js'
import type { WebSurfaceServer } from '../surfaces/web/server.js'
import type { DaemonApi } from './api.js'
import { readListenToken } from './auth.js'

/** Starts the HTTP server; the daemon passes its API, the web page's server and the server's logger. */
export type ServeFn = (options: {
  host: string
  port: number
  token?: string
  /** `listen.allowed_hosts`: names besides `localhost` and the machine's own that may be used in `Host`. */
  allowedHosts: readonly string[]
  api: DaemonApi
  web: WebSurfaceServer
  /** A logger of this server's own: its faults are logged once per server, afresh after a reload. */
  logger: Logger
}) => Promise<{ url: string; close(): Promise<void> }>

export interface ListenerOptions {
  serve: ServeFn
  api: DaemonApi
  web: WebSurfaceServer
  /** The daemon's logger; each server gets a new `server` child of it. */
  log: Logger
}

export class Listener {
  private server: { url: string; close(): Promise<void> } | undefined
  /** What the running server was started with (host, port, whether a token is needed). */
  private key = ''

  constructor(private readonly o: ListenerOptions) {}

  /** The server's URL (the web page), or `''` while none runs. */
  get url(): string {
    return this.server?.url ?? ''
  }

  /**
   * (Re)starts the server when `listen` changed: the old one is closed first, then the new one started.
   * The web page's server takes the allowed host names at once (it outlives the listener).
   */
  async apply(listen: Config['listen']): Promise<void> {
    const token = await readListenToken(listen)
    const allowedHosts = listen.allowed_hosts ?? []
    this.o.web.setAllowedHosts(allowedHosts)
    const key = JSON.stringify([listen.host, listen.port, token !== undefined, allowedHosts])
    if (this.server && key === this.key) return
    const old = this.server
    this.server = undefined
    await old?.close()
    this.server = await this.o.serve({
      host: listen.host,
      port: listen.port,
      ...(token !== undefined ? { token } : {}),
      allowedHosts,
      api: this.o.api,
      web: this.o.web,
      logger: this.o.log.child('server'),
    })
    this.key = key
  }

  /** Closes the server, when one runs. */
  async close(): Promise<void> {
    await this.server?.close()
  }
}
