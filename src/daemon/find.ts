/**
 * Find by pressing (issue 42 item 1, SKAARHOJ's listening mode): armed on one surface, several or all,
 * the next press, turn or move of a control there *selects* it for the editor instead of reaching the
 * engine, so nothing is sent (a jog or fader that selects is not also sent). It sits in the input door
 * (`input.ts`), where every family's events and the remote API's enter, so every family is covered.
 * Other surfaces keep working.
 *
 * Arming ends by itself FIND_TIMEOUT_MS after it was armed or after the last selection, on disarm
 * (`DELETE /api/find`), and when the page socket that armed it closes (`owner`), so a forgotten editor
 * never leaves a desk dead on air. An `up` whose `down` was taken is taken too (even once disarmed), and
 * one whose `down` went to the engine before arming goes there, so no press is left half done.
 */
import type { Logger } from '../log.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import type { SelectedEvent } from './api.js'
import type { ControlId } from '../face/control-id.js'

/**
 * How long find-by-pressing stays armed without a press, ms. ASSUMED: 60 s, the figure: long
 * enough to walk to the desk, short enough that a forgotten editor does not hold a panel through a show.
 */
export const FIND_TIMEOUT_MS = 60_000

export interface FindModeOptions {
  /** The page a surface is on (null: none). */
  pageOf(surface: string): string | undefined
  /** A control was selected: to the event stream and the page that armed. */
  selected(e: SelectedEvent): void
  /** Shows the selection on the control where the surface can (a key or LED flashed once). */
  flash?(surface: string, control: ControlId): void
  /** Armed (or re-armed) on these surfaces. */
  armed?(surfaces: string[] | 'all'): void
  /** Arming ended (timed out, disarmed, its page closed). */
  ended?(why: 'timeout' | 'disarmed' | 'closed'): void
  log?: Logger
}

/** Who armed: the remote API, or a page socket (whose close disarms). */
export type FindOwner = 'api' | { page: number }

export class FindMode {
  /** The surfaces armed (`all`: every one), or undefined when not armed. */
  private armedOn: ReadonlySet<string> | 'all' | undefined
  private owner: FindOwner | undefined
  private timer: NodeJS.Timeout | undefined
  /** Presses whose `down` was taken (`surface\0control\0source`): their `up` is taken too. */
  private readonly held = new Set<string>()
  /** The control selected last: a turn or move on it selects it again without a new event. */
  private last: string | undefined

  constructor(private readonly o: FindModeOptions) {}

  get armed(): boolean {
    return this.armedOn !== undefined
  }

  /** The surfaces armed, `all`, or undefined. */
  get surfaces(): string[] | 'all' | undefined {
    return this.armedOn === 'all' || this.armedOn === undefined ? this.armedOn : [...this.armedOn]
  }

  /** Arms `surfaces` (all when absent or empty); re-arming replaces what was armed and restarts the time. */
  arm(surfaces: readonly string[] | undefined, owner: FindOwner = 'api'): void {
    this.armedOn = surfaces && surfaces.length > 0 ? new Set(surfaces) : 'all'
    this.owner = owner
    this.last = undefined
    this.restart()
    this.o.log?.info('find by pressing armed', { surfaces: this.surfaces })
    this.o.armed?.(this.surfaces ?? 'all')
  }

  /** Disarms (whoever armed). */
  disarm(): void {
    this.end('disarmed')
  }

  /** A page socket closed: disarms when it was the one that armed. */
  ownerGone(owner: FindOwner): void {
    const o = this.owner
    if (o !== undefined && o !== 'api' && owner !== 'api' && o.page === owner.page) this.end('closed')
  }

  /**
   * Whether the door hands `event` to the engine: false when it was taken for the editor (a selection,
   * or the rest of a press that was).
   */
  pass(event: SurfaceEvent): boolean {
    const key = `${event.surface}\u0000${event.control}\u0000${event.source ?? ''}`
    if (event.type === 'up') {
      // The end of a press: where its start went.
      return !this.held.delete(key)
    }
    if (this.armedOn === undefined) return true
    if (this.armedOn !== 'all' && !this.armedOn.has(event.surface)) return true
    if (event.type === 'down') this.held.add(key)
    const id = `${event.surface}/${event.control}`
    // A turn or move is a stream of events: the selection is made once, at its first.
    if (event.type === 'down' || this.last !== id) {
      this.last = id
      this.o.selected({ surface: event.surface, control: event.control, page: this.o.pageOf(event.surface) ?? null })
      this.o.flash?.(event.surface, event.control)
    }
    this.restart()
    return false
  }

  /** Stops the timer (the daemon stops). */
  close(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.armedOn = undefined
  }

  private restart(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.end('timeout'), FIND_TIMEOUT_MS)
    // An armed editor never keeps the process alive on its own.
    this.timer.unref?.()
  }

  private end(why: 'timeout' | 'disarmed' | 'closed'): void {
    if (this.armedOn === undefined) return
    clearTimeout(this.timer)
    this.timer = undefined
    this.armedOn = undefined
    this.owner = undefined
    this.last = undefined
    this.o.log?.info('find by pressing ended', { why })
    this.o.ended?.(why)
  }
}
