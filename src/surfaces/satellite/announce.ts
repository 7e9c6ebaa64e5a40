/**
 * Announcing the Satellite server over mDNS (`satellite.announce: true`), the way Companion advertises
 * its own (bitfocus/companion `companion/lib/Service/MdnsAdvertise.ts`): one service a port,
 * `_companion-satellite-tcp._tcp` for the line protocol and `_companion-satellite-ws._tcp` for the
 * WebSocket one, each with the API version in its TXT record, so Satellite's discovery finds this box.
 * The announcer is a seam: tests pass a fake (no test touches the network), the daemon the mDNS one,
 * whose library is loaded only when an announcement is asked for.
 */
import { hostname } from 'node:os'
import { lateImport } from '../../installed.js'
import type { Logger } from '../../log.js'

/** What is announced: the server's bound ports. */
export interface SatelliteAnnouncement {
  /** The name Satellite's discovery lists. */
  name: string
  tcpPort: number
  wsPort?: number
  apiVersion: string
}

/** Starts announcing; returns how to stop. */
export type SatelliteAnnouncer = (what: SatelliteAnnouncement, log: Logger) => { stop(): void }

/** The name announced: this machine's, as Companion names its own. */
export function announcedName(): string {
  return `panelbridge (${hostname()})`
}

interface BonjourLike {
  publish(opts: Record<string, unknown>, options?: Record<string, unknown>): unknown
  unpublishAll(): void
  destroy(): void
}

/** The mDNS announcer (`@julusian/bonjour-service`, loaded on first use). */
export const mdnsAnnouncer: SatelliteAnnouncer = (what, log) => {
  let bonjour: BonjourLike | undefined
  let stopped = false
  lateImport('@julusian/bonjour-service', () => import('@julusian/bonjour-service'))
    .then((lib) => {
      if (stopped) return
      bonjour = new lib.Bonjour() as unknown as BonjourLike
      const txt = { version: 'panelbridge', protocolVersion: what.apiVersion }
      const publish = (type: string, port: number): void =>
        void bonjour!.publish(
          { name: what.name, type, protocol: 'tcp', port, txt, ttl: 150 },
          { announceOnInterval: 60_000 },
        )
      publish('companion-satellite-tcp', what.tcpPort)
      if (what.wsPort !== undefined) publish('companion-satellite-ws', what.wsPort)
      log.info('announcing the Satellite server over mDNS', { name: what.name, port: what.tcpPort })
    })
    .catch((err: unknown) =>
      log.once('announce', 'warn', 'could not announce the Satellite server over mDNS', { error: err }),
    )
  return {
    stop: () => {
      stopped = true
      bonjour?.unpublishAll()
      bonjour?.destroy()
      bonjour = undefined
    },
  }
}
