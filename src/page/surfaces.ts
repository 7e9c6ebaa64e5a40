/**
 * The surfaces on the page: one section per surface (a grid of keys and pads, a strip of those without
 * a grid position, dials for encoders, knobs and the jog, sliders for the shuttle and faders) plus an
 * entry in the surface list, a link to that surface alone (`?surface=NAME`). Each control is drawn as
 * the widget the server names; a mirror's controls, and every control on a read-only viewer
 * (`?view=1`), show state only, with no input handlers. A mirror of configured hardware that is not
 * plugged in is drawn greyed, "waiting for" its device; one that takes rehearsal presses
 * (`rehearse: true`) is pressed like an interactive surface. Interactive surfaces come before mirrors.
 * Keys take the size the stylesheet gives them (they shrink to fit the screen). A device the server
 * sends a `face` for (a Contour Shuttle) is drawn as it looks: each control in its box on the face, the
 * jog inside the shuttle ring, the buttons where they are on the device.
 */
import type { ServerMessage, WebControlState, WebControlView, WebSurfaceView } from '../face/protocol.js'
import { ENCODER_STEPS_PER_TURN, JOG_STEPS_PER_TURN } from './angle.js'
import { el, labelText } from './dom.js'
import { dialHotkeyLabel, gridHotkey, Hotkeys, JOG_BACK, JOG_FORWARD, keyLabel, type HotkeyTargets } from './hotkeys.js'
import { holdable, rotatable, RotationBatcher, type Hold, type Send } from './input.js'
import { ariaLabelOf, badgeTip, KeyPainter, keyNode, setTitleSuffix, type KeyNode } from './keys.js'
import { surfaceHref, type PageOptions } from './options.js'
import { Fader, Shuttle, type Slider } from './sliders.js'

/** Key size when a surface names none. */
const DEFAULT_KEY_PX = 72
/** The side of a pad (a key of a device without a display) when no keys with images set the cell. */
const PAD_PX = 48
/** Columns a surface without a grid is sized for (its strip wraps). */
const STRIP_COLUMNS = 8

interface ShownSurface {
  view: WebSurfaceView
  section: HTMLElement
  item: HTMLElement
  /** Where the surface's page is shown, in its header and in the list. */
  pageLabels: HTMLElement[]
  controls: Map<string, HTMLElement>
  /** The keys, which show faces painted by the KeyPainter. */
  keys: Map<string, KeyNode>
  /** The shuttle and faders, which draw their own state. */
  sliders: Map<string, Slider>
  /** What the hotkeys drive, when this surface has them (an interactive surface on a page that sends). */
  hotkeys?: HotkeyTargets
}

/** Everything the page shows, driven by server messages. */
export class SurfacesView {
  private readonly surfaces = new Map<string, ShownSurface>()
  private readonly rotations: RotationBatcher
  private readonly painter = new KeyPainter()
  private readonly hotkeys: Hotkeys

  constructor(
    private readonly main: HTMLElement,
    private readonly list: HTMLElement,
    private readonly send: Send,
    private readonly options: PageOptions,
    /** Shown while the surface `?surface=NAME` asks for is not (or no longer) there. */
    private readonly missing?: HTMLElement,
  ) {
    this.rotations = new RotationBatcher(send)
    this.hotkeys = new Hotkeys(document)
    this.showMissing()
  }

