/**
 * Typed events with ownership. A component that announces events holds the emitter; everybody else
 * gets only `on`/`off`/`once`. So a reader can never emit on a store's behalf, and a component that
 * stops removes the listeners it added, never everybody's (`removeAllListeners` is not offered).
 *
 * Usage: `readonly events: Listenable<MyEvents>` on the public side, built from `new EventHub<MyEvents>()`
 * kept private; the owner calls `hub.emit(...)`.
 */
import { EventEmitter } from 'eventemitter3'

/** An event map: event name → argument tuple. */
export type EventMap<T> = { [K in keyof T]: unknown[] }
/** The argument tuple of one event. */
export type EventArgs<T, E extends keyof T> = T[E] extends unknown[] ? T[E] : never
export type Listener<T, E extends keyof T> = (...args: EventArgs<T, E>) => void

/** The readers' side: subscribe and unsubscribe, nothing else. */
export interface Listenable<T extends EventMap<T>> {
  on<E extends keyof T & string>(event: E, listener: Listener<T, E>): this
  once<E extends keyof T & string>(event: E, listener: Listener<T, E>): this
  off<E extends keyof T & string>(event: E, listener: Listener<T, E>): this
  listenerCount(event: keyof T & string): number
}

/**
 * The owner's side. Give readers `hub.listenable` (or type a field as `Listenable<T>` and assign the
 * hub: its `emit` is then out of the readers' reach through the type system).
 */
export class EventHub<T extends EventMap<T>> implements Listenable<T> {
  // eventemitter3 keeps listeners in insertion order and tolerates removal during emit.
  private readonly emitter = new EventEmitter()
  /** A view of this hub with no `emit`, for handing out at runtime too. */
  readonly listenable: Listenable<T>

  constructor() {
    const on = this.on.bind(this)
    const once = this.once.bind(this)
    const off = this.off.bind(this)
    const listenerCount = this.listenerCount.bind(this)
    const view: Listenable<T> = {
      on: (e, l) => (on(e, l), view),
      once: (e, l) => (once(e, l), view),
      off: (e, l) => (off(e, l), view),
      listenerCount,
    }
    this.listenable = Object.freeze(view)
  }

  on<E extends keyof T & string>(event: E, listener: Listener<T, E>): this {
    this.emitter.on(event, listener as (...args: unknown[]) => void)
    return this
  }
  once<E extends keyof T & string>(event: E, listener: Listener<T, E>): this {
    this.emitter.once(event, listener as (...args: unknown[]) => void)
    return this
  }
  off<E extends keyof T & string>(event: E, listener: Listener<T, E>): this {
    this.emitter.off(event, listener as (...args: unknown[]) => void)
    return this
  }
  listenerCount(event: keyof T & string): number {
    return this.emitter.listenerCount(event)
  }
  /** Announces an event. Only the owner holds the hub itself. */
  emit<E extends keyof T & string>(event: E, ...args: EventArgs<T, E>): boolean {
    return this.emitter.emit(event, ...args)
  }
}

/**
 * A base for components that announce events themselves (a store, a link): readers get `on`/`once`/
 * `off`, and only the component's own code can `announce`. There is no public `emit`.
 */
export abstract class Announcer<T extends EventMap<T>> implements Listenable<T> {
  readonly #hub = new EventHub<T>()

  on<E extends keyof T & string>(event: E, listener: Listener<T, E>): this {
    this.#hub.on(event, listener)
    return this
  }
  once<E extends keyof T & string>(event: E, listener: Listener<T, E>): this {
    this.#hub.once(event, listener)
    return this
  }
  off<E extends keyof T & string>(event: E, listener: Listener<T, E>): this {
    this.#hub.off(event, listener)
    return this
  }
  listenerCount(event: keyof T & string): number {
    return this.#hub.listenerCount(event)
  }
  /** Announces an event to the listeners. */
  protected announce<E extends keyof T & string>(event: E, ...args: EventArgs<T, E>): boolean {
    return this.#hub.emit(event, ...args)
  }
}
