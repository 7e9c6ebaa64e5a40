/**
 * The Companion Satellite server (issue 44): the line protocol on TCP (`satellite.port`, Satellite's
 * 16622) and, where `ws_port` is given, the same lines over WebSocket (Satellite's 16623). Every client
 * is a `SatelliteClient` of the hub (`./hub.ts`); this file owns who may attach and the bounds of each
 * link.
 *
 * The protocol has no authentication: the server binds to loopback unless the config names an address,
 * and `allow` lists the peers (addresses or CIDR networks) that may attach; any other is closed at
 * connect and logged once. Bounds (SATELLITE_LIMITS): clients at once, a line's length (longer drops
 * the client), lines handled a turn, output a client has not read (past it the client is dropped: its
 * surfaces go stale and come back when it reconnects), a client silent for too long.
 */
import { BlockList, createServer, isIP, type Server, type Socket } from 'node:net'
import type { IncomingMessage } from 'node:http'
import { StringDecoder } from 'node:string_decoder'
import { WebSocketServer, type WebSocket } from 'ws'
import type { SatelliteServerConfig } from '../../families/satellite.js'
import type { SatelliteClient, SatelliteHub, SatelliteLink } from './hub.js'
import { announcedName, mdnsAnnouncer, type SatelliteAnnouncer } from './announce.js'
import { overOutgoingBound } from '../../outgoing-bound.js'
import { SATELLITE_API_VERSION, SATELLITE_LIMITS, type SatelliteLimits } from './protocol.js'

/** What `/api/status` shows of the server. */
export interface SatelliteServerStatus {
  port: number
  ws_port?: number
  clients: number
  devices: number
}

export interface SatelliteServerOptions {
  hub: SatelliteHub
  /** Tests lower the bounds. */
  limits?: Partial<SatelliteLimits>
  /** The peer check, over `allow` (a test makes loopback look foreign). */
  allowed?: (address: string) => boolean
  /** Announces the server for `announce: true` (default mDNS; tests pass a fake). */
  announcer?: SatelliteAnnouncer
}

/** The peer address as the allow list reads it: an IPv4 address mapped into IPv6 as the IPv4 one. */
export function peerAddress(address: string | undefined): string {
  if (!address) return ''
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return m ? m[1]! : address
}

/** The allow list's entries as a block list; throws a clear error for one that is no address or network. */
export function allowList(entries: readonly string[]): BlockList {
  const list = new BlockList()
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/')
    const family = isIP(address)
    if (family === 0 || extra !== undefined)
      throw new Error(`satellite.allow: "${entry}" is not an IP address or a network`)
    const type = family === 4 ? 'ipv4' : 'ipv6'
    if (bits === undefined) {
      list.addAddress(address, type)
      continue
    }
    const prefix = Number(bits)
    if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128))
      throw new Error(`satellite.allow: "${entry}" has a bad prefix length`)
    list.addSubnet(address, prefix, type)
  }
  return list
}

interface Listening {
  config: SatelliteServerConfig
  tcp: Server
  ws?: WebSocketServer
  port: number
  wsPort?: number
  announced?: { stop(): void }
}

export class SatelliteServer {
  private readonly hub: SatelliteHub
  private readonly limits: SatelliteLimits
  private listening: Listening | undefined
  private allow: BlockList | undefined
  private readonly links = new Set<{ client: SatelliteClient; end: () => void }>()

  constructor(private readonly opts: SatelliteServerOptions) {
    this.hub = opts.hub
    this.limits = { ...SATELLITE_LIMITS, ...opts.limits }
  }

  /** Starts, moves or stops the server as the config's `satellite:` says (absent: stopped). */
  async apply(config: SatelliteServerConfig | undefined): Promise<void> {
    const now = this.listening?.config
    if (config && now && sameBinding(config, now)) {
      // Only who may attach (or the announcement) changed: the clients attached stay.
      this.allow = config.allow ? allowList(config.allow) : undefined
      this.listening!.config = config
      this.announce(this.listening!)
      return
    }
    await this.close()
    if (!config) return
    const allow = config.allow ? allowList(config.allow) : undefined
    const host = config.host ?? '127.0.0.1'
    const tcp = createServer({ noDelay: true }, (socket) => this.onSocket(socket))
    const port = await listen(tcp, config.port, host)
    let ws: WebSocketServer | undefined
    let wsPort: number | undefined
    if (config.ws_port !== undefined) {
      try {
        ;({ ws, port: wsPort } = await this.listenWs(config.ws_port, host))
      } catch (err) {
        tcp.close()
        throw err
      }
    }
    this.allow = allow
    this.listening = { config, tcp, port, ...(ws ? { ws } : {}), ...(wsPort !== undefined ? { wsPort } : {}) }
    this.hub.log.info('Companion Satellite server listening', {
      host,
      port,
      ...(wsPort !== undefined ? { ws_port: wsPort } : {}),
      ...(config.allow ? { allow: config.allow } : {}),
    })
    if (!config.allow && !isLoopback(host))
      this.hub.log.warn(
        'the Satellite server listens beyond this machine with no satellite.allow: any peer that reaches it may attach surfaces',
        { host },
      )
    this.announce(this.listening)
  }

