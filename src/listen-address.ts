/**
 * How a client on this machine reaches a listen address, as the host part of a URL. Imports nothing of
 * panelbridge's, so every layer may use it.
 *
 * An unspecified address answers on the loopback of its own family: `0.0.0.0` at `127.0.0.1`, `::` at
 * `[::1]`. Why `[::1]` and not `127.0.0.1` for `::`: a socket bound to `::` always takes IPv6 loopback,
 * but takes IPv4 only when it is dual-stack (Linux's default `net.ipv6.bindv6only=0`, Node's default
 * `ipv6Only: false`); on a host set to `bindv6only=1`, or a listener made `ipv6Only`, `127.0.0.1` is
 * refused. And a `::` bind that succeeded proves IPv6 works on the machine.
 */
import { isIP } from 'node:net'

/** `0.0.0.0` → `127.0.0.1`, `::` (any spelling) → `[::1]`, other IPv6 addresses bracketed, names as they are. */
export function reachableHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare === '0.0.0.0') return '127.0.0.1'
  if (isIP(bare) === 6) return /^[0:]+$/.test(bare) ? '[::1]' : `[${bare}]`
  return bare
}
