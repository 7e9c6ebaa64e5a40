/**
 * The surfaces on the page: one section per surface (a grid of keys and pads, a strip of those without
 * a grid position, dials for encoders, knobs and the jog, sliders for the shuttle and faders) plus an
 * entry in the surface list. Each control is drawn as the widget the server names; a mirror's controls
 * show the device's state read-only, with no input handlers. Interactive surfaces come before read-only mirrors.
 */
import type { ServerMessage, WebControlState, WebControlView, WebSurfaceView } from '../protocol.js'
import { el, labelText } from './dom.js'
import { holdable, rotatable, RotationBatcher, type Send } from './input.js'
import { KeyPainter, keyNode, type KeyNode } from './keys.js'
import { Fader, Shuttle, type Slider } from './sliders.js'

/** Key size when a surface names none. */
const DEFAULT_KEY_PX = 72
/** The side of a pad (a key of a device without a display) when no keys with images set the cell. */
const PAD_PX = 48

interface ShownSurface {
  view: WebSurfaceView
  section: HTMLElement
  item: HTMLElement
  controls: Map<string, HTMLElement>
  /** The keys, which show faces painted by the KeyPainter. */
  keys: Map<string, KeyNode>
  /** The shuttle and faders, which draw their own state. */
  sliders: Map<string, Slider>
}

/** Everything the page shows, driven by server messages. */
export class SurfacesView {
  private readonly surfaces = new Map<string, ShownSurface>()
  private readonly rotations: RotationBatcher
  private readonly painter = new KeyPainter()

  constructor(
    private readonly main: HTMLElement,
    private readonly list: HTMLElement,
    private readonly send: Send,
  ) {
    this.rotations = new RotationBatcher(send)
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
    }
  }

  private control(surface: string, control: string): HTMLElement | undefined {
    return this.surfaces.get(surface)?.controls.get(control)
  }

  private build(view: WebSurfaceView): void {
    this.remove(view.id)
    const mirror = view.mode === 'mirror'
    const section = el('section', 'surface ' + (mirror ? 'readonly' : 'interactive'))
    section.dataset.surface = view.id
    section.dataset.mode = view.mode
    const head = el('header')
    head.appendChild(el('h2', 'name', view.id))
    head.appendChild(el('span', 'model', view.model))
    if (mirror) head.appendChild(el('span', 'badge', 'read-only'))
    section.appendChild(head)
    const grid = el('div', 'grid')
    const strip = el('div', 'strip')
    // Pads without a grid cell (a Shuttle's buttons), in rows of at most eight.
    const pads = el('div', 'strip pads')
    const dials = el('div', 'dials')
    const controls = new Map<string, HTMLElement>()
    const keys = new Map<string, KeyNode>()
    const sliders = new Map<string, Slider>()
    // A mirror sends nothing: its sliders and dials get no input handlers.
    const send = mirror ? undefined : this.send
    let cell = PAD_PX
    for (const c of view.controls) {
      let node: HTMLElement
      if (c.widget === 'key' || c.widget === 'pad') {
        if (c.widget === 'key') {
          const key = this.keyElement(view, c)
          keys.set(c.id, key)
          node = key.element
        } else {
          node = padElement(view, c)
        }
        if (c.row !== undefined && c.column !== undefined) {
          node.style.gridRow = String(c.row + 1)
          node.style.gridColumn = String(c.column + 1)
          if (c.image) cell = c.image.width
          grid.appendChild(node)
        } else if (c.widget === 'key') {
          strip.appendChild(node)
        } else {
          pads.appendChild(node)
        }
      } else if (c.widget === 'shuttle' || c.widget === 'fader') {
        const slider =
          c.widget === 'shuttle' ? new Shuttle(view.id, c.id, send) : new Fader(view.id, c.id, send, c.centred)
        sliders.set(c.id, slider)
        node = slider.element
        dials.appendChild(node)
      } else {
        node = this.dialElement(view, c)
        dials.appendChild(node)
      }
      controls.set(c.id, node)
    }
    section.style.setProperty('--cell', `${cell}px`)
    if (view.grid) grid.style.gridTemplateColumns = `repeat(${view.grid.columns}, ${cell}px)`
    for (const part of [grid, strip, pads, dials]) if (part.childNodes.length) section.appendChild(part)
    const item = el('li')
    item.appendChild(el('span', 'name', view.id))
    item.appendChild(document.createTextNode(' '))
    item.appendChild(el('span', 'model', view.model))
    if (mirror) {
      item.appendChild(document.createTextNode(' '))
      item.appendChild(el('span', 'badge', 'read-only'))
    }
    this.surfaces.set(view.id, { view, section, item, controls, keys, sliders })
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
    this.list.insertBefore(item, before ? before.item : null)
  }

  private remove(id: string): void {
    const s = this.surfaces.get(id)
    if (!s) return
    s.section.remove()
    s.item.remove()
    for (const key of s.keys.values()) this.painter.forget(key)
    this.surfaces.delete(id)
  }

  private keyElement(view: WebSurfaceView, c: WebControlView): KeyNode {
    const readonly = view.mode === 'mirror'
    const key = readonly ? el('div', 'key') : el('button', 'key')
    if (key instanceof HTMLButtonElement) key.type = 'button'
    key.dataset.surface = view.id
    key.dataset.control = c.id
    const size = c.image ?? { width: DEFAULT_KEY_PX, height: DEFAULT_KEY_PX }
    key.style.width = `${size.width}px`
    key.style.height = `${size.height}px`
    key.setAttribute('aria-label', c.id + (readonly ? ' (read-only)' : ''))
    if (readonly) {
      key.setAttribute('aria-disabled', 'true')
      key.title = c.id + ' (read-only mirror)'
    }
    if (!readonly) holdable(key, view.id, c.id, this.send)
    return keyNode(key, size.width, size.height, readonly ? ' (read-only mirror)' : '')
  }

  private dialElement(view: WebSurfaceView, c: WebControlView): HTMLElement {
    const dial = el('div', 'dial ' + c.widget)
    dial.dataset.surface = view.id
    dial.dataset.control = c.id
    const ring = el('div', 'ring')
    const turn = el('div', 'turn')
    turn.appendChild(el('span', 'mark'))
    ring.appendChild(turn)
    if (view.mode === 'mirror') {
      ring.setAttribute('aria-label', c.id + ' (read-only)')
      dial.title = c.id + ' (read-only mirror)'
    } else {
      ring.setAttribute('aria-label', c.id + ': drag or scroll to turn')
      rotatable(ring, turn, view.id, c.id, this.rotations)
      if (c.widget === 'encoder') {
        const press = el('button', 'press')
        press.type = 'button'
        press.setAttribute('aria-label', c.id + ' press')
        holdable(press, view.id, c.id, this.send)
        ring.appendChild(press)
      }
    }
    dial.appendChild(ring)
    dial.appendChild(el('span', 'label', c.id))
    return dial
  }
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
    node.title = `${control}${state.text ? ': ' + state.text : ''}${state.detail ? ` (${state.detail})` : ''} (read-only mirror)`
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
