/**
 * Who may talk to the daemon server, checked on every request and WebSocket upgrade before any route:
 *
 * 1. **Host** (DNS rebinding) on every request; **Origin** and `Sec-Fetch-Site` on every request but
 *    the page's own document (without it any web page could `POST .../press`, or hold the event
 *    streams' slots with a GET). The rules are in `src/http-guard.ts`.
 * 2. **Token**, only when bound to anything but loopback: `Authorization: Bearer <token>`, or the
 *    cookie AUTH.cookieName that a page link `?token=<token>` sets (`HttpOnly; SameSite=Strict`, then a
 *    redirect that drops the token from the address bar). It guards everything, the page and its
 *    WebSocket included: on a LAN, the page's keys are as powerful as the API. Compared in constant
 *    time; never logged. Without a token such a bind refuses to start.
 *
 * Refusals are logged once per server (a hostile page may retry endlessly), through the server's
 * logger.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  fetchSiteAllowed,
  hostAllowed,
  isLoopbackAddress,
  originAllowed,
  refusedHostMessage,
  servedHosts,
} from '../http-guard.js'
import type { Logger } from '../log.js'
import { COMMON_HEADERS, HttpError } from './http.js'
import { applyListenRules, hostRuleProblem, type ListenKeys } from './listen-rules.js'

/** The token's cookie and the bound on the header that may carry it. */
export const AUTH = {
  /** The cookie that carries the token for the page (set from a `?token=` link). */
  cookieName: 'panelbridge_token',
  /**
   * Longest `Authorization` header read, characters; a longer one is refused at once (400). ASSUMED:
   * tokens are 16 characters and up, the ones people generate 32 to 64; 4096 leaves room for any of them.
   */
  maxAuthorizationLength: 4096,
} as const

/** Why the server refused to start (e.g. a non-loopback bind without a token). */
export class DaemonServerConfigError extends Error {
  override readonly name = 'DaemonServerConfigError'
}

/**
 * The token of a `listen` section: `token`, or the contents of `token_file` (trimmed; a trailing
 * newline is usual). Undefined when neither is set. Every rule of `listen` is applied on the way
 * (`applyListenRules`, the one place they are written; the bind rule when `host` is given): a broken
 * one throws. Errors name the file and the problem, never the contents.
 */
export async function readListenToken(listen: ListenKeys): Promise<string | undefined> {
  const rules = await applyListenRules(listen)
  if (rules.problems.length > 0) throw new DaemonServerConfigError(rules.problems.map((p) => p.message).join('; '))
  return rules.token
}

/** SHA-256 of a token, so that comparing needs no length check (which would leak the length). */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** The value of one cookie from a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim())
      } catch {
        return undefined // not a cookie this server set
      }
    }
  }
  return undefined
}

const BLANK = new Set([' ', '\t'])

/**
 * The `Bearer` credential of an `Authorization` header (scheme case-insensitive), trimmed of blanks.
 * Linear in the header's length: a pattern with a lazy group before trailing blanks backtracks
 * quadratically on `Bearer a<spaces>b`.
 */