  /** Applies one message from the server. */
  handle(m: ServerMessage): void {
    switch (m.type) {
      case 'hello':
        for (const id of [...this.surfaces.keys()]) this.remove(id)
        while (this.list.firstChild) this.list.firstChild.remove()
        break
      case 'surface':
        this.build(m.surface)
        break
      case 'removed':
        this.remove(m.surface)
        break
      case 'key': {
        const key = this.surfaces.get(m.surface)?.keys.get(m.control)
        if (key) this.painter.show(key, m)
        break
      }
      case 'state': {
        const slider = this.surfaces.get(m.surface)?.sliders.get(m.control)
        const node = this.control(m.surface, m.control)
        if (slider) slider.showState(m.state ?? {})
        else if (node) showState(node, m.control, m.state ?? {})
        break
      }
      case 'brightness': {
        const s = this.surfaces.get(m.surface)
        if (s) s.section.style.filter = m.percent >= 100 ? '' : `brightness(${Math.max(0.1, m.percent / 100)})`
        break
      }
      case 'page': {
        const s = this.surfaces.get(m.surface)
        if (s) showPage(s, m.page, m.pages)
        break
      }
      case 'deck-key':
      case 'deck-brightness':
      case 'deck-color':
      case 'deck-state':
        // A browser deck's own messages: the page's deck script (browser-deck.ts) takes them.
        break
      case 'find-state':
      case 'selected':
        // Find by pressing: the editor (editor/panel.ts) takes them.
        break
    }
  }

  private control(surface: string, control: string): HTMLElement | undefined {
    return this.surfaces.get(surface)?.controls.get(control)
  }

  /** Whether the page sends nothing for this surface: a mirror (but a rehearsing one), or any surface on a viewer. */
  private readonly(view: WebSurfaceView): boolean {
    return (view.mode === 'mirror' && view.waiting?.rehearse !== true) || this.options.view
  }

  private build(view: WebSurfaceView): void {
    this.remove(view.id)
    const readonly = this.readonly(view)
    const section = el('section', 'surface ' + (readonly ? 'readonly' : 'interactive'))
    section.dataset.surface = view.id
    section.dataset.mode = view.mode
    if (view.waiting) {
      section.classList.add('waiting')
      section.dataset.waitingFor = view.waiting.for
    }
    section.hidden = this.options.surface !== undefined && this.options.surface !== view.id
    const pageLabels = [el('span', 'page'), el('span', 'page')]
    section.appendChild(this.header(view, pageLabels[0]!))
    const grid = el('div', 'grid')
    const strip = el('div', 'strip')
    // Pads without a grid cell (a Shuttle's buttons), in rows of at most eight.
    const pads = el('div', 'strip pads')
    const dials = el('div', 'dials')
    // A device drawn as it looks: its controls where they are on it.
    const face = view.face ? faceElement(view.face) : undefined
    const shown: ShownSurface = {
      view,
      section,
      item: this.listItem(view, pageLabels[1]!),
      pageLabels,
      controls: new Map(),
      keys: new Map(),
      sliders: new Map(),
      ...(readonly ? {} : { hotkeys: { keys: new Map(), dials: [] } }),
    }
    let cell: { width: number; height: number } = { width: PAD_PX, height: PAD_PX }
    for (const c of view.controls) {
      let node: HTMLElement
      if (face && view.face && c.at) {
        node = this.faceControl(shown, c)
        placeOnFace(node, c.at, view.face)
        face.appendChild(node)
      } else if (c.widget === 'key' || c.widget === 'pad') {
        node = c.widget === 'key' ? this.keyElement(shown, c).element : this.padElement(shown, c)
        if (c.row !== undefined && c.column !== undefined) {
          node.style.gridRow = String(c.row + 1)
          node.style.gridColumn = String(c.column + 1)
          if (c.image) cell = c.image
          grid.appendChild(node)
        } else {
          if (c.widget === 'key') ownSize(node, c.image)
          ;(c.widget === 'key' ? strip : pads).appendChild(node)
        }
      } else if (c.widget === 'shuttle' || c.widget === 'fader') {
        node = this.sliderElement(shown, c)
        dials.appendChild(node)
      } else {
        node = this.dialElement(shown, c)
        dials.appendChild(node)
      }
      shown.controls.set(c.id, node)
    }
    sizeKeys(section, view, cell)
    const keys = el('div', 'keys')
    for (const part of [grid, strip, pads]) if (part.childNodes.length) keys.appendChild(part)
    const body = el('div', 'body')
    for (const part of [face, keys, dials]) if (part?.childNodes.length) body.appendChild(part)
    section.appendChild(body)
    this.surfaces.set(view.id, shown)
    let before: ShownSurface | undefined
    if (view.mode === 'interactive') {
      for (const s of this.surfaces.values()) {
        if (s.view.mode === 'mirror') {
          before = s
          break
        }
      }
    }
    this.main.insertBefore(section, before ? before.section : null)
    this.list.insertBefore(shown.item, before ? before.item : null)
    this.changed()
  }

