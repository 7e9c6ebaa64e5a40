/**
 * The surface manager's boundary to hardware, in memory: a driver whose device list the test edits
 * (`ListDriver`) and the surfaces it hands out (`TestSurface`), which record what the manager does to
 * them and fail on demand. For tests of the manager itself; a driver's own tests use its real library
 * over the fake device of its transport (fake-hid, fake-shuttle, fake-xkeys, fake-midi, fake-generic-hid).
 */
import { EventHub } from '../../../src/events.js'
import { onTestFinished } from 'vitest'
import type { Surface, SurfaceDriver, SurfaceEvents, SurfaceEvent } from '../../../src/surfaces/types.js'
import type { DetectedDevice } from '../../../src/face/surface.js'

/** A surface as a driver hands it out: records what the manager does to it, and can fail on demand. */
export class TestSurface implements Surface {
  readonly hub = new EventHub<SurfaceEvents>()
  readonly events = this.hub.listenable
  readonly feedback: string[] = []
  readonly brightness: number[] = []
  closed = false
  throwOnFeedback: Error | undefined
  throwOnBrightness: Error | undefined
  rejectClose: Error | undefined
  constructor(readonly description: Surface['description']) {}
  setFeedback(control: string, fb: { color?: string }): void {
    if (this.throwOnFeedback) throw this.throwOnFeedback
    this.feedback.push(`${control} ${fb.color}`)
  }
  setBrightness(percent: number): void {
    if (this.throwOnBrightness) throw this.throwOnBrightness
    this.brightness.push(percent)
  }
  close(): Promise<void> {
    this.closed = true
    return this.rejectClose ? Promise.reject(this.rejectClose) : Promise.resolve()
  }
}

/** A web-like surface added by hand (not detected), with no controls. */
export const handSurface = (id: string): TestSurface =>
  new TestSurface({ id, driver: 'web', model: 'Web', controls: [] })

/** A driver whose detected devices are `devices` (edit it to plug and unplug). */
export class ListDriver implements SurfaceDriver {
  devices: DetectedDevice[] = []
  detects = 0
  opened: TestSurface[] = []
  failOpen: Error | undefined
  /** When set, detect() waits for it. */
  detectGate: Promise<void> | undefined
  openGate: Promise<void> | undefined
  constructor(readonly name = 'list') {}
  plug(id: string, extra: Partial<DetectedDevice> = {}): void {
    this.devices.push({ driver: this.name, id, model: `Model ${id}`, path: `/dev/${id}`, ...extra })
  }
  unplug(id: string): void {
    this.devices = this.devices.filter((d) => d.id !== id)
  }
  async detect(): Promise<DetectedDevice[]> {
    this.detects++
    if (this.detectGate) await this.detectGate
    return [...this.devices]
  }
  async open(d: DetectedDevice): Promise<Surface> {
    if (this.openGate) await this.openGate
    if (this.failOpen) throw this.failOpen
    const s = new TestSurface({ id: d.id, driver: this.name, model: d.model, controls: [] })
    this.opened.push(s)
    return s
  }
  last(id: string): TestSurface {
    return this.opened.filter((s) => s.description.id === id).at(-1)!
  }
}

/** A promise the test settles: a driver call, a hot-plug start or a write that finishes (or fails) when it says. */
export function gate() {
  let open!: () => void
  let fail!: (err: Error) => void
  const done = new Promise<void>((resolve, reject) => {
    open = resolve
    fail = reject
  })
  return { done, open, fail }
}

/** Opens the first device `driver` detects, closed when the test finishes, with its input recorded in order. */
export async function openFirstDetected<S extends Surface>(driver: {
  detect(): Promise<DetectedDevice[]>
  open(device: DetectedDevice): Promise<S>
}): Promise<{ surface: S; events: SurfaceEvent[] }> {
  const [detected] = await driver.detect()
  const surface = await driver.open(detected!)
  onTestFinished(() => surface.close())
  const events: SurfaceEvent[] = []
  surface.events.on('input', (e) => events.push(e))
  return { surface, events }
}
