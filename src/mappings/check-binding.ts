/**
 * The loader's checks of one binding once its schema holds: the control it names (a configured
 * surface, a control that surface has, one that sends the events the behaviour needs), its page, a
 * second binding of the same control, and each command against the catalogue (a command the catalogue
 * lacks is an error when it is a slip from one it has, else a warning; missing or ill-typed parameters
 * through the client's own `checkParams`, a misspelt one with "did you mean").
 */
import { ControlIdError, controlSends, parseControlAddress } from '../surfaces/control-id.js'
import type { ControlDescriptor, ControlKind, SurfaceEvent } from '../surfaces/types.js'
import { CONFIRM_COMMANDS, PAGE_NEXT, PAGE_PREVIOUS } from './constants.js'
import { checkCommand } from './check-command.js'
import { checkTemplates } from './check-templates.js'
import { controlRangeHint } from './control-range.js'
import type { Path, Problems } from './problems.js'
import { suggest } from './suggest.js'
import { checkTargetAll } from './target-all.js'
import type { Action, Actions, Binding, SurfaceConfig } from './schema.js'
import { parseTemplate } from './template.js'

/** Which events each behaviour needs from its control. */
const NEEDS: Record<string, SurfaceEvent['type']> = {
  press: 'down',
  hold: 'down',
  toggle: 'down',
  steps: 'down',
  jog: 'rotate',
  rotate: 'rotate',
  shuttle: 'value',
  value: 'value',
}

const KIND_WORDS: Record<ControlKind, string> = {
  key: 'a key',
  encoder: 'an encoder',
  lcd: 'an LCD segment',
  jog: 'a jog wheel',
  shuttle: 'a shuttle ring',
  button: 'a button',
  fader: 'a fader',
  note: 'a MIDI note',
  cc: 'a MIDI control change',
  pitchbend: 'a MIDI pitch bend',
  program: 'a MIDI program change',
  tbar: 'a T-bar',
  joystick: 'a joystick axis',
}

export interface SurfaceInfo {
  config: SurfaceConfig
  /** Undefined when the controls are known only once the device is open. */
  controls: ReadonlyMap<string, ControlDescriptor> | undefined
}

/** What the binding checks read of the rest of the file. */
export interface BindingContext {
  problems: Problems
  /** The surfaces whose entries hold, with their controls. */
  surfaces: ReadonlyMap<string, SurfaceInfo>
  /** Every `surfaces:` entry as written, good or not. */
  rawSurfaces: Readonly<Record<string, unknown>>
  pages: Readonly<Record<string, string[]>>
  /** `on` and page → the index of the binding that took them first. */
  taken: Map<string, number>
  /** The line a binding starts on, for "already bound at line N". */
  lineOf: (index: number) => number
}

/** Whether a binding's press sends a command that needs hold-to-confirm by default. */
export function pressNeedsConfirm(b: Binding): boolean {
  if (b.press === undefined) return false
  const list = Array.isArray(b.press) ? b.press : [b.press]
  return list.some((a) => ('command' in a && CONFIRM_COMMANDS.has(a.command)) || 'resync' in a)
}

/** Every action of a press, hold, toggle side or step, with its path. */
export function* actionsOf(b: Binding): Generator<{ action: Action; path: Path }> {
  const list = (a: Actions, path: Path): { action: Action; path: Path }[] =>
    Array.isArray(a) ? a.map((x, i) => ({ action: x, path: [...path, i] })) : [{ action: a, path }]
  if (b.press) yield* list(b.press, ['press'])
  if (b.hold) yield { action: b.hold, path: ['hold'] }
  if (b.toggle) {
    yield* list(b.toggle.on, ['toggle', 'on'])
    yield* list(b.toggle.off, ['toggle', 'off'])
  }
  if (b.steps) for (const [i, s] of b.steps.entries()) yield* list(s, ['steps', i])
}

/**
 * The control a binding names: a configured surface, a control it has (when its controls are known)
 * that sends what the binding's behaviour needs. The surface's name, or undefined when the binding
 * names no usable control (the rest of it is then not checked).
 */
