/**
 * A main/backup pair (`apps: { backup: { mirror_of: main } }`, issue 27) that never diverges silently.
 *
 * - Sending: every command sent to the main is sent to the backup too, by the router, each at most once
 *   and neither waiting for the other. A binding's at-most-one-in-flight rule is per application: a
 *   press made while the main has not answered the binding's previous one still goes to the backup
 *   (`mirrorsOnly`), when the backup has answered its own; the key then shows the main as diverged. Continuous controls (jog, shuttle, faders, knobs) are latest-wins
 *   on the backup per control and command (`sendToBackup`): one in flight, the newest waiting behind it,
 *   so a slow backup never piles up positions (and never delays the main, which has its own sender).
 *   Nothing is queued for a backup that is away: a command that cannot reach it fails there at once,
 *   and is never replayed when it comes back.
 * - Divergence, two ways, each shown on the keys as `diverged` with which side and why in `detail`,
 *   logged once and counted (`onDiverged`):
 *   - a command that succeeded on one and failed on the other marks its key (by origin) until a later
 *     command of that key succeeds on both, the title the key follows is seen in step, or a resync;
 *   - a title on air on one and not on the other (both links up) for longer than `divergedAfterMs`
 *     marks the keys following it until the two agree again. Running and Paused both count as on air:
 *     an in-animation that ends a few ms apart on two machines is not a divergence.
 */
import type { AppState } from '../api/app-state.js'
import { isOnAir } from '../api/protocol.js'
import type { Logger } from '../log.js'
import type { Sender, SendOptions, SendResult } from './sender.js'

/** What a key shows of a divergence: the side that is off, and why (the key's `detail`). */
export interface Divergence {
  detail: string
}

/** A backup send that a newer one of the same control replaced before it went out. */
const SUPERSEDED = 'superseded' as const
type BackupResult = SendResult | typeof SUPERSEDED

export interface MirrorSide {
  name: string
  state: AppState
}

export interface MirrorPairOptions {
  main: MirrorSide
  backup: MirrorSide & { sender: Sender }
  divergedAfterMs: number
  log: Logger
  /** Something a key shows changed (a divergence came or went, a link changed). */
  changed: () => void
  /** A divergence began: `reason` is `command` or `state` (metrics). */
  onDiverged?: (backup: string, reason: 'command' | 'state') => void
}

interface Waiting {
  params: Record<string, unknown>
  options: SendOptions
  resolve: (r: BackupResult) => void
}

/** Whether a title is on air in a state (a title the state lacks is off air). */
function onAir(state: AppState, name: string): boolean {
  const t = state.titleByName(name)
  return t !== undefined && isOnAir(t.play)
}

export class MirrorPair {
  /** Continuous sends to the backup in flight, by `origin\0command`, with the newest one waiting. */
  private readonly inFlight = new Map<string, Waiting | undefined>()
  /** Other sends to the backup in flight, counted by origin (the backup's own at-most-one per binding). */
  private readonly pressesInFlight = new Map<string, number>()
  /** Keys whose last command succeeded on one side only, with the title they follow (if any). */
  private readonly commandSplit = new Map<string, Divergence & { title?: string }>()
  /** Titles seen apart, with their timer until they count as diverged, or diverged. */
  private readonly apart = new Map<string, { timer?: NodeJS.Timeout; diverged?: Divergence }>()
  private readonly detach: () => void
  private disposed = false

  constructor(private readonly o: MirrorPairOptions) {
    const states = [o.main.state, o.backup.state]
    const onTitle = (state: AppState) => (change: { id: string }) => {
      const name = state.title(change.id)?.name
      if (name !== undefined) this.compare(name)
    }
    const handlers = states.map((s) => ({ s, title: onTitle(s) }))
    const scan = (): void => this.scan()
    for (const { s, title } of handlers) {
      s.on('title', title)
      s.on('titlesReset', scan)
      s.on('link', scan)
    }
    this.detach = () => {
      for (const { s, title } of handlers) {
        s.off('title', title)
        s.off('titlesReset', scan)
        s.off('link', scan)
      }
    }
  }

  get main(): string {
    return this.o.main.name
  }
  get backup(): string {
    return this.o.backup.name
  }

  /**
   * Sends one command to the backup. A continuous control's command waits behind the one of the same
   * control and command in flight, and is replaced by a newer one while it waits (`SUPERSEDED`).
   */
  sendToBackup(
    command: string,
    params: Record<string, unknown>,
    origin: string,
    options: SendOptions,
    continuous: boolean,
  ): Promise<BackupResult> {
    if (!continuous) {
      this.pressesInFlight.set(origin, (this.pressesInFlight.get(origin) ?? 0) + 1)
      const sent = this.o.backup.sender.send(command, params, origin, options)
      void sent.then(() => {
        const n = (this.pressesInFlight.get(origin) ?? 1) - 1
        if (n > 0) this.pressesInFlight.set(origin, n)
        else this.pressesInFlight.delete(origin)
      })
      return sent
    }
    const key = `${origin}\u0000${command}`
    if (this.inFlight.has(key)) {
      return new Promise((resolve) => {
        this.inFlight.get(key)?.resolve(SUPERSEDED)
        this.inFlight.set(key, { params, options, resolve })
      })
    }
    this.inFlight.set(key, undefined)
    const sent = this.o.backup.sender.send(command, params, origin, options)
    void sent.then(() => this.next(key, command, origin))
    return sent
  }

  /** Whether a command of `origin` is in flight to the backup (not yet answered there). */
  busyWith(origin: string): boolean {
    return this.pressesInFlight.has(origin)
  }

