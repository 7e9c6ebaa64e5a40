/**
 * The in-memory transport the per-family HID fakes share: devices appear and disappear as tests say, and each
 * open makes a fresh device of the family (`makeDevice`) for a device that is present. The families differ only
 * in their listing and in the device that answers their reports.
 */

export abstract class MemoryTransport<L extends { path: string }, D extends { path: string }> {
  readonly present = new Map<string, L>()
  readonly opened: D[] = []
  /** Called for every open, to let a test arm a device (or make the open fail by throwing). */
  onOpen: ((dev: D, path: string) => void) | undefined

  /** The device a listing opens as. */
  protected abstract makeDevice(listing: L): D

  protected add<T extends L>(listing: T): T {
    this.present.set(listing.path, listing)
    return listing
  }
  unplug(path: string): void {
    this.present.delete(path)
  }
  list(): Promise<L[]> {
    return Promise.resolve([...this.present.values()])
  }
  open(path: string): Promise<D> {
    const listing = this.present.get(path)
    if (!listing) return Promise.reject(new Error(`no device at ${path}`))
    const dev = this.makeDevice(listing)
    this.opened.push(dev)
    this.onOpen?.(dev, path)
    return Promise.resolve(dev)
  }
  lastOpened(path: string): D | undefined {
    return this.opened.filter((d) => d.path === path).at(-1)
  }
}
