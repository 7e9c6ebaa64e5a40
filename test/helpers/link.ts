/** Helpers for the notification link's two test files. */
import { createServer, type AddressInfo } from 'node:net'
import type { NotificationLink } from '../../src/api/notifications.js'

/** Resolves at the link's next change to `phase` (an event, so it works under fake timers too). */
export function nextPhase(link: NotificationLink, phase: string): Promise<void> {
  return new Promise((resolve) => {
    const on = (p: string): void => {
      if (p !== phase) return
      link.off('phase', on)
      resolve()
    }
    link.on('phase', on)
  })
}

/** A loopback port nothing listens on (bound once, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}