  /** The send in flight settled: the newest waiting one goes out (it is the latest, not a late one). */
  private next(key: string, command: string, origin: string): void {
    const waiting = this.inFlight.get(key)
    this.inFlight.delete(key)
    if (!waiting || this.disposed) {
      waiting?.resolve(SUPERSEDED)
      return
    }
    void this.sendToBackup(command, waiting.params, origin, waiting.options, true).then(waiting.resolve)
  }

  /** Both sides answered one command of `origin` (a key following `title`, if any). */
  outcome(origin: string, command: string, main: SendResult, backup: BackupResult, title?: string): void {
    if (backup === SUPERSEDED || this.disposed) return
    const cancelled = (r: SendResult): boolean => !r.ok && r.code === 'ABORTED'
    if (cancelled(main) || cancelled(backup)) return
    if (main.ok && backup.ok) {
      if (this.commandSplit.delete(origin)) this.o.changed()
      return
    }
    if (main.ok === backup.ok) return // both failed: the key says failed already
    const failed = (main.ok ? backup : main) as Extract<SendResult, { ok: false }>
    const side = main.ok ? this.backup : this.main
    const detail = `${side}: ${failed.message}`
    const before = this.commandSplit.get(origin)
    this.commandSplit.set(origin, { detail, ...(title !== undefined ? { title } : {}) })
    if (before?.detail === detail) return
    this.o.log.warn(`diverged: ${origin}: ${command} reached ${main.ok ? this.main : this.backup} only (${detail})`, {
      control: origin,
      command,
      main: this.main,
      backup: this.backup,
    })
    if (!before) this.o.onDiverged?.(this.backup, 'command')
    this.o.changed()
  }

  /**
   * What a key shows: the title it follows apart now (what is true now), else its command that reached
   * one side only (a backup back from an outage says what it lacks, not why it missed it).
   */
  divergenceOf(origin: string, title: string | undefined): Divergence | undefined {
    const apart = title !== undefined ? this.apart.get(title)?.diverged : undefined
    if (apart) return apart
    const split = this.commandSplit.get(origin)
    return split ? { detail: split.detail } : undefined
  }

  /** Whether both links are up (only then can the two be compared, or the backup be brought in step). */
  bothUp(): boolean {
    return this.o.main.state.link.status === 'connected' && this.o.backup.state.link.status === 'connected'
  }

  /** The titles whose on-air state differs now, with whether the main has each on air. */
  differing(): { name: string; mainOnAir: boolean }[] {
    const out: { name: string; mainOnAir: boolean }[] = []
    for (const name of this.names()) {
      const m = onAir(this.o.main.state, name)
      if (m !== onAir(this.o.backup.state, name)) out.push({ name, mainOnAir: m })
    }
    return out
  }

  /** A resync brought the backup in step: the command splits are forgotten (the states are compared anew). */
  resynced(): void {
    if (this.commandSplit.size === 0) return
    this.commandSplit.clear()
    this.o.changed()
  }

  dispose(): void {
    this.disposed = true
    this.detach()
    for (const a of this.apart.values()) clearTimeout(a.timer)
    this.apart.clear()
    for (const w of this.inFlight.values()) w?.resolve(SUPERSEDED)
    this.inFlight.clear()
  }

  // ---- state comparison ---------------------------------------------------------------------------

  private names(): Set<string> {
    const names = new Set<string>()
    for (const s of [this.o.main.state, this.o.backup.state]) for (const t of s.titles()) names.add(t.name)
    return names
  }

  /** Every title again (a link changed, a title list was replaced); the keys are redrawn. */
  private scan(): void {
    if (this.disposed) return
    for (const name of new Set([...this.names(), ...this.apart.keys()])) this.compare(name)
    this.o.changed()
  }

  /** One title: in step, apart (timed), or diverged. Nothing is judged while a link is down. */
  private compare(name: string): void {
    if (this.disposed || !this.bothUp()) return
    const m = onAir(this.o.main.state, name)
    const b = onAir(this.o.backup.state, name)
    const entry = this.apart.get(name)
    if (m === b) {
      this.inStep(name, entry)
      return
    }
    if (entry) return // already timed or diverged
    const timer = setTimeout(() => this.diverge(name, m), this.o.divergedAfterMs)
    timer.unref()
    this.apart.set(name, { timer })
  }

  private inStep(name: string, entry: { timer?: NodeJS.Timeout; diverged?: Divergence } | undefined): void {
    let cleared = false
    for (const [origin, split] of this.commandSplit) {
      if (split.title === name) cleared = this.commandSplit.delete(origin) || cleared
    }
    if (entry) {
      clearTimeout(entry.timer)
      this.apart.delete(name)
      if (entry.diverged) {
        this.o.log.info(`back in step: ${name} on ${this.main} and ${this.backup}`, { title: name })
        cleared = true
      }
    }
    if (cleared) this.o.changed()
  }

  private diverge(name: string, mainOnAir: boolean): void {
    if (this.disposed) return
    const side = mainOnAir ? this.backup : this.main
    const detail = `${side}: ${name} ${mainOnAir ? 'off air' : 'on air'}`
    this.apart.set(name, { diverged: { detail } })
    this.o.log.warn(
      `diverged: ${name} is ${mainOnAir ? 'on air' : 'off air'} on ${this.main} and not on ${this.backup}`,
      {
        title: name,
        main: this.main,
        backup: this.backup,
      },
    )
    this.o.onDiverged?.(this.backup, 'state')
    this.o.changed()
  }
}