  private header(view: WebSurfaceView, pageLabel: HTMLElement): HTMLElement {
    const head = el('header')
    head.appendChild(el('h2', 'name', view.id))
    head.appendChild(el('span', 'model', view.model))
    for (const badge of mirrorBadges(view)) head.appendChild(badge)
    if (view.mode !== 'mirror' && this.options.view)
      head.appendChild(badge('badge viewer', 'viewer', BADGE_TIPS.viewer))
    pageLabel.hidden = true
    head.appendChild(pageLabel)
    return head
  }

  /** The surface's entry in the list: a link to it alone, its model, its page. */
  private listItem(view: WebSurfaceView, pageLabel: HTMLElement): HTMLElement {
    const item = el('li')
    const link = el('a')
    link.appendChild(el('span', 'name', view.id))
    link.href = surfaceHref(view.id, this.options.view)
    if (this.options.surface === view.id) link.setAttribute('aria-current', 'page')
    item.appendChild(link)
    item.appendChild(document.createTextNode(' '))
    item.appendChild(el('span', 'model', view.model))
    for (const badge of mirrorBadges(view)) {
      item.appendChild(document.createTextNode(' '))
      item.appendChild(badge)
    }
    pageLabel.hidden = true
    item.appendChild(document.createTextNode(' '))
    item.appendChild(pageLabel)
    return item
  }

  private remove(id: string): void {
    const s = this.surfaces.get(id)
    if (!s) return
    s.section.remove()
    s.item.remove()
    for (const key of s.keys.values()) this.painter.forget(key)
    this.surfaces.delete(id)
    this.changed()
  }

  /** After a surface came or went: who has the hotkeys, and whether the asked-for surface is there. */
  private changed(): void {
    this.showMissing()
    let active: ShownSurface | undefined
    for (const section of this.main.children) {
      const s = this.surfaces.get((section as HTMLElement).dataset.surface ?? '')
      if (s?.hotkeys && !s.section.hidden) {
        active = s
        break
      }
    }
    for (const s of this.surfaces.values()) labelHotkeys(s, s === active)
    this.hotkeys.use(active?.hotkeys)
  }

  private showMissing(): void {
    if (!this.missing) return
    const wanted = this.options.surface
    this.missing.hidden = wanted === undefined || this.surfaces.has(wanted)
  }

  private keyElement(shown: ShownSurface, c: WebControlView): KeyNode {
    const { view } = shown
    const mirror = view.mode === 'mirror'
    const readonly = this.readonly(view)
    const key = readonly ? el('div', 'key') : el('button', 'key')
    if (key instanceof HTMLButtonElement) key.type = 'button'
    key.dataset.surface = view.id
    key.dataset.control = c.id
    const size = c.image ?? { width: DEFAULT_KEY_PX, height: DEFAULT_KEY_PX }
    const suffix = readonly ? (mirror ? ' (read-only mirror)' : ' (viewer)') : mirror ? ' (rehearsal)' : ''
    if (readonly) {
      key.setAttribute('aria-disabled', 'true')
      key.title = c.id + suffix
    } else {
      const hold = holdable(key, view.id, c.id, this.send)
      const code = c.row !== undefined && c.column !== undefined ? gridHotkey(c.row, c.column) : undefined
      if (code !== undefined) {
        shown.hotkeys?.keys.set(code, hold)
        key.dataset.hotkeyLabel = keyLabel(code)
      }
    }
    const node = keyNode(key, size, c.id, { title: suffix, aria: readonly ? ' (read-only)' : '' })
    shown.keys.set(c.id, node)
    return node
  }

