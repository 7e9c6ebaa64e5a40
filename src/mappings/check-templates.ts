/**
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
import { pathText, type Path, type Problems } from './problems.js'
import type { Action, Binding } from './schema.js'
import { nearest } from './suggest.js'
import { parseTemplate, TEMPLATE_NAMES, type TemplateName } from './template.js'

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
const NEEDS: Record<string, string> = {
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
        `${where}: ${written} needs ${NEEDS[name] ?? 'something this binding lacks'}, which this binding has not` +
          (near !== undefined ? ` (did you mean '${near}'?)` : ''),
      )
    }
  }
}