  /** Starts or stops the announcement as the config says. */
  private announce(l: Listening): void {
    if (l.config.announce === true && !l.announced) {
      const announcer = this.opts.announcer ?? mdnsAnnouncer
      l.announced = announcer(
        {
          name: announcedName(),
          tcpPort: l.port,
          ...(l.wsPort !== undefined ? { wsPort: l.wsPort } : {}),
          apiVersion: SATELLITE_API_VERSION,
        },
        this.hub.log,
      )
    } else if (l.config.announce !== true && l.announced) {
      l.announced.stop()
      l.announced = undefined
    }
  }

  status(): SatelliteServerStatus | undefined {
    const l = this.listening
    if (!l) return undefined
    return {
      port: l.port,
      ...(l.wsPort !== undefined ? { ws_port: l.wsPort } : {}),
      clients: this.links.size,
      devices: this.hub.size,
    }
  }

  /** Stops listening and drops every client (their devices go). Idempotent. */
  async close(): Promise<void> {
    const l = this.listening
    this.listening = undefined
    for (const link of [...this.links]) link.end()
    if (!l) return
    l.announced?.stop()
    await Promise.all([
      new Promise<void>((resolve) => l.tcp.close(() => resolve())),
      l.ws ? new Promise<void>((resolve) => l.ws!.close(() => resolve())) : undefined,
    ])
  }

  private async listenWs(port: number, host: string): Promise<{ ws: WebSocketServer; port: number }> {
    const ws = new WebSocketServer({
      host,
      port,
      maxPayload: this.limits.lineBytes,
      // A browser page must not drive surfaces: Satellite's own client sends no Origin.
      verifyClient: (info: { req: IncomingMessage }) => info.req.headers.origin === undefined,
    })
    await new Promise<void>((resolve, reject) => {
      ws.once('listening', resolve)
      ws.once('error', reject)
    })
    ws.on('error', (err) => this.hub.log.warn('Satellite WebSocket server error', { error: err }))
    ws.on('connection', (socket, req) => this.onWebSocket(socket, req))
    const address = ws.address()
    return { ws, port: typeof address === 'object' && address ? address.port : port }
  }

