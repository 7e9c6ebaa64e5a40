/**
 * Keyboard hotkeys for one surface on the page (the one shown with `?surface=NAME`, else the first
 * interactive surface), by physical key position (`KeyboardEvent.code`), so the layout is the same
 * shape on any keyboard; labels are those of a US keyboard:
 *
 * | keys                              | control                                                     |
 * | --------------------------------- | ----------------------------------------------------------- |
 * | `1`…`0`, `Q`…`P`, `A`…`;`, `Z`…`/` | the grid's keys by position: row 1 is the digit row, column 1 the leftmost key; held while held |
 * | `←` `→`                           | the jog: a step back or forward per press (the key repeats)  |
 * | `Shift`+`1`…`0`                   | takes the 1st…10th dial or slider (encoders, jog, shuttle, faders, in page order): the arrow keys then turn or move it, `Space` presses an encoder, `Esc` lets go |
 *
 * A grid larger than 4 × 10 has keys without a hotkey; so has every dial or slider past the tenth.
 * Nothing happens with `Ctrl`, `Alt` or `Meta` held (the browser's own shortcuts keep working), in a
 * text field, or on a read-only viewer. Each control shows its hotkey when hovered.
 */
import type { Hold } from './input.js'

/** The grid hotkeys' rows, by `KeyboardEvent.code`: the keyboard's four character rows, left to right. */
export const KEY_ROWS: readonly (readonly string[])[] = [
  ['Digit1', 'Digit2', 'Digit3', 'Digit4', 'Digit5', 'Digit6', 'Digit7', 'Digit8', 'Digit9', 'Digit0'],
  ['KeyQ', 'KeyW', 'KeyE', 'KeyR', 'KeyT', 'KeyY', 'KeyU', 'KeyI', 'KeyO', 'KeyP'],
  ['KeyA', 'KeyS', 'KeyD', 'KeyF', 'KeyG', 'KeyH', 'KeyJ', 'KeyK', 'KeyL', 'Semicolon'],
  ['KeyZ', 'KeyX', 'KeyC', 'KeyV', 'KeyB', 'KeyN', 'KeyM', 'Comma', 'Period', 'Slash'],
]
/** The jog's hotkeys. */
export const JOG_BACK = 'ArrowLeft'
export const JOG_FORWARD = 'ArrowRight'
/** With Shift, the digit row takes the dials and sliders, in page order. */
const DIAL_KEYS = KEY_ROWS[0]!

const PUNCTUATION: Readonly<Record<string, string>> = { Semicolon: ';', Comma: ',', Period: '.', Slash: '/' }

/** A key code as a US keyboard labels it: `KeyQ` → `Q`, `Digit1` → `1`, `Comma` → `,`. */
export function keyLabel(code: string): string {
  if (code.startsWith('Key') || code.startsWith('Digit')) return code.replace(/^(Key|Digit)/, '')
  return PUNCTUATION[code] ?? code
}

/** The hotkey of the grid key at `row`, `column` (from 0), if it has one. */
export function gridHotkey(row: number, column: number): string | undefined {
  return KEY_ROWS[row]?.[column]
}

/** The label of the `index`th dial or slider's hotkey (from 0), if it has one: `Shift+1`. */
export function dialHotkeyLabel(index: number): string | undefined {
  const code = DIAL_KEYS[index]
  return code === undefined ? undefined : `Shift+${keyLabel(code)}`
}

/** What the hotkeys drive on the surface that has them. */
export interface HotkeyTargets {
  /** The grid keys, by the code of their hotkey. */
  keys: Map<string, Hold>
  /** The dials and sliders in page order, each the element that takes focus. */
  dials: HTMLElement[]
  /** Turns the jog by whole steps. */
  jog?: (steps: number) => void
}

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)
}

/** The page's one keyboard listener; `use` points it at a surface's controls. */
export class Hotkeys {
  private targets: HotkeyTargets | undefined
  /** Keys held down through a hotkey, by code: each gets its up, even if the targets change. */
  private readonly held = new Map<string, Hold>()

  constructor(doc: Document) {
    // A hotkey's badge is for a mouse and a keyboard: after a touch or a pen the stylesheet hides it
    // (`data-pointer="touch"`), until a mouse moves again (a tap's hover would leave it showing).
    const root = doc.documentElement
    const pointer = (e: PointerEvent): void => {
      root.dataset.pointer = e.pointerType === 'mouse' ? 'mouse' : 'touch'
    }
    doc.addEventListener('pointerdown', pointer, { capture: true })
    doc.addEventListener(
      'pointermove',
      (e) => {
        if (e.pointerType === 'mouse') pointer(e)
      },
      { capture: true },
    )
    doc.addEventListener('keydown', (e) => this.keydown(e))
    doc.addEventListener('keyup', (e) => this.release(e.code))
    // A key let go while another window has focus sends no keyup: let go of everything.
    window.addEventListener('blur', () => {
      for (const code of [...this.held.keys()]) this.release(code)
    })
  }

  /** The controls the hotkeys drive now; undefined for none (a viewer, no interactive surface). */
  use(targets: HotkeyTargets | undefined): void {
    this.targets = targets
  }

  private keydown(e: KeyboardEvent): void {
    const t = this.targets
    if (!t || e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || typing(e.target)) return
    if (e.code === 'Escape') {
      if (document.activeElement instanceof HTMLElement) document.activeElement.blur()
      return
    }
    if (e.shiftKey) {
      const i = DIAL_KEYS.indexOf(e.code)
      const dial = i >= 0 ? t.dials[i] : undefined
      if (dial) {
        e.preventDefault()
        dial.focus()
      }
      return
    }
    if ((e.code === JOG_BACK || e.code === JOG_FORWARD) && t.jog) {
      e.preventDefault()
      t.jog(e.code === JOG_FORWARD ? 1 : -1)
      return
    }
    const key = t.keys.get(e.code)
    if (!key) return
    e.preventDefault()
    if (e.repeat || this.held.has(e.code)) return
    this.held.set(e.code, key)
    key.down()
  }

  private release(code: string): void {
    const key = this.held.get(code)
    if (!key) return
    this.held.delete(code)
    key.up()
  }
}