  /** A pad; on a waiting surface that rehearses (and not on a viewer) it presses as a key does. */
  private padElement(shown: ShownSurface, c: WebControlView): HTMLElement {
    const { view } = shown
    const pad = padElement(view, c)
    if (!this.readonly(view)) {
      pad.title = c.id + ' (rehearsal)'
      pad.setAttribute('aria-label', c.id)
      pad.setAttribute('role', 'button')
      const hold = holdable(pad, view.id, c.id, this.send)
      const code = c.row !== undefined && c.column !== undefined ? gridHotkey(c.row, c.column) : undefined
      if (code !== undefined) {
        shown.hotkeys?.keys.set(code, hold)
        pad.dataset.hotkeyLabel = keyLabel(code)
      }
    }
    return pad
  }

  /** A control drawn on a device's face: a pad, or the jog and shuttle ring as the device has them. */
  private faceControl(shown: ShownSurface, c: WebControlView): HTMLElement {
    if (c.widget === 'pad') return this.padElement(shown, c)
    if (c.widget === 'key') return this.keyElement(shown, c).element
    if (c.widget === 'shuttle' || c.widget === 'fader') return this.sliderElement(shown, c)
    return this.dialElement(shown, c)
  }

  private sliderElement(shown: ShownSurface, c: WebControlView): HTMLElement {
    const { view } = shown
    const send = this.readonly(view) ? undefined : this.send
    const slider =
      c.widget === 'shuttle'
        ? new Shuttle(view.id, c.id, send, c.at !== undefined)
        : new Fader(view.id, c.id, send, c.centred)
    shown.sliders.set(c.id, slider)
    const track = slider.element.querySelector<HTMLElement>('.track')
    if (track && shown.hotkeys) addDialHotkey(shown.hotkeys, slider.element, track)
    return slider.element
  }

  private dialElement(shown: ShownSurface, c: WebControlView): HTMLElement {
    const { view } = shown
    const dial = el('div', 'dial ' + c.widget)
    dial.dataset.surface = view.id
    dial.dataset.control = c.id
    const ring = el('div', 'ring')
    const turn = el('div', 'turn')
    turn.appendChild(el('span', 'mark'))
    ring.appendChild(turn)
    if (this.readonly(view)) {
      ring.setAttribute('aria-label', c.id + ' (read-only)')
      dial.title = c.id + (view.mode === 'mirror' ? ' (read-only mirror)' : ' (viewer)')
    } else {
      ring.setAttribute('aria-label', c.id + ': drag around, scroll or use the arrow keys to turn')
      ring.tabIndex = 0
      const stepsPerTurn = c.widget === 'jog' ? JOG_STEPS_PER_TURN : ENCODER_STEPS_PER_TURN
      const step = rotatable(ring, turn, { surface: view.id, control: c.id, stepsPerTurn }, this.rotations)
      if (c.widget === 'jog' && shown.hotkeys && !shown.hotkeys.jog) {
        shown.hotkeys.jog = step
        dial.dataset.hotkeyLabel = `${arrow(JOG_BACK)} ${arrow(JOG_FORWARD)}`
      }
      if (c.widget === 'encoder') {
        const press = el('button', 'press')
        press.type = 'button'
        press.tabIndex = -1
        press.setAttribute('aria-label', c.id + ' press')
        pressFromRing(ring, holdable(press, view.id, c.id, this.send))
        ring.appendChild(press)
      }
      if (shown.hotkeys) addDialHotkey(shown.hotkeys, dial, ring)
    }
    dial.appendChild(ring)
    dial.appendChild(el('span', 'label', c.id))
    return dial
  }
}

