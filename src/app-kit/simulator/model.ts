/**
 * The simulated application's model: titles and their play state, video inputs, output and stream,
 * instant replay, the project, the video format and the notification senders. The command handlers
 * (`handlers/`) work on it; `state.ts` answers commands with them.
 */
import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'eventemitter3'
import {
  APP_ERRORS,
  SENDER_EVENTS,
  SIM_ASSUMED_DEFAULTS,
  type PlayState,
  type ScheduleAction,
} from '../../api/protocol.js'
import { checkCount, checkName, SIM_LIMITS } from './limits.js'
import type { Params } from './params.js'
import { getProfile, type SimProfile } from './profile.js'
import { dataNotification, playNotification, titleNotification } from './profile-shapes.js'
import { ReplayModel } from './replay.js'
import { SEED, titlesFromSeeds, type SimVideoIn } from './seed.js'
import { HandlerError, type HandlerResult, type SimTitle, type VideoFormat } from './types.js'

// ---------------------------------------------------------------------------------------------
// Notification senders and matching (contract: Notification commands, rules 1–5; decisions: Notifications)
// ---------------------------------------------------------------------------------------------

export interface Sender {
  /** The default sender has an empty name. */
  name: string
  /** Title ids filtered on; empty or containing 'all' = every title. */
  ids: string[]
  /** Input names filtered on; empty or containing 'all' = every input. */
  inputs: string[]
  events: string[]
  isDefault: boolean
}

/** What a notification is about, for matching against senders. */
export interface NotificationTopic {
  /** Event type: 'play', 'data', 'control', or 'event.<name>'. */
  event: string
  /** Braced id of the title concerned, if any. */
  titleId?: string
  /** Input names of the title concerned. */
  inputs?: readonly string[]
}

export function createDefaultSender(): Sender {
  return { name: '', ids: [], inputs: [], events: SENDER_EVENTS.defaultSender.split(','), isDefault: true }
}

/** Compares title ids with or without braces, case-insensitively. */
export function sameTitleId(a: string, b: string): boolean {
  return normaliseId(a) === normaliseId(b)
}
function normaliseId(id: string): string {
  return id.trim().replace(/^\{/, '').replace(/\}$/, '').toLowerCase()
}

function matchesAll(list: readonly string[]): boolean {
  return list.length === 0 || list.some((x) => x.toLowerCase() === 'all')
}

/**
 * Whether a sender passes a notification: its events name the topic's type (`event.*` covers every
 * `event.<name>`), its ids are all or include the title, and its inputs are all or share one with the
 * title. Topics without a title (system events) pass the id and input filters.
 */
export function senderMatches(sender: Sender, topic: NotificationTopic): boolean {
  const eventOk = sender.events.some((e) => e === topic.event || (e === 'event.*' && topic.event.startsWith('event.')))
  if (!eventOk) return false
  if (topic.titleId === undefined) return true
  if (!matchesAll(sender.ids) && !sender.ids.some((id) => sameTitleId(id, topic.titleId!))) return false
  if (matchesAll(sender.inputs)) return true
  const inputs = topic.inputs ?? []
  return sender.inputs.some((i) => inputs.includes(i))
}

export type NotificationEvents = { notify: [payload: object] }

/**
 * What changed in the model, whatever the profile announces on `onNotify` and whoever listens (the
 * scheduler's feedback and registry signals follow these). Emitted for every change, unfiltered by
 * subscriptions.
 */
export type ChangeEvents = {
  play: [title: SimTitle, state: PlayState]
  variables: [title: SimTitle, changed: readonly { name: string; value: string }[]]
  title: [change: 'added' | 'removed', title: SimTitle]
}

// ---------------------------------------------------------------------------------------------

export interface SimulatorStateOptions {
  /** Folder for title, layer-list and project files; relative `file` parameters resolve here. */
  dataDir: string
  /** In/out animation length of a title, ms. Default SIM_ASSUMED_DEFAULTS.animationMs. */
  animationMs?: number
  /** Start with the application's default sender (true). Tests of sender filtering turn it off. */
  defaultSender?: boolean
  /** The variant of the application to play. Default: the default profile (`captivate`). */
  profile?: SimProfile
}

