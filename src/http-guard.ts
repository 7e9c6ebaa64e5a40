/**
 * Who may reach a local HTTP or WebSocket listener, shared by the web surface and the simulator.
 *
 * Browsers let any web page send a request (an `<img>`, a form, a `fetch`) or open a WebSocket to any
 * address, loopback included. Two rules keep such pages out:
 *
 * - **Host** (DNS rebinding): a request whose `Host` is a DNS name other than `localhost` (or
 *   `*.localhost`, or one listed in `allowedHosts`) is refused. IP-literal hosts are always accepted
 *   (so are the machine's addresses, whatever it is bound to). panelbridge's own listeners (the daemon
 *   and the web page) also take the machine's own names (`servedHosts`: its host name, short name and
 *   `<name>.local`) and the config's `listen.allowed_hosts`; a refusal names that setting
 *   (`refusedHostPage`, `refusedHostMessage`).
 * - **Origin**: a request that carries an `Origin` must come from a page served by this same host.
 *   Browsers always send one on a WebSocket and on a cross-origin `fetch`; tools and tests may not.
 *   For plain requests (an `<img>` carries no `Origin`), `fetchSiteAllowed` reads the browser's
 *   `Sec-Fetch-Site` instead; a listener that serves pages to be opened from links must not use it.
 *
 * This module imports nothing of panelbridge's, so every layer may use it.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { hostname as osHostname } from 'node:os'

/** The config setting that adds host names (the daemon's `listen.allowed_hosts`), as refusals name it. */
export const ALLOWED_HOSTS_SETTING = 'listen.allowed_hosts'

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

/**
 * The names this machine answers to by itself: its host name, the short name before the first dot,
 * and `<short>.local` (mDNS, how a tablet on the LAN finds `gfx-box.local`). Lower-cased; an empty or
 * `localhost` host name gives none (that name is taken anyway).
 */
export function ownHostNames(hostname: string = osHostname()): string[] {
  const full = hostname.trim().toLowerCase().replace(/\.$/, '')
  if (full === '' || full === 'localhost' || isIP(full) !== 0) return []
  const short = full.split('.')[0]!
  return [...new Set([full, short, `${short}.local`])]
}

/** The Host names a panelbridge listener serves besides `localhost` and IP literals: the machine's own and `configured`. */
export function servedHosts(configured: Iterable<string> = [], hostname?: string): ReadonlySet<string> {
  return hostSet([...ownHostNames(hostname), ...configured])
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

/** What a refusal of `host` says to a tool: what was refused and the setting that would allow it. */
export function refusedHostMessage(host: string): string {
  return `the Host ${JSON.stringify(hostnameOf(host))} is not served here; add it to ${ALLOWED_HOSTS_SETTING} to use it`
}

/**
 * A request's target as a URL, read as the path it is: `//api/x` is the path `//api/x`, not the host
 * `api` (which `new URL(target, base)` would make of it, and throw on `//?x`). Undefined when the target
 * is no URL at all.
 */
export function requestTarget(target: string | undefined): URL | undefined {
  const raw = target ?? '/'
  try {
    return new URL(`http://localhost${raw.startsWith('/') ? raw : `/${raw}`}`)
  } catch {
    return undefined
  }
}

/**
 * Whether a refused request gets the HTML page rather than the listener's own short answer: a browser
 * (its `Accept` names `text/html`) that did not ask for JSON, on a path that is not the API's.
 */
export function wantsHtmlRefusal(req: IncomingMessage): boolean {
  const accept = (req.headers.accept ?? '').toLowerCase()
  // A malformed target: the path check below treats it as the page's.
  const path = requestTarget(req.url)?.pathname ?? '/'
  if (path === '/api' || path.startsWith('/api/')) return false
  return accept.includes('text/html') && !accept.includes('application/json')
}

/** The refusal page's Content-Security-Policy: it loads nothing and runs nothing; its style is inline. */
export const REFUSED_HOST_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'"

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * The page a browser gets for a refused Host: which name was refused and the YAML that allows it. The
 * name comes from the request, so it is bounded and escaped; the page loads nothing.
 */
export function refusedHostPage(host: string): string {
  const name = escapeHtml(hostnameOf(host).slice(0, 253))
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>panelbridge: host name not allowed</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:40rem;line-height:1.4}code,pre{background:#eee;padding:.1rem .3rem}</style>
</head><body>
<h1>This host name is not allowed</h1>
<p>panelbridge refused this page because it was opened as <code>${name}</code>, a name it does not know.
It answers to <code>localhost</code>, its IP addresses and this machine's own names; other names are
refused so that no other web site can reach it through a name of its own (DNS rebinding).</p>
<p>To open it as <code>${name}</code>, add the name to <code>${ALLOWED_HOSTS_SETTING}</code> in the config file:</p>
<pre>listen:
  allowed_hosts: [${name}]</pre>
<p>Or open it by IP address.</p>
</body></html>
`
}
