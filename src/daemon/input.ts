/**
 * The one door every control event goes through on its way to the engine: a device's (or a web
 * page's) through the surface manager, and the remote API's `inject()`. Whatever must see every input,
 * whatever its source (the `GET /api/events` stream today; a recorder later), hangs here and nowhere else.
 *
 * Presses the operator never finished end here too: a remote API `down` holds its control only for a
 * lease (`lease_ms`, default `API_LEASE.defaultMs`); when the lease ends before its `up`, the press
 * is cancelled (nothing fires for it late) and logged. A remote API `press` on a control whose `down`
 * is still held cancels that one first, so a later press is never swallowed by an earlier `down` that
 * never got its `up`. A surface that goes (unplugged, removed by a reload) cancels every press held on it.
 */
import { createLogger, type Logger } from '../log.js'
import type { ControlId } from '../face/control-id.js'
import type { RotateEvent, SurfaceEvent } from '../surfaces/types.js'
import type { InjectKind } from './api.js'

/** Where an input came from: a surface (hardware or a web page, through the manager), or the remote API. */
export type InputSource = 'surface' | 'api'

/** Sees every input after the engine has had it. */
export type InputObserver = (event: SurfaceEvent, source: InputSource) => void

/** The source name the engine sees on the remote API's presses (tracked apart from a browser's or the device's). */
const API_SOURCE = 'api'

/** A remote client's lease on a control (`lease_ms`). */
export const API_LEASE = {
  /**
   * How long a remote API `down` holds its control without its `up`, ms: a script that dies between the
   * two must not hold the control for ever. ASSUMED: 10 s (issue 24, item 5), long enough for any hold a
   * binding takes (holds and hold-to-confirm are a few seconds).
   */
  defaultMs: 10_000,
  /** Bounds of `lease_ms`: shorter would cut a normal press; longer is a control held by a dead client. */
  minMs: 100,
  maxMs: 60_000,
} as const

/** What the door needs of the engine. */
export interface InputEngine {
  handle(event: SurfaceEvent): void
  /** Cancels every press held on a surface (see `Engine.cancelPresses`). */
  cancelPresses(surface: string): number
}

export class InputDoor {
  private readonly observers = new Set<InputObserver>()
  /** The lease of each remote API press held, by `surface/control`. */
  private readonly leases = new Map<string, NodeJS.Timeout>()
  private readonly log: Logger
  /** Turns summed while the run of code that brought them lasts (see the file's header). */
  private pending: RotateEvent | undefined
  /** The control (`turnKey`) whose turn went through last in this run of code; cleared by the microtask. */
  private lastTurn: string | undefined
  private pendingSource: InputSource = 'surface'
  private pendingKey = ''
  private flushQueued = false

  constructor(
    private readonly engine: InputEngine,
    logger?: Logger,
  ) {
    this.log = logger ?? createLogger('input')
  }

  /**
   * Takes inputs before the engine (find-by-pressing, `find.ts`): an event it does not pass reaches
   * neither the engine nor the observers.
   */
  gate: { pass(event: SurfaceEvent): boolean } | undefined

  /** Hands an input to the engine, then to every observer; a turn may wait to be summed with the next. */
  enter(event: SurfaceEvent, source: InputSource): void {
    if (this.gate && !this.gate.pass(event)) return
    if (event.type === 'rotate') return this.turn(event, source)
    this.flushTurns()
    this.lastTurn = undefined
    this.pass(event, source)
  }

  private pass(event: SurfaceEvent, source: InputSource): void {
    this.engine.handle(event)
    for (const observe of this.observers) observe(event, source)
  }

  /**
   * A turn: summed into the one waiting on its control, or, when a turn on that control just went
   * through in this run of code, kept to be summed; else it goes through at once. The source is part of
   * the key (an injected turn is never summed into a device's).
   */
  private turn(event: RotateEvent, source: InputSource): void {
    const key = turnKey(event, source)
    if (this.pending && this.pendingKey === key) {
      // The pending turn is the door's own copy. The newest stamp: the sum is as fresh as its last
      // turn (the engine drops stale input by it).
      this.pending.delta += event.delta
      this.pending.at = event.at
      return
    }
    this.flushTurns()
    if (this.lastTurn === key) {
      this.pending = { ...event }
      this.pendingSource = source
      this.pendingKey = key
    } else {
      this.lastTurn = key
      this.pass(event, source)
    }
    if (!this.flushQueued) {
      this.flushQueued = true
      queueMicrotask(() => {
        this.flushQueued = false
        this.flushTurns()
        this.lastTurn = undefined
      })
    }
  }

