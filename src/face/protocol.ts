/**
 * The web surface's WebSocket protocol: JSON text frames, one message per frame.
 *
 * Keys travel as their face (`key` messages: colour, label, detail, level, badge as data), and the page
 * paints them with the layout code the daemon paints hardware keys with (`./key-paint.ts`) and
 * the same font, served by the daemon. So the daemon draws no pixels for a browser: a key update costs a
 * few dozen bytes of JSON, and the daemon does not load Skia for web keys at all (a fifth of its
 * resident memory). A feedback with a pre-rendered image is the one exception: the daemon draws that key
 * and sends it as a PNG data URL (`image`), which the page shows instead of painting.
 *
 * Server → browser: `hello`, `surface` (add or replace), `removed`, `key`, `state`, `brightness`, `page`.
 * Browser → server: `down`, `up` (keys, encoder presses), `rotate` (encoders, jog) and `value` (the
 * shuttle ring and faders: an absolute position, clamped to the control's range). Everything a
 * browser sends is validated here first (shape) and by the server (the surface is interactive and
 * has that control of a kind that takes that event); anything else is logged once and ignored.
 *
 * Shared by the daemon (`../surfaces/web/`) and the page (`../page/`): nothing here knows Node or the DOM.
 * What the server builds the views from (a surface's description, a feedback) is `../surfaces/web/views.ts`.
 */
import type { ControlId, ControlKind } from './control-id.js'
import type { FaceSpot } from './device-face.js'
import type { FeedbackBadge } from './feedback.js'
import type { KeyFace } from './key-paint.js'

/** Where the page loads the key font from, relative to the page. */
export const KEY_FONT_ROUTE = '/key-font.ttf'

/** 2: keys as faces the page paints (`key`), where 1 sent every key as a PNG (`image`). */
export const WEB_PROTOCOL_VERSION = 2

/** Largest frame a browser may send; the server's WebSocket closes the connection (1009) above it. */
export const MAX_CLIENT_MESSAGE_BYTES = 4096
/** A rotate message carries at most this many steps either way (the page batches per animation frame). */
export const MAX_ROTATE_DELTA = 1000
/** Longest surface or control id accepted from a browser. */
const MAX_ID_LENGTH = 200

/**
 * The query parameter of a read-only viewer, on the page (`?view=1`) and on its WebSocket (`ws?view=1`):
 * the page draws nothing that sends, and the server refuses every input on that socket.
 */
export const VIEW_PARAM = 'view'

/** Whether a `view` parameter's value asks for a viewer: present, and not `0`, `false` or `no`. */
export function viewerParam(value: string | null): boolean {
  return value !== null && !['0', 'false', 'no'].includes(value.trim().toLowerCase())
}

/**
 * The range of each control kind that takes absolute values from a browser (the table in
 * `./control-id.ts`): the shuttle is centred, a fader runs from the bottom. A value outside is clamped.
 */
const VALUE_RANGES: Readonly<Partial<Record<ControlKind, readonly [min: number, max: number]>>> = {
  shuttle: [-1, 1],
  fader: [0, 1],
}

/**
 * How the page draws a control: `key` a key face painted on a canvas; `pad` a key, button or MIDI pad that shows its
 * backlight or LED as a colour; `encoder` a dial that also presses; `knob` a dial whose ring shows the
 * value; `jog` a large wheel; `shuttle` the spring-loaded ring; `fader` a vertical slider (T-bar and
 * pitch bend too).
 */
export type WebWidget = 'key' | 'pad' | 'encoder' | 'knob' | 'jog' | 'shuttle' | 'fader'

/** A control as the page draws it. */
export interface WebControlView {
  id: ControlId
  kind: ControlKind
  widget: WebWidget
  /** Grid cell of a key or pad, from the top left; without one it goes in a row under the grid. */
  row?: number
  column?: number
  /** Pixel size of the key face, for controls that show one. */
  image?: { width: number; height: number }
  /** A fader that rests in the middle (pitch bend). */
  centred?: true
  /** Its box on the surface's `face` (a device drawn as it looks), in the face's units. */
  at?: FaceSpot
}

