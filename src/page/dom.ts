/** DOM helpers for the page script. Everything is built with `textContent`, never `innerHTML`. */
import type { WebControlState } from '../face/protocol.js'

/** Creates an element with an optional class list and text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag)
  if (cls) e.className = cls
  if (text !== undefined) e.textContent = text
  return e
}

/** The element with this id; the page shell always has it, so a missing one is a broken page. */
export function byId(id: string): HTMLElement {
  const e = document.getElementById(id)
  if (!e) throw new Error(`page: no #${id} element`)
  return e
}

/** The label under a dial or slider: the feedback text (else the control's id), the detail on a second line. */
export function labelText(control: string, state: WebControlState): string {
  return (state.text ? state.text : control) + (state.detail ? '\n' + state.detail : '')
}
