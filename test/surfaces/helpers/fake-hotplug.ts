/** The injected hot-plug source for surface tests: the test says whether it is live and fires changes. */
import type { HotplugChange, HotplugSource } from '../../../src/surfaces/hotplug.js'

export class FakeHotplug implements HotplugSource {
  listener: ((c: HotplugChange) => void) | undefined
  /** How many times `stop()` was called. */
  stops = 0

  /** `live: false` answers like a machine without hot-plug, so the manager polls. */
  constructor(private readonly live = true) {}

  start(listener: (c: HotplugChange) => void): Promise<boolean> {
    this.listener = listener
    return Promise.resolve(this.live)
  }
  stop(): void {
    this.stops++
    this.listener = undefined
  }
  fire(change: HotplugChange): void {
    this.listener?.(change)
  }
}