/** A device's face: as wide as the page allows (up to the stylesheet's size), as tall as its shape. */
function faceElement(face: { width: number; height: number }): HTMLElement {
  const node = el('div', 'face')
  node.style.setProperty('--face-aspect', `${face.width} / ${face.height}`)
  return node
}

/** Puts a control in its box on the face (percentages of the face, so it scales with it). */
function placeOnFace(
  node: HTMLElement,
  at: NonNullable<WebControlView['at']>,
  face: { width: number; height: number },
): void {
  node.classList.add('on-face')
  node.style.left = `${(at.x / face.width) * 100}%`
  node.style.top = `${(at.y / face.height) * 100}%`
  node.style.width = `${(at.w / face.width) * 100}%`
  node.style.height = `${(at.h / face.height) * 100}%`
}

function arrow(code: string): string {
  return code === JOG_BACK ? '←' : code === JOG_FORWARD ? '→' : code
}

/** Space or Enter on a focused encoder ring presses the encoder. */
function pressFromRing(ring: HTMLElement, hold: Hold): void {
  ring.addEventListener('keydown', (e) => {
    if ((e.key === ' ' || e.key === 'Enter') && e.target === ring && !e.repeat) {
      e.preventDefault()
      hold.down()
    }
  })
  ring.addEventListener('keyup', (e) => {
    if (e.key === ' ' || e.key === 'Enter') hold.up()
  })
  ring.addEventListener('blur', () => hold.up())
}

/** Gives a dial or slider the next `Shift+digit` hotkey, if one is left. */
function addDialHotkey(targets: HotkeyTargets, control: HTMLElement, focus: HTMLElement): void {
  const label = dialHotkeyLabel(targets.dials.length)
  if (label === undefined) return
  targets.dials.push(focus)
  control.dataset.dialHotkeyLabel = label
}

/** Shows (or hides) the hotkeys of a surface's controls: on hover, and in each tooltip. */
function labelHotkeys(s: ShownSurface, on: boolean): void {
  for (const node of s.controls.values()) {
    const labels = [node.dataset.hotkeyLabel, node.dataset.dialHotkeyLabel].filter((l) => l !== undefined)
    if (on && labels.length > 0) node.dataset.hotkey = labels.join(' · ')
    else delete node.dataset.hotkey
  }
  for (const key of s.keys.values()) {
    const hotkey = key.element.dataset.hotkey
    setTitleSuffix(key, key.baseSuffix + (on && hotkey !== undefined ? ` (hotkey ${hotkey})` : ''))
  }
}

/**
 * The stylesheet's inputs for sizing the grid's keys: its columns and rows, the keys' image size (the
 * largest they are drawn) and their height to width.
 */
function sizeKeys(section: HTMLElement, view: WebSurfaceView, cell: { width: number; height: number }): void {
  // Without a grid, the strip's pads are sized for a row of at most STRIP_COLUMNS: a few pads keep their size.
  const strip = view.controls.filter((c) => (c.widget === 'pad' || c.widget === 'key') && !c.at).length
  const columns = view.grid?.columns ?? Math.max(1, Math.min(STRIP_COLUMNS, strip))
  const rows = view.grid?.rows ?? 1
  section.style.setProperty('--cols', String(columns))
  section.style.setProperty('--rows', String(rows))
  section.style.setProperty('--natural-w', `${cell.width}px`)
  section.style.setProperty('--aspect', String(cell.height / cell.width))
}

/** A key outside the grid (an LCD segment) keeps its own image size, shrunk only to fit the page. */
function ownSize(node: HTMLElement, image: { width: number; height: number } | undefined): void {
  const size = image ?? { width: DEFAULT_KEY_PX, height: DEFAULT_KEY_PX }
  node.classList.add('own-size')
  node.style.setProperty('--own-w', `${size.width}px`)
  node.style.setProperty('--own-aspect', String(size.height / size.width))
}

