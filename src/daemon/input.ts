/**
 * The one door every control event goes through on its way to the engine: a device's (or a web
 * page's) through the surface manager, and the remote API's `inject()`. Whatever must see every input,
 * whatever its source (the `GET /api/events` stream today; a recorder, or presses tracked per source,
 * later), hangs here and nowhere else.
 */
import type { ControlId, SurfaceEvent } from '../surfaces/types.js'
import type { InjectKind } from './api.js'

/** Where an input came from: a surface (hardware or a web page, through the manager), or the remote API. */
export type InputSource = 'surface' | 'api'

/** Sees every input after the engine has had it. */
export type InputObserver = (event: SurfaceEvent, source: InputSource) => void

export class InputDoor {
  private readonly observers = new Set<InputObserver>()

  constructor(private readonly engine: { handle(event: SurfaceEvent): void }) {}

  /** Hands an input to the engine, then to every observer. */
  enter(event: SurfaceEvent, source: InputSource): void {
    this.engine.handle(event)
    for (const observe of this.observers) observe(event, source)
  }

  /**
   * An injected event as a device would send it, through `enter` (`press` is down then up; `rotate`
   * takes a delta, `value` a normalised value). Each event is stamped as it enters, as a device's is.
   * The caller has checked that the control exists and takes this kind.
   */
  inject(surface: string, control: ControlId, kind: InjectKind, arg?: number): void {
    const enter = (e: Omit<SurfaceEvent, 'surface' | 'control' | 'at'>): void =>
      this.enter({ ...e, surface, control, at: performance.now() } as SurfaceEvent, 'api')
    switch (kind) {
      case 'press':
        enter({ type: 'down' })
        enter({ type: 'up' })
        break
      case 'down':
      case 'up':
        enter({ type: kind })
        break
      case 'rotate':
        enter({ type: 'rotate', delta: arg ?? 0 } as SurfaceEvent)
        break
      case 'value':
        enter({ type: 'value', value: arg ?? 0 } as SurfaceEvent)
        break
    }
  }

  /** Adds an observer; returns the function that removes it. */
  observe(observer: InputObserver): () => void {
    this.observers.add(observer)
    return () => void this.observers.delete(observer)
  }
}
