/**
 * The application's Companion automation registry, as the simulator has it: generated from its own
 * titles, in exactly the shapes NewBlue's Captivate Companion module (S1, d064e20) reads through
 * `_cmp_v1_query`, `_cmp_v1_queryFeedbackState`, `_cmp_v1_performAction` and `getImageSet` (protocol
 * notes 1.3, 2.1, 2.4, 5.9, 5.10). Line numbers below are S1's at d064e20.
 *
 * Per title, one actor (`newblue.sim.title.{uuid}`) with:
 * - actions: play (S1's playout commands `auto`, `autoin`, `autoout`, `take`, `inout`, lib/actions.js
 *   3-40), animate in, animate out, cut in, cut out, update a variable;
 * - feedbacks: on air (boolean: its id matches `.boolean.`, lib/feedbacks.js 33), play state (advanced:
 *   text and colours, the title's thumbnail, and an `overlayQueryKey` of the title id that S1 folds
 *   with the layer state, captivate.js 597-626), a variable's value (advanced: its text);
 * - one preset in the v2 form that S1's `PresetDefinition.fromV2` converts (lib/presets.js 38-106).
 *
 * Ids are `actor~scope~id` (S1 splits them with `split('~', 3)`, captivate.js 923; notes 5.10).
 * Everything about the registry's names is ASSUMED (S1 shows one sample action, lib/actions.js 3-40,
 * and one sample feedback state, captivate.js 576-585): they live here, once.
 */
import { crc32, deflateSync } from 'node:zlib'
import { isOnAir, type PlayState, type ScheduleAction } from '../../api/protocol.js'
import { isRecord } from '../../wire.js'
import { iconDataUrl } from './png.js'
import type { SimTitle } from './types.js'

// ---- names (ASSUMED, see the file comment) ---------------------------------------------------------

/** Every title's actor id starts so; the braced title id follows. */
const ACTOR_PREFIX = 'newblue.sim.title.'
/** The scope part of every id (S1's sample action uses `global`, lib/actions.js 8). */
const REGISTRY_SCOPE = 'global'

/** Action ids (the third part of a target). */
const REGISTRY_ACTIONS = {
  play: 'newblue.sim.playout.native.playAction',
  animateIn: 'newblue.sim.playout.animateIn',
  animateOut: 'newblue.sim.playout.animateOut',
  cutIn: 'newblue.sim.playout.cutIn',
  cutOut: 'newblue.sim.playout.cutOut',
  updateVariable: 'newblue.sim.data.updateVariable',
} as const

/** Feedback ids (the third part of a feedback's id). The on-air one is boolean: `.boolean.` (lib/feedbacks.js 33). */
const REGISTRY_FEEDBACKS = {
  onAir: 'newblue.sim.feedback.boolean.onAir',
  playState: 'newblue.sim.feedback.playState',
  variable: 'newblue.sim.feedback.variable',
} as const

/**
 * S1's play commands and what each does to a title that is off air / on air (lib/actions.js 11-32:
 * "Animate In / Animate Out", "Animate In / Cut Out", "Cut In / Animate Out", "Cut In / Cut Out",
 * "Animate In Or Animate Out"). `auto` is the application's own toggle (`automatic`, notes 4.1);
 * `inout` toggles the same way, chosen here (ASSUMED: the sample gives only its label).
 */
const PLAY_COMMANDS: Readonly<Record<string, { label: string; in: ScheduleAction; out: ScheduleAction }>> = {
  auto: { label: 'Animate In / Animate Out', in: 'automatic', out: 'automatic' },
  autoin: { label: 'Animate In / Cut Out', in: 'animateIn', out: 'cutout' },
  autoout: { label: 'Cut In / Animate Out', in: 'cutin', out: 'animateOut' },
  take: { label: 'Cut In / Cut Out', in: 'cutin', out: 'cutout' },
  inout: { label: 'Animate In Or Animate Out', in: 'animateIn', out: 'animateOut' },
}
const DEFAULT_PLAY_COMMAND = 'auto'