/** Shows the surface's current page (hidden for a surface without pages). */
function showPage(s: ShownSurface, page: string | undefined, pages: readonly string[]): void {
  for (const label of s.pageLabels) {
    label.hidden = page === undefined
    label.textContent = page === undefined ? '' : `page ${page}`
    label.title = page === undefined ? '' : `The page of controls the surface shows now; its pages: ${pages.join(', ')}`
  }
  if (page === undefined) delete s.section.dataset.page
  else s.section.dataset.page = page
}

/**
 * The badges of a mirror in its header and list entry: `read-only`, or for configured hardware that is
 * not plugged in, `waiting for <device>` (and `rehearsal` when its controls take presses).
 */
function mirrorBadges(view: WebSurfaceView): HTMLElement[] {
  if (view.mode !== 'mirror') return []
  if (!view.waiting) return [badge('badge', 'read-only', BADGE_TIPS.readonly)]
  const badges = [
    badge('badge waiting', `waiting for ${view.waiting.for}`, `${BADGE_TIPS.waiting} (${view.waiting.for})`),
  ]
  if (view.waiting.rehearse) badges.push(badge('badge rehearsal', 'rehearsal', BADGE_TIPS.rehearsal))
  else badges.push(badge('badge', 'read-only', BADGE_TIPS.readonly))
  return badges
}

/** What a surface's badges mean, their tooltips (the legend says the same). */
const BADGE_TIPS = {
  readonly: 'A mirror of hardware: it shows what the device shows and takes no presses here.',
  waiting: 'Configured hardware that is not plugged in',
  rehearsal: 'Its controls take presses from this page, as the device would (rehearse: true).',
  viewer: 'A read-only viewer: this page sends nothing.',
} as const

function badge(cls: string, text: string, title: string): HTMLElement {
  return Object.assign(el('span', cls, text), { title })
}

/** A key, button or pad of a mirrored device: its backlight or LED as a colour, its label inside. */
function padElement(view: WebSurfaceView, c: WebControlView): HTMLElement {
  const pad = el('div', 'pad')
  pad.dataset.surface = view.id
  pad.dataset.control = c.id
  pad.title = c.id + ' (read-only mirror)'
  pad.setAttribute('aria-label', c.id + ' (read-only)')
  pad.appendChild(el('span', 'text'))
  return pad
}

/**
 * Shows the state of a control without an image: a dial's label (the detail on a second line) and
 * ring (the value as an arc), or a pad's light, label and badge.
 */
function showState(node: HTMLElement, control: string, state: WebControlState): void {
  if (node.classList.contains('dial')) {
    const label = node.querySelector<HTMLElement>('.label')
    const ring = node.querySelector<HTMLElement>('.ring')
    if (label) label.textContent = labelText(control, state)
    if (ring) {
      ring.style.borderColor = state.color ?? ''
      showValue(ring, state.value)
    }
  } else {
    // A pad: lit in the colour the device shows (worked out by the server), dark without one.
    const text = node.querySelector<HTMLElement>('.text')
    if (text) text.textContent = state.text ?? ''
    const pressable = node.getAttribute('role') === 'button'
    const role = pressable ? '(rehearsal)' : '(read-only mirror)'
    node.setAttribute('aria-label', ariaLabelOf(state.text, control, pressable ? '' : ' (read-only)'))
    node.title = `${control}${state.text ? ': ' + state.text : ''}${state.detail ? ` (${state.detail})` : ''} ${role}${badgeTip(state.badge)}`
    node.style.backgroundColor = state.light ?? ''
    node.classList.toggle('lit', state.light !== undefined)
    node.classList.toggle('blink', state.light !== undefined && state.led === 'blink')
    if (state.badge) node.dataset.badge = state.badge
    else delete node.dataset.badge
  }
}

/** The stylesheet draws `.has-value` from `--value` (0..1, clamped by the server). */
function showValue(node: HTMLElement, value: number | undefined): void {
  node.classList.toggle('has-value', value !== undefined)
  if (value === undefined) node.style.removeProperty('--value')
  else node.style.setProperty('--value', String(value))
}