/** A command's handler: what it does to the model and what it answers. */
export type Handler = (state: SimulatorModel, params: Params) => HandlerResult

export interface ProjectStatus {
  /** '' for an unsaved project. */
  filePath: string
  edited: boolean
  cached: boolean
  videoSource: string
}

export class SimulatorModel {
  readonly dataDir: string
  readonly animationMs: number
  /** The variant of the application being played (`config/app-profiles/`). */
  readonly profile: SimProfile
  /** Emits each notification once when at least one sender matches it. */
  readonly notifications = new EventEmitter<NotificationEvents>()
  /** Every change of titles, play states and variables, before any notification (see ChangeEvents). */
  readonly changes = new EventEmitter<ChangeEvents>()

  titles: SimTitle[] = titlesFromSeeds(SEED.titles)
  readonly videoIns: SimVideoIn[] = SEED.videoIns.map((x) => ({ ...x }))
  /**
   * Names of opened video inputs, in opening order. The two cameras are open from the start, so that
   * `switchVideoIn` works out of the box (a newcomer's first press).
   */
  readonly openedVideoIns: string[] = [...SEED.openedVideoIns]
  /** Device active in the switcher, per channel. */
  readonly switcher = new Map<number, string>()
  output = { device: SEED.defaultOutputDevice, channels: [0] }
  stream = { streaming: false, choice: '', serverUrl: '', containerFormat: 'RTMP', startedAt: '' }
  readonly replay: ReplayModel
  project: ProjectStatus = { filePath: '', edited: false, cached: false, videoSource: '' }
  /** Project file paths, most recent first. */
  recentProjects: string[] = []
  videoFormat: VideoFormat = { ...SEED.defaultVideoFormat }
  senders: Sender[]
  /** Id of the title open in the designer, or ''. */
  designerTitleId = ''

  private readonly timers = new Map<string, NodeJS.Timeout>()
  private closed = false
  private readonly withDefaultSender: boolean

  constructor(opts: SimulatorStateOptions) {
    this.dataDir = opts.dataDir
    this.profile = opts.profile ?? getProfile()
    this.animationMs = opts.animationMs ?? SIM_ASSUMED_DEFAULTS.animationMs
    this.withDefaultSender = opts.defaultSender !== false
    this.senders = this.withDefaultSender ? [createDefaultSender()] : []
    this.replay = new ReplayModel(
      this.videoIns.map((v) => v.name),
      () => this.videoFormat.frameRate,
    )
  }

  // ----- notifications ------------------------------------------------------------------------

  /**
   * Emits `payload` once if at least one sender matches the topic. Returns whether it was emitted. No
   * payload (the profile announces this change in no form, `profile-shapes.ts`) emits nothing.
   */
  notify(topic: NotificationTopic, payload: object | undefined): boolean {
    if (payload === undefined || !this.senders.some((s) => senderMatches(s, topic))) return false
    this.notifications.emit('notify', payload)
    return true
  }

  // ----- titles -------------------------------------------------------------------------------

  /** Titles of a channel in list order. */
  channelTitles(channel: number): SimTitle[] {
    return this.titles.filter((t) => t.channel === channel).sort((a, b) => a.position - b.position)
  }

  /** All titles by channel, then position. */
  orderedTitles(): SimTitle[] {
    return [...this.titles].sort((a, b) => a.channel - b.channel || a.position - b.position)
  }

  titleById(id: string): SimTitle | undefined {
    return this.titles.find((t) => sameTitleId(t.id, id))
  }

  /** A title by name or id (names first, the first in list order wins). */
  titleByNameOrId(nameOrId: string): SimTitle | undefined {
    return this.orderedTitles().find((t) => t.name === nameOrId) ?? this.titleById(nameOrId)
  }