  /** Hands on the turn waiting, if any. */
  private flushTurns(): void {
    const pending = this.pending
    if (!pending) return
    this.pending = undefined
    this.pass(pending, this.pendingSource)
  }

  /**
   * An injected event as a device would send it, through `enter` (`press` is down then up; `rotate`
   * takes a delta, `value` a normalised value, `down` its lease in ms, default `API_LEASE.defaultMs`).
   * Each event is stamped as it enters, as a device's is. The caller has checked that the control
   * exists and takes this kind, and that a lease is within its bounds.
   */
  inject(surface: string, control: ControlId, kind: InjectKind, arg?: number): void {
    const enter = (e: Omit<SurfaceEvent, 'surface' | 'control' | 'at'>): void =>
      this.enter({ ...e, surface, control, at: performance.now(), source: API_SOURCE } as SurfaceEvent, 'api')
    switch (kind) {
      case 'press':
        // A down still held from the API (its up never came) would swallow this press: it is
        // cancelled first (as its lease would), so nothing of it fires late and this press goes.
        if (this.leases.has(`${surface}/${control}`)) {
          this.endLease(surface, control)
          this.enter({ type: 'up', cancel: true, surface, control, at: performance.now(), source: API_SOURCE }, 'api')
        }
        enter({ type: 'down' })
        enter({ type: 'up' })
        break
      case 'down':
        // A repeated down renews the lease of the press it continues.
        this.lease(surface, control, arg ?? API_LEASE.defaultMs)
        enter({ type: 'down' })
        break
      case 'up':
        this.endLease(surface, control)
        enter({ type: 'up' })
        break
      case 'rotate':
        enter({ type: 'rotate', delta: arg ?? 0 } as SurfaceEvent)
        break
      case 'value':
        enter({ type: 'value', value: arg ?? 0 } as SurfaceEvent)
        break
    }
  }

  /** A surface went (unplugged, removed): every press held on it is cancelled, its leases with them. */
  surfaceGone(surface: string): void {
    this.flushTurns()
    for (const key of [...this.leases.keys()]) if (key.startsWith(`${surface}/`)) this.endLease(...splitKey(key))
    const n = this.engine.cancelPresses(surface)
    if (n > 0) this.log.info('surface gone: presses held on it cancelled', { surface, presses: n })
  }

  /** Adds an observer; returns the function that removes it. */
  observe(observer: InputObserver): () => void {
    this.observers.add(observer)
    return () => void this.observers.delete(observer)
  }

  /** Ends every lease without acting on it (the daemon stops). */
  close(): void {
    this.pending = undefined
    for (const t of this.leases.values()) clearTimeout(t)
    this.leases.clear()
  }

  private lease(surface: string, control: ControlId, ms: number): void {
    const key = `${surface}/${control}`
    clearTimeout(this.leases.get(key))
    const t = setTimeout(() => {
      this.leases.delete(key)
      this.log.warn('remote API press not released within its lease: cancelled', {
        control: key,
        lease_ms: ms,
      })
      this.enter({ type: 'up', cancel: true, surface, control, at: performance.now(), source: API_SOURCE }, 'api')
    }, ms)
    // A lease never keeps the process alive on its own.
    t.unref()
    this.leases.set(key, t)
  }

  private endLease(surface: string, control: ControlId): void {
    const key = `${surface}/${control}`
    clearTimeout(this.leases.get(key))
    this.leases.delete(key)
  }
}

/** What turns must share to be summed: the control, the view and the source (and where they came in by). */
function turnKey(e: RotateEvent, source: InputSource): string {
  return `${source}\u0000${e.surface}\u0000${e.control}\u0000${e.view ?? ''}\u0000${e.source ?? ''}`
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/')
  return [key.slice(0, i), key.slice(i + 1)]
}
