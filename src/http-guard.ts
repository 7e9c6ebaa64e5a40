/**
 * Who may reach a local HTTP or WebSocket listener, shared by the web surface and the simulator.
 *
 * Browsers let any web page send a request (an `<img>`, a form, a `fetch`) or open a WebSocket to any
 * address, loopback included. Two rules keep such pages out:
 *
 * - **Host** (DNS rebinding): a request whose `Host` is a DNS name other than `localhost` (or
 *   `*.localhost`, or one listed in `allowedHosts`) is refused. IP-literal hosts are always accepted.
 * - **Origin**: a request that carries an `Origin` must come from a page served by this same host.
 *   Browsers always send one on a WebSocket and on a cross-origin `fetch`; tools and tests may not.
 *   For plain requests (an `<img>` carries no `Origin`), `fetchSiteAllowed` reads the browser's
 *   `Sec-Fetch-Site` instead; a listener that serves pages to be opened from links must not use it.
 *
 * This module imports nothing of panelbridge's, so every layer may use it.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

/** The hostname part of a Host header (`[::1]:8088` → `::1`), lower-cased. */
export function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined).toLowerCase()
  const colon = host.lastIndexOf(':')
  return (colon >= 0 ? host.slice(0, colon) : host).toLowerCase()
}

/** DNS names besides `localhost` accepted in `Host`, lower-cased once. */
export function hostSet(names: Iterable<string> = []): ReadonlySet<string> {
  return new Set([...names].map((h) => h.toLowerCase()))
}

/** The Host rule: absent, an IP literal, `localhost`, `*.localhost` or one of `allowedHosts`. */
export function hostAllowed(req: IncomingMessage, allowedHosts: ReadonlySet<string> = new Set()): boolean {
  const host = req.headers.host
  if (host === undefined) return true
  const name = hostnameOf(host)
  return isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost') || allowedHosts.has(name)
}

/** The Origin rule: absent, or naming this request's own `Host`. */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    return new URL(origin).host.toLowerCase() === (req.headers.host ?? '').toLowerCase()
  } catch {
    return false // 'null' (a sandboxed page or a file) or garbage: not this host
  }
}

/**
 * The Fetch Metadata rule: a browser marks a request another site's page made (an `<img>`, a form, a
 * `no-cors` fetch, none of which carry `Origin`) as `Sec-Fetch-Site: cross-site`; those are refused.
 * Absent (tools, tests, older browsers) is accepted.
 */
export function fetchSiteAllowed(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site']
  return site === undefined || site === 'same-origin' || site === 'none'
}

/** Whether a listen address is a loopback one (`127.x`, `::1`, `localhost`). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, '')
  return a === 'localhost' || a === '::1' || a.startsWith('127.') || a.startsWith('::ffff:127.')
}
