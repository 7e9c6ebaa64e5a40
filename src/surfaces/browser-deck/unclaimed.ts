/**
 * The decks pages registered as a source of unclaimed devices (issue 26 item 2): `learn` through the
 * daemon lists a deck no `surfaces:` entry claims, and shows its presses, which reach no binding. The
 * deck is not opened for it: its page goes on showing it unclaimed.
 */
import { controlSends } from '../../face/control-id.js'
import type { UnclaimedDeviceSource } from '../driver-family.js'
import { watchChanges } from '../hotplug.js'
import type { BrowserDeckHub } from './hub.js'

export function unclaimedDecks(hub: BrowserDeckHub): UnclaimedDeviceSource {
  return {
    list: () => hub.list(),
    watch: (onChange) => watchChanges(hub.hotplug(), onChange),
    // Only a control its model has, and only an event its kind sends (the page's word is never taken).
    watchInput: (listener) =>
      hub.watchUnclaimedInput((reg, m) => {
        const c = reg.model.controls.find((x) => x.id === m.control)
        if (!c || !controlSends(c.kind, m.input)) return
        listener(reg.id, {
          control: c.id,
          kind: c.kind,
          type: m.input,
          ...(m.input === 'rotate' ? { delta: m.delta } : {}),
        })
      }),
  }
}