/** The image set S1 asks for (captivate.js 307) and the overlay names of its sample state (captivate.js 579-581). */
const IMAGE_SET_NAME = 'automation.glow.base'
const OVERLAY_IMAGE = 'play_layer'
const OVERLAY_IMAGE_ON_AIR = 'play_layer_red'

/** The registry's names above, for the scheduler and for tests that check what a client sees. */
export const REGISTRY_NAMES = {
  actorPrefix: ACTOR_PREFIX,
  scope: REGISTRY_SCOPE,
  actions: REGISTRY_ACTIONS,
  feedbacks: REGISTRY_FEEDBACKS,
  playCommands: PLAY_COMMANDS,
  imageSet: IMAGE_SET_NAME,
} as const

/** Side of the thumbnails the registry carries: Companion's buttons are 72 pixels (lib/cache.js 118). */
const REGISTRY_THUMB_SIDE = 72

/** Colours of the play-state feedback (Companion colours are 0xRRGGBB numbers). */
const TEXT_COLOR = 0xffffff
const OFF_AIR_BG = 0x263238
const ON_AIR_BG = 0xc62828

// ---- shapes S1 reads -------------------------------------------------------------------------------

export interface RegistryOption {
  type: 'dropdown' | 'textinput'
  id: string
  label: string
  default?: string
  tooltip?: string
  choices?: { id: string; label: string }[]
}

/** One action of `companion_actions` (lib/actions.js 51: target, label, name, description, options). */
export interface RegistryAction {
  target: string
  label: string
  name: string
  description: string
  options: RegistryOption[]
}

/** One feedback of `companion_feedbacks` (lib/feedbacks.js 22-34: id, label, options). */
export interface RegistryFeedback {
  id: string
  label: string
  description: string
  options: RegistryOption[]
}

/** One preset of `companion_presets`, v2 form (lib/presets.js 38-106). */
export interface RegistryPreset {
  label: string
  category: string
  bank: {
    style: 'png'
    text: string
    size: string
    color: number
    bgcolor: number
    alignment: string
    pngalignment: string
    png64: string
    latch: false
  }
  actions: { action: string; options: Record<string, string> }[]
  release_actions: { action: string; options: Record<string, string> }[]
  feedbacks: { type: string; options: Record<string, string> }[]
}

/** A feedback's state, as `_cmp_v1_queryFeedbackState` answers it (as JSON text) and the change signal carries it. */
export type FeedbackState = Record<string, string | number | boolean>

/** What the registry reads: the simulator's titles, current at every call. */
export interface RegistrySource {
  readonly titles: readonly SimTitle[]
}

// ---- ids ---------------------------------------------------------------------------------------------

export function actorIdOf(title: Pick<SimTitle, 'id'>): string {
  return `${ACTOR_PREFIX}${title.id}`
}

/** `actor~scope~id` */
export function fullId(actorId: string, id: string): string {
  return `${actorId}~${REGISTRY_SCOPE}~${id}`
}

/** The feedback id as the change signal carries it: `scope~id`, so that `${actorId}~${it}` is the definition's id (captivate.js 444). */
export function scopedId(id: string): string {
  return `${REGISTRY_SCOPE}~${id}`
}

/** The id without its scope: S1 sends `_cmp_v1_queryFeedbackState` the part after the scope (captivate.js 923-930). */
function unscoped(id: string): string {
  const parts = id.split('~')
  return parts[parts.length - 1] ?? ''
}

function sameId(a: string, b: string): boolean {
  const norm = (s: string): string => s.trim().replace(/^\{/, '').replace(/\}$/, '').toLowerCase()
  return norm(a) === norm(b)
}

// ---- images ------------------------------------------------------------------------------------------

/** A title's thumbnail at Companion's button size, base64 without the `data:` prefix (as `png64` is). */
export function thumbnail64(title: Pick<SimTitle, 'color'>): string {
  return iconDataUrl(REGISTRY_THUMB_SIDE, REGISTRY_THUMB_SIDE, title.color).replace(/^data:image\/png;base64,/, '')
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'ascii')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/**
 * A square RGBA PNG: a frame `thickness` pixels wide in `rgba`, transparent inside, as an overlay
 * that S1 composites onto a button's picture (captivate.js 726-779).
 */