export interface WebSurfaceView {
  id: string
  driver: string
  model: string
  /** `interactive`: a configured web surface; `mirror`: a physical surface shown read-only. */
  mode: 'interactive' | 'mirror'
  /**
   * A configured hardware surface whose device is not plugged in (a `mirror`, drawn greyed): what it waits
   * for (`Stream Deck XL`), and whether its controls take presses for rehearsal (`rehearse: true`).
   */
  waiting?: { for: string; rehearse: boolean }
  grid?: { rows: number; columns: number }
  /**
   * A device drawn as it looks (its family's `face`: a Contour Shuttle's ring, jog and buttons): the
   * face's size in its units; each control's box is its `at`.
   */
  face?: { width: number; height: number }
  controls: WebControlView[]
}

/** What a control without an image shows (encoder rings, LEDs, RGB backlights). */
export interface WebControlState {
  color?: string
  text?: string
  /** `blink` makes a lit pad blink. */
  led?: 'off' | 'on' | 'blink'
  /**
   * The colour a pad's backlight or LED shows now (`#rrggbb`), worked out by the server as the device
   * lights it (`../surfaces/web/lights.ts`); absent when it is dark.
   */
  light?: string
  badge?: FeedbackBadge
  /** 0..1, clamped here: an encoder's ring, a level on a chip. */
  value?: number
  /** A short second line under the text. */
  detail?: string
}

export type ServerMessage =
  | { type: 'hello'; version: number }
  | { type: 'surface'; surface: WebSurfaceView }
  | { type: 'removed'; surface: string }
  /**
   * A key's face, painted by the page at the control's image size. `label` is the feedback text and
   * detail, for assistive tech and the tooltip. `image`, only for a feedback with a pre-rendered image:
   * the whole key drawn by the daemon, a `data:image/png;base64,...` URL shown instead of the face.
   */
  | { type: 'key'; surface: string; control: ControlId; face: KeyFace; label: string; image?: string }
  | { type: 'state'; surface: string; control: ControlId; state: WebControlState }
  | { type: 'brightness'; surface: string; percent: number }
  /**
   * The page a surface shows (to this browser: its own with `listen.pages: per-browser`) and its pages,
   * the first the start page; without `page`, the surface has no pages.
   */
  | { type: 'page'; surface: string; page?: string; pages: string[] }
  | DeckServerMessage
  | FindServerMessage

export type ClientMessage =
  | { type: 'down'; surface: string; control: ControlId }
  | { type: 'up'; surface: string; control: ControlId }
  | { type: 'rotate'; surface: string; control: ControlId; delta: number }
  /** An absolute position: -1..1 for the shuttle (0 = centre), 0..1 for a fader. */
  | { type: 'value'; surface: string; control: ControlId; value: number }

export type ParseResult = { ok: true; message: ClientMessage } | { ok: false; reason: string }

/** The part of the WHATWG `TextDecoder` the face uses: Node and every browser have it, under one name. */
interface Utf8Decoder {
  decode(input: Uint8Array): string
}
type TextDecoderClass = new (label: 'utf-8', options: { ignoreBOM: boolean }) => Utf8Decoder

/**
 * Decodes frame bytes as `Buffer.toString('utf8')` does (bad bytes become U+FFFD, a BOM is kept), but
 * without Node's `Buffer`: this module is also compiled into the page script, which has none. The face
 * is built with neither Node's nor the DOM's typings, so the global is named through its own type.
 */
const utf8 = new (globalThis as unknown as { TextDecoder: TextDecoderClass }).TextDecoder('utf-8', { ignoreBOM: true })

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH
}

/**
 * Checks the shape of one frame from a browser. Returns a short, stable reason when it is refused
 * (used as the log-once key, so it must not contain the frame's text).
 */
export function parseClientMessage(data: string | Uint8Array, isBinary: boolean): ParseResult {
  const decoded = decodeFrame(data, isBinary)
  return 'reason' in decoded ? decoded : clientMessageOf(decoded.value)
}

