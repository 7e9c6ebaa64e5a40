/**
 * The loader's checks of one binding once its schema holds: the control it names (a configured
 * surface, a control that surface has, one that sends the events the behaviour needs), its page, a
 * second binding of the same control, and each command against the catalogue (a command the catalogue
 * lacks is an error when it is a slip from one it has, else a warning; missing or ill-typed parameters
 * through the client's own `checkParams`, a misspelt one with "did you mean").
 */
import { ControlIdError, controlSends, parseControlAddress, type ControlKind } from '../face/control-id.js'
import type { SurfaceEvent } from '../surfaces/types.js'
import { CONFIRM_COMMANDS, PAGE_WORDS } from './constants.js'
import { checkCommand } from './check-command.js'
import { controlRangeHint } from './control-range.js'
import { pathText, type Path, type Problems } from './problems.js'
import { nearest, suggest } from './suggest.js'
import { checkTargetAll } from './target-all.js'
import type { Action, Actions, Binding, SurfaceConfig } from './schema.js'
import { parseTemplate, TEMPLATE_NAMES, type TemplateName } from './template.js'
import type { ControlDescriptor } from '../face/surface.js'

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
    } else if ('page' in action && action.page !== PAGE_WORDS.previous && action.page !== PAGE_WORDS.next) {
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
  const fineKey = b.jog?.scrub.fine?.key
  if (fineKey !== undefined) {
    const where = at('jog', 'scrub', 'fine', 'key')
    try {
      const { surface: named } = parseControlAddress(fineKey)
      if (!Object.hasOwn(ctx.rawSurfaces, named))
        problems.add(
          where,
          'error',
          `fine: ${fineKey}: no surface ${named}${suggest(named, Object.keys(ctx.rawSurfaces))}`,
        )
    } catch (err) {
      problems.add(where, 'error', `fine: ${err instanceof ControlIdError ? err.message : String(err)}`)
    }
  }
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

// ---- templates a binding cannot fill (issue 43) ----------------------------------------------------

/*
 * `check` refuses a template a binding cannot fill (issue 43): every `{{…}}` of a label or a parameter is
 * checked against what that binding knows, at the value's own line and column, with "did you mean".
 *
 * - `{{name}}`, `{{play}}`, `{{var.NAME}}`: the followed title (`feedback.title`);
 * - `{{step}}`: `steps`;
 * - `{{value}}`: a `value` binding (a fader or knob), or a shuttle's label (its position);
 * - `{{speed}}`: a shuttle; `{{delta}}`: a `rotate`; `{{position}}`: a jog's label (its cursor);
 * - `{{replay.position}}`, `{{replay.in}}`, `{{replay.out}}`, `{{replay.speed}}`, `{{replay.length}}`: everywhere.
 *
 * A template with nothing to fill would send an empty value (refused by the application on air) or
 * show nothing; the press-time guard (`behaviours/actions.ts`) is the second line.
 */

/** Which template names a binding can fill (the `replay.*` names always). */
export function templatesKnownTo(b: Binding): Set<TemplateName | 'var'> {
  const known = new Set<TemplateName | 'var'>(TEMPLATE_NAMES.filter((n) => n.startsWith('replay.')))
  if (b.feedback?.title !== undefined) for (const n of ['name', 'play', 'var'] as const) known.add(n)
  if (b.steps) known.add('step')
  if (b.value || b.shuttle) known.add('value')
  if (b.shuttle) known.add('speed')
  if (b.rotate) known.add('delta')
  if (b.jog) known.add('position')
  return known
}

/** Why a binding cannot fill a name: what would. */
const TEMPLATE_NEEDS: Record<string, string> = {
  name: 'a followed title (feedback: { title: ... })',
  play: 'a followed title (feedback: { title: ... })',
  var: 'a followed title (feedback: { title: ... })',
  step: 'steps',
  value: 'a value binding (fader or knob) or a shuttle',
  speed: 'a shuttle',
  delta: 'rotate',
  position: 'a jog',
}

/** Every string in a parameter value (at any depth), with its path. */
function* stringsOf(value: unknown, path: Path, depth = 0): Generator<{ text: string; path: Path }> {
  if (typeof value === 'string') yield { text: value, path }
  else if (depth <= 16 && value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value))
      yield* stringsOf(v, [...path, Array.isArray(value) ? Number(k) : k], depth + 1)
  }
}

/** What a binding's texts with templates are: its label and every parameter of every command it sends. */
function* textsOf(
  b: Binding,
  actions: Iterable<BindingAction>,
  at: (...p: Path) => Path,
): Generator<{ text: string; path: Path; where: string }> {
  if (b.label !== undefined) yield { text: b.label, path: ['label'], where: 'label' }
  for (const { action, path } of actions) {
    if ('command' in action && action.params)
      for (const s of stringsOf(action.params, [...path, 'params'])) yield { ...s, where: pathText(at(...s.path)) }
  }
  for (const kind of ['value', 'rotate'] as const) {
    const params = b[kind]?.params
    if (params) for (const s of stringsOf(params, [kind, 'params'])) yield { ...s, where: pathText(at(...s.path)) }
  }
}

/** The name the writer most likely meant: its `replay.` form, else the nearest name the binding knows. */
function meant(name: string, known: ReadonlySet<string>): string | undefined {
  const replay = `replay.${name}`
  if (known.has(replay)) return replay
  return nearest(
    name,
    [...known].filter((n) => n !== 'var' && n !== name),
  )
}

/** An action of a binding with its path in the binding (`check-binding.ts` `actionsOf`). */
export interface BindingAction {
  action: Action
  path: Path
}

/**
 * Reports each template of binding `b` it cannot fill; `actions` are its actions, `at` turns a binding
 * path into a file path.
 */
export function checkTemplates(
  problems: Problems,
  b: Binding,
  actions: Iterable<BindingAction>,
  at: (...p: Path) => Path,
): void {
  const known = templatesKnownTo(b)
  for (const { text, path, where } of textsOf(b, actions, at)) {
    if (!text.includes('{{')) continue
    for (const part of parseTemplate(text).template.parts) {
      if ('text' in part) continue
      const name = 'variable' in part ? 'var' : part.name
      if (known.has(name)) continue
      const written = 'variable' in part ? `{{var.${part.variable}}}` : `{{${part.name}}}`
      const near = 'variable' in part ? undefined : meant(part.name, known)
      problems.add(
        at(...path),
        'error',
        `${where}: ${written} needs ${TEMPLATE_NEEDS[name] ?? 'something this binding lacks'}, which this binding has not` +
          (near !== undefined ? ` (did you mean '${near}'?)` : ''),
      )
    }
  }
}