export function framePng(side: number, rgba: readonly [number, number, number, number], thickness: number): Buffer {
  const rows: Buffer[] = []
  for (let y = 0; y < side; y++) {
    const row = Buffer.alloc(1 + side * 4) // filter byte 0, then RGBA
    for (let x = 0; x < side; x++) {
      const edge = x < thickness || y < thickness || x >= side - thickness || y >= side - thickness
      if (edge) row.set(rgba, 1 + x * 4)
    }
    rows.push(row)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(side, 0)
  header.writeUInt32BE(side, 4)
  header.set([8, 6, 0, 0, 0], 8) // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

let overlays: Record<string, string> | undefined
/** The overlays of the image set, drawn once (base64 without prefix). */
function overlayImages(): Record<string, string> {
  overlays ??= {
    [OVERLAY_IMAGE]: framePng(REGISTRY_THUMB_SIDE, [255, 255, 255, 96], 3).toString('base64'),
    [OVERLAY_IMAGE_ON_AIR]: framePng(REGISTRY_THUMB_SIDE, [229, 57, 53, 255], 6).toString('base64'),
  }
  return overlays
}

/**
 * `getImageSet(name, includeMimePrefix)`: an object of image name → base64 PNG (captivate.js 304-312
 * stores each under its name), with the `data:image/png;base64,` prefix when asked. An unknown set is
 * empty.
 */
export function imageSet(name: string, includeMimePrefix: boolean): Record<string, string> {
  if (name !== IMAGE_SET_NAME) return {}
  const prefix = includeMimePrefix ? 'data:image/png;base64,' : ''
  return Object.fromEntries(Object.entries(overlayImages()).map(([k, v]) => [k, `${prefix}${v}`]))
}

// ---- the registry -----------------------------------------------------------------------------------

/** What `_cmp_v1_performAction` resolved a target to: a `schedule` on one title. */
export interface ResolvedAction {
  title: SimTitle
  action: ScheduleAction
  variables?: Record<string, string>
}

export class RegistryError extends Error {
  override readonly name = 'RegistryError'
}

/** Longest option value read, characters (a variable's new value included). */
const MAX_OPTION_CHARS = 64 * 1024
/** Most options read from one call. */
const MAX_OPTIONS = 32

/**
 * The options a client sent (`_cmp_v1_performAction`, `_cmp_v1_queryFeedbackState`), bounded: at most
 * MAX_OPTIONS keys with text, number or flag values (as text, at most MAX_OPTION_CHARS); anything else
 * is left out. The result has no prototype, so a `__proto__` key is a name like any other.
 */
export function readOptions(raw: unknown): Record<string, string> {
  const out = Object.create(null) as Record<string, string>
  if (!isRecord(raw)) return out
  let n = 0
  for (const [k, v] of Object.entries(raw)) {
    if (n >= MAX_OPTIONS) break
    if (k.length > 256) continue
    if (typeof v === 'string') out[k] = v.slice(0, MAX_OPTION_CHARS)
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v)
    else continue
    n++
  }
  return out
}

export class AutomationRegistry {
  /** When the registry last changed (a title added or removed): `_cmp_v1_query('lastUpdateTime')`. */
  private updated = new Date()

  constructor(private readonly source: RegistrySource) {}

  /** Marks the registry changed now. */
  touch(now = new Date()): void {
    this.updated = now
  }

  get lastUpdateTime(): string {
    return this.updated.toISOString()
  }

  /** The title an actor id names, if it is still there. */
  titleOf(actorId: string): SimTitle | undefined {
    if (!actorId.startsWith(ACTOR_PREFIX)) return undefined
    const id = actorId.slice(ACTOR_PREFIX.length)
    return this.source.titles.find((t) => sameId(t.id, id))
  }

  /** `_cmp_v1_query(kind)`: an object keyed as S1 reads it (captivate.js 559-573); an unknown kind is `{}`. */
  query(kind: string): Record<string, unknown> {
    switch (kind) {
      case 'actions':
        return { companion_actions: this.actions() }
      case 'feedbacks':
        return { companion_feedbacks: this.feedbacks() }
      case 'presets':
        return { companion_presets: this.presets() }
      case 'lastUpdateTime':
        return { companion_lastUpdateTime: this.lastUpdateTime }
      default:
        return {}
    }
  }

  actions(): RegistryAction[] {
    return this.source.titles.flatMap((t) => {
      const actor = actorIdOf(t)
      const action = (
        id: string,
        name: string,
        description: string,
        options: RegistryOption[] = [],
      ): RegistryAction => ({
        target: fullId(actor, id),
        label: `${t.name}: ${name}`,
        name: `${t.name}: ${name}`,
        description,
        options,
      })
      return [
        action(REGISTRY_ACTIONS.play, 'Play', `Play ${t.name}`, [
          {
            type: 'dropdown',
            id: 'command',
            label: 'Play command',
            tooltip: 'Play command behavior',
            default: DEFAULT_PLAY_COMMAND,
            choices: Object.entries(PLAY_COMMANDS).map(([id, c]) => ({ id, label: c.label })),
          },
        ]),
        action(REGISTRY_ACTIONS.animateIn, 'Animate In', `Animate ${t.name} in`),
        action(REGISTRY_ACTIONS.animateOut, 'Animate Out', `Animate ${t.name} out`),
        action(REGISTRY_ACTIONS.cutIn, 'Cut In', `Cut ${t.name} in`),
        action(REGISTRY_ACTIONS.cutOut, 'Cut Out', `Cut ${t.name} out`),
        action(REGISTRY_ACTIONS.updateVariable, 'Update Variable', `Set a variable of ${t.name}`, [
          variableOption(t),
          { type: 'textinput', id: 'value', label: 'Value', default: '' },
          {
            type: 'dropdown',
            id: 'action',
            label: 'Update Type',
            default: 'update',
            choices: [
              { id: 'update', label: 'Animated Update' },
              { id: 'still', label: 'Immediate Update' },
            ],
          },
        ]),
      ]
    })
  }

  feedbacks(): RegistryFeedback[] {
    return this.source.titles.flatMap((t) => {
      const actor = actorIdOf(t)
      return [
        {
          id: fullId(actor, REGISTRY_FEEDBACKS.onAir),
          label: `${t.name}: On Air`,
          description: `${t.name} is running or paused`,
          options: [],
        },
        {
          id: fullId(actor, REGISTRY_FEEDBACKS.playState),
          label: `${t.name}: Play State`,
          description: `The thumbnail of ${t.name}, framed when it is on air`,
          options: [],
        },
        {
          id: fullId(actor, REGISTRY_FEEDBACKS.variable),
          label: `${t.name}: Variable Value`,
          description: `A variable of ${t.name} as the button's text`,
          options: [variableOption(t)],
        },
      ]
    })
  }

  presets(): RegistryPreset[] {
    return this.source.titles.map((t) => {
      const actor = actorIdOf(t)
      return {
        label: t.name,
        category: 'Titles',
        bank: {
          style: 'png',
          text: t.name,
          size: '14',
          color: TEXT_COLOR,
          bgcolor: OFF_AIR_BG,
          alignment: 'center:bottom',
          pngalignment: 'center:center',
          png64: thumbnail64(t),
          latch: false,
        },
        actions: [{ action: fullId(actor, REGISTRY_ACTIONS.play), options: { command: DEFAULT_PLAY_COMMAND } }],
        release_actions: [],
        feedbacks: [
          { type: fullId(actor, REGISTRY_FEEDBACKS.playState), options: {} },
          { type: fullId(actor, REGISTRY_FEEDBACKS.onAir), options: {} },
        ],
      }
    })
  }

  /**
   * A feedback's state for `_cmp_v1_queryFeedbackState(actorId, feedbackId, options)`; `feedbackId`
   * with or without its scope. Undefined for an actor or feedback the registry does not have.
   */
  feedbackState(actorId: string, feedbackId: string, options: Record<string, string>): FeedbackState | undefined {
    const title = this.titleOf(actorId)
    if (!title) return undefined
    return stateOf(title, unscoped(feedbackId), options, title.playState)
  }

  /** The `schedule` a target asks for (`_cmp_v1_performAction`); RegistryError for a target or option it cannot run. */
  resolveAction(target: string, options: Record<string, string>): ResolvedAction {
    const parts = target.split('~')
    if (parts.length < 2 || parts.length > 3) throw new RegistryError('unknown action target')
    const title = this.titleOf(parts[0]!)
    if (!title) throw new RegistryError('unknown action target')
    const onAir = isOnAir(title.playState)
    switch (parts[parts.length - 1] ?? '') {
      case REGISTRY_ACTIONS.play: {
        const name = options.command ?? DEFAULT_PLAY_COMMAND
        if (!Object.hasOwn(PLAY_COMMANDS, name)) throw new RegistryError('unknown play command')
        const command = PLAY_COMMANDS[name]!
        return { title, action: onAir ? command.out : command.in }
      }
      case REGISTRY_ACTIONS.animateIn:
        return { title, action: 'animateIn' }
      case REGISTRY_ACTIONS.animateOut:
        return { title, action: 'animateOut' }
      case REGISTRY_ACTIONS.cutIn:
        return { title, action: 'cutin' }
      case REGISTRY_ACTIONS.cutOut:
        return { title, action: 'cutout' }
      case REGISTRY_ACTIONS.updateVariable: {
        const name = options.variable ?? ''
        if (!title.variables.some((v) => v.name === name)) throw new RegistryError('unknown variable')
        const action = options.action === 'still' ? 'still' : 'update'
        return { title, action, variables: { [name]: options.value ?? '' } }
      }
      default:
        throw new RegistryError('unknown action target')
    }
  }

  /** `getValueForKey('newblue.automation.layerstate')`: the titles on air, lowercase as S1 compares them (captivate.js 611, 618). */
  layerState(): Record<string, { playState: 'running' | 'paused' }> {
    const out: Record<string, { playState: 'running' | 'paused' }> = {}
    for (const t of this.source.titles) {
      if (t.playState === 'Running') out[t.id] = { playState: 'running' }
      else if (t.playState === 'Paused') out[t.id] = { playState: 'paused' }
    }
    return out
  }
}

function variableOption(t: SimTitle): RegistryOption {
  return {
    type: 'dropdown',
    id: 'variable',
    label: 'Variable',
    default: t.variables[0]?.name ?? '',
    choices: t.variables.map((v) => ({ id: v.name, label: v.name })),
  }
}

/**
 * A feedback's state for a title in a given play state (also used for the state before a change, to
 * tell which feedbacks a change affects). Undefined for a feedback id the registry does not have.
 */
export function stateOf(
  title: SimTitle,
  feedbackId: string,
  options: Record<string, string>,
  play: PlayState,
): FeedbackState | undefined {
  switch (feedbackId) {
    case REGISTRY_FEEDBACKS.onAir:
      // A boolean feedback: S1 returns `!!state.value` (captivate.js 1021).
      return { value: isOnAir(play) }
    case REGISTRY_FEEDBACKS.playState:
      // The form of S1's sample state (captivate.js 576-585): overlay names chosen by the layer state.
      return {
        text: title.name,
        textColor: TEXT_COLOR,
        backgroundColor: isOnAir(play) ? ON_AIR_BG : OFF_AIR_BG,
        png64: thumbnail64(title),
        overlayQueryKey: title.id,
        overlayImageName: OVERLAY_IMAGE,
        overlayImageName_running: OVERLAY_IMAGE_ON_AIR,
        overlayImageName_paused: OVERLAY_IMAGE_ON_AIR,
      }
    case REGISTRY_FEEDBACKS.variable: {
      const v = title.variables.find((x) => x.name === options.variable)
      return v ? { text: v.value } : {}
    }
    default:
      return undefined
  }
}