/** One frame as a JSON object, or why it is not one. */
function decodeFrame(
  data: string | Uint8Array,
  isBinary: boolean,
): { value: Record<string, unknown> } | { ok: false; reason: string } {
  if (isBinary) return { ok: false, reason: 'binary frame' }
  const text = typeof data === 'string' ? data : utf8.decode(data)
  if (text.length > MAX_CLIENT_MESSAGE_BYTES) return { ok: false, reason: 'too long' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'not JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not an object' }
  return { value: value as Record<string, unknown> }
}

function clientMessageOf(m: Record<string, unknown>): ParseResult {
  if (!isId(m.surface)) return { ok: false, reason: 'bad surface' }
  if (!isId(m.control)) return { ok: false, reason: 'bad control' }
  switch (m.type) {
    case 'down':
    case 'up':
      return { ok: true, message: { type: m.type, surface: m.surface, control: m.control } }
    case 'rotate': {
      const delta = m.delta
      if (typeof delta !== 'number' || !Number.isInteger(delta) || delta === 0 || Math.abs(delta) > MAX_ROTATE_DELTA) {
        return { ok: false, reason: 'bad delta' }
      }
      return { ok: true, message: { type: 'rotate', surface: m.surface, control: m.control, delta } }
    }
    case 'value': {
      const v = m.value
      if (typeof v !== 'number' || !Number.isFinite(v)) return { ok: false, reason: 'bad value' }
      // Bounded here to the widest range of any kind; the surface narrows it to the control's own.
      return { ok: true, message: { type: 'value', surface: m.surface, control: m.control, value: clamp(v, -1, 1) } }
    }
    default:
      return { ok: false, reason: 'unknown type' }
  }
}

/**
 * Stream Decks on the browser's machine (WebHID; issue 26.2): the page registers a deck it opened with
 * `deck-add` (its model id and serial as the library read them; `deck` is the page's own small number
 * for it), sends its input as `deck-input`, and takes back what the daemon shows on it (`deck-key`, a
 * face the page paints at the key's size and writes with the library; `deck-color`, `deck-brightness`)
 * and what became of it (`deck-state`). Additive: a page that never connects a deck sends none of it.
 * Shapes are checked here; what a registration may claim (known model, how many per page) by the
 * browser-deck family behind `../surfaces/web/page-devices.ts`.
 */
export type DeckClientMessage =
  | { type: 'deck-add'; deck: number; model: string; serial: string }
  | { type: 'deck-remove'; deck: number }
  | { type: 'deck-input'; deck: number; control: ControlId; input: 'down' | 'up' }
  | { type: 'deck-input'; deck: number; control: ControlId; input: 'rotate'; delta: number }

/** What became of a registered deck: a surface's (`open`), registered with no surface claiming it, refused, gone. */
export type DeckState = 'open' | 'unclaimed' | 'refused' | 'closed'

export type DeckServerMessage =
  | { type: 'deck-state'; deck: number; state: DeckState; surface?: string; detail?: string }
  | { type: 'deck-key'; deck: number; control: ControlId; face: KeyFace; image?: string }
  | { type: 'deck-color'; deck: number; control: ControlId; rgb: [number, number, number] }
  | { type: 'deck-brightness'; deck: number; percent: number }

/** The page's numbers for its decks run from 0 below this (the family allows fewer at once). */
const MAX_DECK_NUMBER = 16
/** Longest serial number a page may register (real ones are 12 to 14 characters). */
export const MAX_DECK_SERIAL_LENGTH = 64
/** Longest model id a page may name (the library's ids are at most 16 characters). */
const MAX_DECK_MODEL_LENGTH = 32

/**
 * Find by pressing from the page's editor (issue 42 item 1): `find` arms the surfaces named (every one
 * without), `disarm` ends it; arming also ends when this page's socket closes, after FIND_TIMEOUT_MS
 * without a press (`src/daemon/find.ts`), or when another page or the remote API re-arms. The daemon
 * answers `find-state` (armed or not, and on which surfaces) to every page, and sends `selected` with the
 * control pressed while armed (its press sent no command). Refused on a read-only viewer's socket.
 * Additive: a page without an editor sends none of it and may ignore both answers.
 */
export type FindClientMessage = { type: 'find'; surfaces?: string[] } | { type: 'disarm' }

export type FindServerMessage =
  | { type: 'find-state'; armed: boolean; surfaces?: string[] | 'all' }
  | { type: 'selected'; surface: string; control: ControlId; page: string | null }