  /**
   * The title addressed by `id` and/or `title` (contract: title selection parameters). Neither given or
   * nothing found → `notFound` (each command has its own text).
   */
  findTitle(p: Params, notFound: string = APP_ERRORS.timelineNoTitle): SimTitle {
    const t = p.has('id')
      ? this.titleById(p.str('id'))
      : p.has('title')
        ? this.titleByNameOrId(p.str('title'))
        : undefined
    if (!t) throw new HandlerError(notFound)
    return t
  }

  /** A braced UUID for a new title: `wanted` if valid and unused, a fresh one if absent. */
  newTitleId(wanted: string): string {
    if (wanted.trim() === '') return `{${randomUUID()}}`
    const bare = normaliseId(wanted)
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(bare) || this.titleById(bare)) {
      throw new HandlerError(APP_ERRORS.invalidParams)
    }
    return `{${bare}}`
  }

  /** `base`, or `base 2`, `base 3`... so that names stay usable as addresses. */
  uniqueTitleName(base: string): string {
    checkName(base, 'title name')
    const names = new Set(this.titles.map((t) => t.name))
    if (!names.has(base)) return base
    let n = 2
    while (names.has(`${base} ${n}`)) n++
    return checkName(`${base} ${n}`, 'title name')
  }

  /**
   * Inserts a title into its channel at `position` (end when undefined or past the end). Past
   * SIM_LIMITS.maxTitles the command fails and nothing changes.
   */
  insertTitle(title: SimTitle, position?: number): void {
    checkCount(this.titles.length + 1, SIM_LIMITS.maxTitles, 'titles')
    const count = this.titles.reduce((n, t) => (t.channel === title.channel ? n + 1 : n), 0)
    if (position === undefined || position < 0 || position >= count) {
      // Appending: positions are dense, so the new one is the count (no sort: newTitle stays linear).
      title.position = count
    } else {
      const list = this.channelTitles(title.channel)
      list.splice(position, 0, title)
      list.forEach((t, i) => (t.position = i))
    }
    this.titles.push(title)
    this.markEdited()
    this.changes.emit('title', 'added', title)
    this.notify(
      { event: 'control', titleId: title.id, inputs: title.inputs },
      titleNotification(this.profile.facts, 'added', title.id),
    )
  }

  /** Removes a title, renumbers its channel and stops its animations. */
  removeTitle(title: SimTitle): void {
    this.cancelTimer(title.id)
    this.titles = this.titles.filter((t) => t !== title)
    this.renumber(title.channel)
    if (this.designerTitleId === title.id) this.designerTitleId = ''
    this.markEdited()
    this.changes.emit('title', 'removed', title)
    this.notify(
      { event: 'control', titleId: title.id, inputs: title.inputs },
      titleNotification(this.profile.facts, 'removed', title.id),
    )
  }

  /** Moves a title to `position` in its channel (clamped) and renumbers the channel 0..n-1. */
  moveTitle(title: SimTitle, position: number): void {
    const list = this.channelTitles(title.channel).filter((t) => t !== title)
    list.splice(Math.max(0, Math.min(position, list.length)), 0, title)
    list.forEach((t, i) => (t.position = i))
    this.markEdited()
  }

  renumber(channel: number): void {
    this.channelTitles(channel).forEach((t, i) => (t.position = i))
  }

  /** Removes each of `titles` (a list of the state's own may be passed: it is copied first). */
  removeTitles(titles: readonly SimTitle[]): void {
    for (const t of [...titles]) this.removeTitle(t)
  }

  // ----- play state and variables (decisions: Title play state) -------------------------------

  setPlayState(title: SimTitle, state: PlayState): void {
    if (title.playState === state) return
    title.playState = state
    this.changes.emit('play', title, state)
    this.notify(
      { event: 'play', titleId: title.id, inputs: title.inputs },
      playNotification(this.profile.facts, title.id, state),
    )
  }

  /** Sets the known variables among `values`; emits one data notification listing what changed. */
  setVariables(title: SimTitle, values: ReadonlyMap<string, string>): number {
    const changed: { name: string; value: string }[] = []
    for (const variable of title.variables) {
      const value = values.get(variable.name)
      if (value !== undefined && value !== variable.value) {
        variable.value = value
        changed.push({ name: variable.name, value })
      }
    }
    if (changed.length > 0) {
      this.markEdited()
      this.changes.emit('variables', title, changed)
      this.notify(
        { event: 'data', titleId: title.id, inputs: title.inputs },
        dataNotification(this.profile.facts, title.id, changed),
      )
    }
    return changed.length
  }

  /**
   * Applies a schedule action to a title. Variables are set first (as in the XML `update+animatein`).
   * animateIn: Running, then Paused after animationMs. cutin: Paused. animateOut: Running, then Off.
   * cutout: Off. automatic: in when Off, else out. alert: in, hold for animationMs, out.
   * update/still/render: variables only, the play state is left alone.
   */
  applyAction(title: SimTitle, action: ScheduleAction, variables: ReadonlyMap<string, string>): void {
    this.setVariables(title, variables)
    switch (action) {
      case 'animateIn':
        return this.play(title, 'Running', 'Paused')
      case 'cutin':
        return this.play(title, 'Paused')
      case 'animateOut':
        if (title.playState === 'Off') return
        return this.play(title, 'Running', 'Off')
      case 'cutout':
        return this.play(title, 'Off')
      case 'automatic':
        this.applyAction(title, title.playState === 'Off' ? 'animateIn' : 'animateOut', new Map())
        return
      case 'alert':
        this.applyAction(title, 'animateIn', new Map())
        this.after(title, () => {
          this.setPlayState(title, 'Paused')
          this.after(title, () => this.applyAction(title, 'animateOut', new Map()))
        })
        return
      case 'update':
      case 'still':
      case 'render':
        return
    }
  }

  /** Sets `now` at once (dropping a pending change) and, when given, `then` after animationMs. */
  private play(title: SimTitle, now: PlayState, then?: PlayState): void {
    this.cancelTimer(title.id)
    this.setPlayState(title, now)
    if (then) this.after(title, () => this.setPlayState(title, then))
  }

  private after(title: SimTitle, fn: () => void): void {
    this.cancelTimer(title.id)
    if (this.closed) return
    const timer = setTimeout(() => {
      this.timers.delete(title.id)
      fn()
    }, this.animationMs)
    timer.unref()
    this.timers.set(title.id, timer)
  }

  private cancelTimer(id: string): void {
    const timer = this.timers.get(id)
    if (timer) clearTimeout(timer)
    this.timers.delete(id)
  }

  // ----- an application restart ---------------------------------------------------------------

  /**
   * The application quit and started again (the handle's `restart()`, while both transports are down).
   * ASSUMED (the notes say nothing of what survives a restart; decisions.md only that title ids change):
   * what lives in the running process is gone, the project's content is not. So pending animations are
   * dropped and every title is Off (nothing is on air in an application that just started), the
   * designer is closed, subscriptions are back to the default sender (clients subscribe again), and with
   * `title_ids_on_restart: new` every title gets a fresh braced UUID; names, variables, inputs and order
   * are kept. Each change is emitted on `changes` (play `Off`; for a new id, `removed` under the old id
   * then `added` under the new one), so what follows titles by id follows the new ids.
   */
  restarted(): void {
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    for (const t of this.orderedTitles()) this.setPlayState(t, 'Off')
    this.designerTitleId = ''
    this.senders = this.withDefaultSender ? [createDefaultSender()] : []
    if (this.profile.facts.title_ids_on_restart !== 'new') return
    for (const t of this.orderedTitles()) {
      this.changes.emit('title', 'removed', t)
      t.id = this.newTitleId('')
      this.changes.emit('title', 'added', t)
    }
  }

  // ----- project ------------------------------------------------------------------------------

  markEdited(): void {
    this.project.edited = true
  }

  /** Stops every pending animation; the state answers commands still but schedules nothing more. */
  close(): void {
    this.closed = true
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    this.notifications.removeAllListeners()
    this.changes.removeAllListeners()
  }
}
