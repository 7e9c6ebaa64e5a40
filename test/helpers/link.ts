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