/** Most surfaces one `find` may name (a config's surfaces are fewer). */
const MAX_FIND_SURFACES = 64

export type PageParseResult =
  | { ok: true; message: ClientMessage; deck?: undefined; find?: undefined }
  | { ok: true; deck: DeckClientMessage; message?: undefined; find?: undefined }
  | { ok: true; find: FindClientMessage; message?: undefined; deck?: undefined }
  | { ok: false; reason: string }

/** A find message's shape, or a short stable reason (a log-once key). */
function findMessageOf(m: Record<string, unknown>): FindClientMessage | string {
  if (m.type === 'disarm') return { type: 'disarm' }
  if (m.surfaces === undefined) return { type: 'find' }
  if (!Array.isArray(m.surfaces) || m.surfaces.length > MAX_FIND_SURFACES || !m.surfaces.every(isId))
    return 'bad find surfaces'
  return { type: 'find', surfaces: m.surfaces }
}

/** Checks one frame from a page: a control's input (`parseClientMessage`) or a deck's (`DeckClientMessage`). */
export function parsePageMessage(data: string | Uint8Array, isBinary: boolean): PageParseResult {
  const decoded = decodeFrame(data, isBinary)
  if ('reason' in decoded) return decoded
  const m = decoded.value
  if (m.type === 'find' || m.type === 'disarm') {
    const find = findMessageOf(m)
    return typeof find === 'string' ? { ok: false, reason: find } : { ok: true, find }
  }
  if (typeof m.type !== 'string' || !m.type.startsWith('deck-')) return clientMessageOf(m)
  const deck = deckMessageOf(m)
  return typeof deck === 'string' ? { ok: false, reason: deck } : { ok: true, deck }
}

/** A deck message's shape, or a short stable reason (a log-once key). */
function deckMessageOf(m: Record<string, unknown>): DeckClientMessage | string {
  const deck = m.deck
  if (typeof deck !== 'number' || !Number.isInteger(deck) || deck < 0 || deck >= MAX_DECK_NUMBER) return 'bad deck'
  switch (m.type) {
    case 'deck-add': {
      const { model, serial } = m
      if (typeof model !== 'string' || !/^[a-z0-9-]+$/.test(model) || model.length > MAX_DECK_MODEL_LENGTH)
        return 'bad deck model'
      // Printable ASCII only: a serial ends up in logs, the page and the config's claims.
      if (typeof serial !== 'string' || serial.length > MAX_DECK_SERIAL_LENGTH || !/^[\x20-\x7e]*$/.test(serial))
        return 'bad deck serial'
      return { type: 'deck-add', deck, model, serial: serial.trim() }
    }
    case 'deck-remove':
      return { type: 'deck-remove', deck }
    case 'deck-input': {
      if (!isId(m.control)) return 'bad control'
      if (m.input === 'down' || m.input === 'up')
        return { type: 'deck-input', deck, control: m.control, input: m.input }
      const delta = m.delta
      if (m.input !== 'rotate') return 'bad deck input'
      if (typeof delta !== 'number' || !Number.isInteger(delta) || delta === 0 || Math.abs(delta) > MAX_ROTATE_DELTA)
        return 'bad delta'
      return { type: 'deck-input', deck, control: m.control, input: 'rotate', delta }
    }
    default:
      return 'unknown type'
  }
}

/** Which browser events a control kind takes. */
export function acceptsEvent(kind: ControlKind, type: ClientMessage['type']): boolean {
  switch (type) {
    case 'down':
    case 'up':
      return kind === 'key' || kind === 'encoder'
    case 'rotate':
      return kind === 'encoder' || kind === 'jog'
    case 'value':
      return VALUE_RANGES[kind] !== undefined
  }
}

/** `value` within [min, max]; -0 becomes 0, so a centred shuttle is never "negative". */
function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value)) + 0
}

/** A value clamped to the range of its control kind; undefined for a kind that takes no values. */
export function clampValue(kind: ControlKind, value: number): number | undefined {
  const range = VALUE_RANGES[kind]
  if (!range || !Number.isFinite(value)) return undefined
  return clamp(value, range[0], range[1])
}
