/**
 * What a control shows: the feedback the engine sends a surface, and the colours and badges in it.
 * Shared by the daemon (every driver, the key renderer) and the page (`../page/`), which paints the same
 * key faces: nothing here knows Node or the DOM.
 */

/**
 * Marks what a control's last action or the state behind it is: `pending` (a command in flight), `failed`
 * (the last command failed), `stale` (the application is gone: what the control shows may no longer be
 * true), `unknown` (the state it shows has not been seen yet, e.g. the replay state before any replay
 * command, or a fader's value before it moved), `diverged` (a main and its mirror disagree on what this
 * control shows or sends, issue 27).
 */
export type FeedbackBadge = 'pending' | 'failed' | 'stale' | 'unknown' | 'diverged'

/** `#rrggbb` colour strings throughout. */
export type Color = string

/** What one control should show. Every field is optional; an empty object shows a blank control. */
export interface Feedback {
  /** Background (image controls) or backlight colour (RGB controls). */
  color?: Color
  /** Label text; `\n` breaks lines; the renderer fits it to the key. */
  text?: string
  textColor?: Color
  /** A pre-rendered image (RGBA, the control's size) that replaces colour and text. */
  image?: { width: number; height: number; rgba: Uint8Array }
  /**
   * A picture drawn under the label (a binding's `image:` file, a title's thumbnail), fitted inside a
   * border of `color`; `hash` names its pixels (the renderer's face identity). Its JSON is size and hash.
   */
  picture?: { width: number; height: number; rgba: Uint8Array; hash: string }
  /** LED state for LED controls. */
  led?: 'off' | 'on' | 'blink'
  /**
   * A level, 0..1: an LED ring, a fader's position, a level bar along a key's bottom edge. Values
   * outside are clamped; a non-finite value shows nothing.
   */
  value?: number
  /** A short second text line: a hold-to-confirm countdown, why a command failed. */
  detail?: string
  /** One badge at a time; where several sources meet, `pickBadge` (`../surfaces/badge.ts`) chooses it. */
  badge?: FeedbackBadge
}
