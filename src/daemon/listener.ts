/**
 * The daemon's HTTP listener as the config's `listen:` section asks for it: started at start, replaced
 * by a reload that changes the address, the port, whether a token is needed or the allowed host names,
 * left alone otherwise.
 *
 * A reload prepares the new server before the old one closes (`prepare`): the token is read and the
 * rules applied, and the new server bound beside the old; a port in use, a missing token file or a bind
 * beyond loopback without a token refuses the reload and the old server keeps serving. Only a server on
 * the very port the old one holds cannot be bound beside it: that one is swapped at `commit` (the old
 * closed, the new bound), and the old is bound again when the new cannot be.
 */
import type { Logger } from '../log.js'
import type { Config } from '../mappings/schema.js'
import type { WebSurfaceServer } from '../surfaces/web/server.js'
import type { DaemonApi } from './api.js'
import { readListenToken } from './auth.js'
import { isAddressInUse, type Prepared } from './prepared.js'

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

type ServeOptions = Parameters<ServeFn>[0]
type Server = Awaited<ReturnType<ServeFn>>

export class Listener {
  private server: Server | undefined
  /** What the running server was started with (host, port, whether a token is needed). */
  private key = ''
  /** The running server's options, to bind it again when a swap on its own port fails. */
  private options: ServeOptions | undefined

  constructor(private readonly o: ListenerOptions) {}

  /** The server's URL (the web page), or `''` while none runs. */
  get url(): string {
    return this.server?.url ?? ''
  }

  /** (Re)starts the server when `listen` changed (`prepare`, then `commit`). */
  async apply(listen: Config['listen']): Promise<void> {
    await (await this.prepare(listen)).commit()
  }

  /**
   * Everything `listen` needs, made ready while the running server keeps serving: the token read, the
   * new server bound (when anything changed). Throws, having changed nothing, when the token cannot be
   * read, a rule is broken or the address cannot be bound. The web page's server takes the allowed host
   * names at `commit` (it outlives the listener).
   */
  async prepare(listen: Config['listen']): Promise<Prepared> {
    const token = await readListenToken(listen)
    const allowedHosts = listen.allowed_hosts ?? []
    const key = JSON.stringify([listen.host, listen.port, token !== undefined, allowedHosts])
    const setHosts = (): void => this.o.web.setAllowedHosts(allowedHosts)
    if (this.server && key === this.key) return { commit: () => Promise.resolve(setHosts()), abort: async () => {} }
    const options: ServeOptions = {
      host: listen.host,
      port: listen.port,
      ...(token !== undefined ? { token } : {}),
      allowedHosts,
      api: this.o.api,
      web: this.o.web,
      logger: this.o.log.child('server'),
    }
    let next: Server
    try {
      next = await this.o.serve(options)
    } catch (err) {
      if (!this.server || !isAddressInUse(err) || listen.port !== portOf(this.server.url)) throw err
      return { commit: () => this.swapInPlace(options, key, setHosts), abort: async () => {} }
    }
    return {
      commit: async () => {
        const old = this.server
        this.server = next
        this.key = key
        this.options = options
        setHosts()
        await old?.close()
      },
      abort: () => next.close(),
    }
  }

  /** The new server on the old one's port: the old closed first, and bound again when the new fails. */
  private async swapInPlace(options: ServeOptions, key: string, setHosts: () => void): Promise<void> {
    const old = this.server
    const oldOptions = this.options
    this.server = undefined
    await old?.close()
    try {
      this.server = await this.o.serve(options)
    } catch (err) {
      if (oldOptions) {
        this.server = await this.o.serve({ ...oldOptions, logger: this.o.log.child('server') }).catch((again) => {
          this.o.log.error('the listener could not be bound again after a failed reload', { error: again })
          return undefined
        })
      }
      throw err
    }
    this.key = key
    this.options = options
    setHosts()
  }

  /** Closes the server, when one runs. */
  async close(): Promise<void> {
    await this.server?.close()
  }
}

/** The port in a server's URL. */
function portOf(url: string): number {
  return Number(new URL(url).port)
}