function checkControl(ctx: BindingContext, b: Binding, at: (...p: Path) => Path): string | undefined {
  const { problems } = ctx
  let address: ReturnType<typeof parseControlAddress>
  try {
    address = parseControlAddress(b.on)
  } catch (err) {
    problems.add(at('on'), 'error', `on: ${err instanceof ControlIdError ? err.message : String(err)}`)
    return undefined
  }
  const surface = ctx.surfaces.get(address.surface)
  if (!surface && !Object.hasOwn(ctx.rawSurfaces, address.surface)) {
    const names = [...Object.keys(ctx.rawSurfaces)]
    problems.add(
      at('on'),
      'error',
      `on: ${address.surface} is not a configured surface${suggest(address.surface, names)}`,
    )
    return undefined
  }
  // A surface whose own entry has a problem (reported there): its controls are unknown, the rest of
  // the binding is still checked.
  const control = surface?.controls?.get(address.control)
  if (surface?.controls && !control) {
    problems.add(
      at('on'),
      'error',
      `on: ${address.surface} has no control ${address.control} (${controlRangeHint(surface.controls.keys(), address.control)})`,
    )
    return undefined
  }
  const kind = control?.kind ?? address.parsed.kind
  for (const [field, needs] of Object.entries(NEEDS)) {
    if (b[field as keyof Binding] !== undefined && !controlSends(kind, needs)) {
      problems.add(at(field), 'error', `${field}: ${b.on} is ${KIND_WORDS[kind]}, which sends no ${needs} events`)
    }
  }
  return address.surface
}

/** The binding's page, and a binding of the same control on the same page before it. */
function checkPlace(ctx: BindingContext, b: Binding, index: number, surface: string, at: (...p: Path) => Path): void {
  const surfacePages = Object.hasOwn(ctx.pages, surface) ? ctx.pages[surface]! : undefined
  if (b.page !== undefined && !surfacePages?.includes(b.page)) {
    const hint = surfacePages ? `: one of ${surfacePages.join(', ')}` : ` (declare it under pages: ${surface})`
    ctx.problems.add(at('page'), 'error', `page: ${b.page} is not a page of ${surface}${hint}`)
  }
  const key = `${b.on}\u0000${b.page ?? ''}`
  const first = ctx.taken.get(key)
  if (first !== undefined) {
    ctx.problems.add(
      at('on'),
      'error',
      `on: ${b.on}${b.page ? ` on page ${b.page}` : ''} is already bound at line ${ctx.lineOf(first)}`,
    )
  } else ctx.taken.set(key, index)
}

/** What the binding does: its commands, its page switches, hold beside confirm, its templates. */
function checkBehaviour(ctx: BindingContext, b: Binding, surface: string, at: (...p: Path) => Path): void {
  const { problems } = ctx
  const surfacePages = Object.hasOwn(ctx.pages, surface) ? ctx.pages[surface]! : undefined
  for (const { action, path } of actionsOf(b)) {
    if ('command' in action) {
      checkCommand(problems, at(...path), action)
      checkTargetAll(problems, at(...path), action.command, action.params, action.all)
    } else if ('page' in action && action.page !== PAGE_PREVIOUS && action.page !== PAGE_NEXT) {
      if (!surfacePages?.includes(action.page)) {
        problems.add(at(...path, 'page'), 'error', `page: ${action.page} is not a page of ${surface}`)
      }
    }
  }
  if (b.value) checkCommand(problems, at('value'), b.value, b.value.param)
  if (b.rotate) checkCommand(problems, at('rotate'), b.rotate)
  // The value's own parameter is a target given too (a fader may pick the title).
  if (b.value) {
    const { command, params, param, all } = b.value
    checkTargetAll(problems, at('value'), command, { ...params, [param]: '{{value}}' }, all)
  }
  if (b.rotate) checkTargetAll(problems, at('rotate'), b.rotate.command, b.rotate.params, b.rotate.all)
  if (b.hold && b.confirm_ms !== 0 && pressNeedsConfirm(b)) {
    problems.add(
      at('hold'),
      'error',
      'hold: the press needs a hold to confirm already; set confirm_ms: 0 on this binding to use hold',
    )
  }
  if (b.label !== undefined)
    for (const t of parseTemplate(b.label).problems) problems.add(at('label'), 'error', `label: ${t}`)
  checkTemplates(problems, b, actionsOf(b), at)
  if (b.feedback?.channel !== undefined && b.feedback.input === undefined) {
    problems.add(at('feedback', 'channel'), 'error', 'feedback: channel goes with input')
  }
}

/** Checks binding `index` (its schema already holds) against the rest of the file. */
export function checkBinding(ctx: BindingContext, b: Binding, index: number): void {
  const at = (...p: Path): Path => ['bindings', index, ...p]
  const surface = checkControl(ctx, b, at)
  if (surface === undefined) return
  checkPlace(ctx, b, index, surface, at)
  checkBehaviour(ctx, b, surface, at)
}