  /** Whether a peer may attach; refused ones are logged once per address. */
  private admit(address: string, close: () => void): boolean {
    const ok = this.opts.allowed
      ? this.opts.allowed(address)
      : !this.allow || (isIP(address) !== 0 && this.allow.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6'))
    if (!ok) {
      this.hub.log.once(
        `refused:${address}`,
        'warn',
        'refused a Satellite client: its address is not in satellite.allow',
        {
          peer: address,
        },
      )
      close()
      return false
    }
    if (this.links.size >= this.limits.connections) {
      this.hub.log.once(`full:${address}`, 'warn', 'refused a Satellite client: too many clients attached', {
        peer: address,
        limit: this.limits.connections,
      })
      close()
      return false
    }
    this.hub.log.clear(`refused:${address}`)
    return true
  }

  private onSocket(socket: Socket): void {
    const address = peerAddress(socket.remoteAddress)
    socket.on('error', (err) => this.hub.log.debug('Satellite client socket error', { peer: address, error: err }))
    if (!this.admit(address, () => socket.destroy())) return
    const peer = `${address}:${socket.remotePort ?? 0}`
    const client = this.attach(peer, {
      open: () => !socket.destroyed,
      send: (line) => void socket.write(line),
      unsent: () => socket.writableLength,
      kill: () => socket.destroy(),
      close: () => socket.end(),
      pause: () => socket.pause(),
      resume: () => socket.resume(),
    })
    socket.setTimeout(this.limits.idleMs, () => client.drop('it sent nothing for too long'))
    const decoder = new StringDecoder('utf8')
    socket.on('data', (data) => client.push(decoder.write(data)))
    socket.on('close', () => client.closed())
  }

  private onWebSocket(socket: WebSocket, req: IncomingMessage): void {
    const address = peerAddress(req.socket.remoteAddress)
    socket.on('error', (err) => this.hub.log.debug('Satellite WebSocket error', { peer: address, error: err }))
    if (!this.admit(address, () => socket.terminate())) return
    const peer = `ws://${address}:${req.socket.remotePort ?? 0}`
    const client = this.attach(peer, {
      open: () => socket.readyState === socket.OPEN,
      send: (line) => socket.send(line),
      unsent: () => socket.bufferedAmount,
      kill: () => socket.terminate(),
      close: () => socket.close(),
      pause: () => socket.pause(),
      resume: () => socket.resume(),
    })
    const idle = setTimeout(() => client.drop('it sent nothing for too long'), this.limits.idleMs)
    socket.on('message', (data, isBinary) => {
      idle.refresh()
      client.push(
        isBinary
          ? ''
          : (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString(
              'utf8',
            ),
      )
    })
    socket.on('close', () => {
      clearTimeout(idle)
      client.closed()
    })
  }

  /**
   * A client attached over either transport: its link, its lines written under the one rule for every
   * sender (a client holding more unread than `unreadBytes` is dropped), its line reader, and its place
   * among the links until `closed`. The transport feeds `push` and says when it closed; `drop` ends it
   * once, saying why.
   */
  private attach(
    peer: string,
    t: {
      open(): boolean
      send(line: string): void
      unsent(): number
      kill(): void
      close(): void
      pause(): void
      resume(): void
    },
  ): { drop: (why: string) => void; push(text: string): void; closed(): void } {
    let dropped = false
    const drop = (why: string): void => {
      if (dropped) return
      dropped = true
      this.hub.log.warn(`dropped a Satellite client: ${why}`, { peer })
      t.kill()
    }
    // The drop says so itself, with the client's address: the rule's own once-per-kind line is not needed.
    const outgoing = { kind: 'satellite', log: undefined, drop: () => drop('it does not read what the server sends') }
    const link: SatelliteLink = {
      peer,
      write: (line) => {
        if (dropped || !t.open()) return false
        t.send(line)
        return !overOutgoingBound(outgoing, t.unsent(), this.limits.unreadBytes)
      },
      close: () => t.close(),
    }
    const lines = this.lineReader(
      peer,
      drop,
      () => t.pause(),
      () => t.resume(),
    )
    const entry = { client: this.hub.connect(link, this.limits, 'panelbridge'), end: () => t.kill() }
    lines.client = entry.client
    this.links.add(entry)
    this.hub.log.info('Satellite client attached', { peer })
    return {
      drop,
      push: (text) => lines.push(text),
      closed: () => {
        this.links.delete(entry)
        lines.stop()
        this.hub.log.info('Satellite client gone', { peer, devices: entry.client.closedLink() })
      },
    }
  }

  /**
   * A link's lines: text is split at newlines; a line longer than the bound drops the client; at most
   * `linesPerTurn` lines are handled a turn, the link paused while the rest wait.
   */
  private lineReader(
    peer: string,
    drop: (why: string) => void,
    pause: () => void,
    resume: () => void,
  ): { client: SatelliteClient | undefined; push(text: string): void; stop(): void } {
    let buffer = ''
    const queue: string[] = []
    let scheduled: ReturnType<typeof setImmediate> | undefined
    let stopped = false
    const limits = this.limits
    const reader = {
      client: undefined as SatelliteClient | undefined,
      push(text: string): void {
        if (stopped) return
        buffer += text
        let at: number
        let over = false
        while ((at = buffer.indexOf('\n')) !== -1) {
          const line = buffer.slice(0, at)
          over ||= line.length > limits.lineBytes
          queue.push(line)
          buffer = buffer.slice(at + 1)
        }
        if (over || buffer.length > limits.lineBytes) {
          reader.client?.send('ERROR', null, null, { MESSAGE: `Line too long: at most ${limits.lineBytes} bytes` })
          buffer = ''
          queue.length = 0
          drop('it sent a line over the bound')
          return
        }
        if (!scheduled) run()
      },
      stop(): void {
        stopped = true
        queue.length = 0
        buffer = ''
        if (scheduled) clearImmediate(scheduled)
      },
    }
    const run = (): void => {
      scheduled = undefined
      let n = 0
      while (queue.length > 0 && !stopped) {
        if (n++ >= limits.linesPerTurn) {
          pause()
          scheduled = setImmediate(() => {
            resume()
            run()
          })
          return
        }
        try {
          reader.client?.line(queue.shift()!)
        } catch (err) {
          // A bug handling one line must not end the server: the client is told and kept.
          this.hub.log.once(`line:${peer}`, 'error', 'could not handle a Satellite line', { peer, error: err })
        }
      }
    }
    return reader
  }
}

/** Whether a bind address is this machine's alone. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

function sameBinding(a: SatelliteServerConfig, b: SatelliteServerConfig): boolean {
  return a.port === b.port && a.ws_port === b.ws_port && (a.host ?? '') === (b.host ?? '')
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      const address = server.address()
      resolve(typeof address === 'object' && address ? address.port : port)
    })
  })
}