export function bearer(header: string | undefined): string | undefined {
  if (header === undefined || header.length < 7 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined
  if (!BLANK.has(header[6]!)) return undefined
  let start = 7
  let end = header.length
  while (start < end && BLANK.has(header[start]!)) start++
  while (end > start && BLANK.has(header[end - 1]!)) end--
  return header.slice(start, end)
}

export interface AuthOptions {
  /** The bind address: anything but loopback needs `token`. */
  host: string
  token?: string
  /** DNS names besides `localhost` and the machine's own that may be used in `Host` (`listen.allowed_hosts`). */
  allowedHosts?: readonly string[]
  log: Logger
}

/** The checks of one server. Throws `DaemonServerConfigError` for a non-loopback bind without a token. */
export class ServerAuth {
  /** Whether requests need the token (the bind is not loopback). */
  readonly tokenRequired: boolean
  private readonly tokenDigest: Buffer | undefined
  private readonly allowedHosts: ReadonlySet<string>
  private readonly log: Logger

  constructor(o: AuthOptions) {
    this.tokenRequired = !isLoopbackAddress(o.host)
    const refused = hostRuleProblem(o.host, o.token)
    if (refused !== undefined) throw new DaemonServerConfigError(refused)
    this.tokenDigest = this.tokenRequired ? digest(o.token!.trim()) : undefined
    this.allowedHosts = servedHosts(o.allowedHosts)
    this.log = o.log
  }

  /**
   * Host, then Origin and `Sec-Fetch-Site` unless `pageDocument` (the page itself, which a link from
   * any site may open); throws the refusal (403). A refused Host's message names `listen.allowed_hosts`
   * (the server answers a browser with a page that does too).
   */
  guard(req: IncomingMessage, pageDocument: boolean): void {
    if (!hostAllowed(req, this.allowedHosts)) {
      this.log.once('refused-host', 'warn', 'refused a request for a foreign Host (DNS rebinding?)', {
        host: req.headers.host,
        hint: 'add the name to listen.allowed_hosts to serve it',
      })
      throw new HttpError(403, 'FORBIDDEN_HOST', refusedHostMessage(req.headers.host ?? ''))
    }
    if (!pageDocument && (!originAllowed(req) || !fetchSiteAllowed(req))) {
      this.log.once('refused-origin', 'warn', 'refused a request from a foreign origin', { origin: req.headers.origin })
      throw new HttpError(403, 'FORBIDDEN_ORIGIN', 'requests from other origins are refused')
    }
  }

  /** The token, when one is required: throws 401 without a valid one (400 for an over-long header). */
  requireToken(req: IncomingMessage): void {
    if (!this.tokenRequired) return
    if ((req.headers.authorization?.length ?? 0) > AUTH.maxAuthorizationLength) {
      this.log.once('long-authorization', 'warn', 'refused an over-long Authorization header')
      throw new HttpError(
        400,
        'BAD_AUTHORIZATION',
        `the Authorization header is over ${AUTH.maxAuthorizationLength} characters; send Authorization: Bearer <token>`,
      )
    }
    if (!this.authorized(req)) {
      this.log.once('refused-token', 'warn', 'refused a request without a valid token')
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        'a valid token is required (Authorization: Bearer, or open the page link with ?token=)',
        {
          'www-authenticate': 'Bearer realm="panelbridge"',
        },
      )
    }
  }

  /** A page link carrying `?token=` (GET or HEAD), to be answered by `tokenLink`. */
  isTokenLink(req: IncomingMessage, url: URL): boolean {
    return this.tokenRequired && url.searchParams.has('token') && (req.method === 'GET' || req.method === 'HEAD')
  }

  /** `?token=` on a page link: set the cookie and send the browser to the same page without it. */
  tokenLink(res: ServerResponse, url: URL): void {
    const given = url.searchParams.get('token') ?? undefined
    if (!this.tokenMatches(given)) {
      this.log.once('bad-token-link', 'warn', 'refused a page link with a wrong token')
      throw new HttpError(401, 'UNAUTHORIZED', 'the token in this link is wrong')
    }
    url.searchParams.delete('token')
    res.writeHead(303, {
      ...COMMON_HEADERS,
      // The cookie holds the token itself: the server keeps no session state to lose on restart.
      'set-cookie': `${AUTH.cookieName}=${encodeURIComponent(given!)}; Path=/; HttpOnly; SameSite=Strict`,
      // One leading slash: `//host` would send the browser to another site.
      location: '/' + url.pathname.replace(/^\/+/, '') + url.search,
    })
    res.end()
  }

  private authorized(req: IncomingMessage): boolean {
    return (
      this.tokenMatches(bearer(req.headers.authorization)) ||
      this.tokenMatches(cookieValue(req.headers.cookie, AUTH.cookieName))
    )
  }

  private tokenMatches(candidate: string | undefined): boolean {
    return (
      candidate !== undefined && this.tokenDigest !== undefined && timingSafeEqual(digest(candidate), this.tokenDigest)
    )
  }
}
