/**
 * Label and parameter templates: `{{name}}`, `{{play}}`, `{{var.NAME}}` of the followed title (a name
 * runs up to `}}`, spaces included; a missing one renders empty), `{{step}}` (the step the next press
 * sends, 1-based), `{{value}}`, `{{delta}}`, `{{speed}}`, `{{position}}` of continuous controls, and the
 * playhead anywhere: `{{replay.position}}`, `{{replay.in}}`, `{{replay.out}}`, `{{replay.speed}}`,
 * `{{replay.length}}` (seconds in the buffer; `./playhead.ts`).
 * Text substitution only: nothing is evaluated. A label may mark a value it does not know yet (a fader
 * that has not moved shows `{{value}}` as `UNKNOWN_VALUE_TEXT`, not as nothing or 0).
 */
import { nearest } from './suggest.js'

/** The names a template may use (besides `var.NAME`). */
export const TEMPLATE_NAMES = [
  'name',
  'play',
  'step',
  'value',
  'delta',
  'speed',
  'position',
  'replay.position',
  'replay.in',
  'replay.out',
  'replay.speed',
  'replay.length',
] as const
export type TemplateName = (typeof TEMPLATE_NAMES)[number]

export type TemplatePart = { text: string } | { name: TemplateName } | { variable: string }

export interface Template {
  parts: readonly TemplatePart[]
  /** Whether any part depends on state (a template with none renders the same text always). */
  dynamic: boolean
}

export interface TemplateContext {
  name?: string
  play?: string
  variables?: Readonly<Record<string, string>>
  step?: number
  value?: number
  delta?: number
  speed?: number
  position?: number
  'replay.position'?: number
  'replay.in'?: number
  'replay.out'?: number
  'replay.speed'?: number
  'replay.length'?: number
}

const TEMPLATE = /\{\{(.*?)\}\}/g
const ONE_TEMPLATE = /^\{\{(.*?)\}\}$/

/** " (did you mean {{x}}?)" for an unknown name one slip from a known one, else "". */
function meant(name: string): string {
  const near = nearest(name, TEMPLATE_NAMES)
  return near === undefined ? '' : ` (did you mean {{${near}}}?)`
}

/** One `{{...}}` body as a part, or a problem. */
function partOf(body: string): TemplatePart | string {
  if (body.startsWith('var.')) {
    const variable = body.slice('var.'.length)
    return variable === '' ? 'a variable template names the variable: {{var.NAME}}' : { variable }
  }
  const name = body.trim()
  return (TEMPLATE_NAMES as readonly string[]).includes(name)
    ? { name: name as TemplateName }
    : `unknown template {{${body}}}${meant(name)}: use one of ${TEMPLATE_NAMES.map((n) => `{{${n}}}`).join(', ')} or {{var.NAME}}`
}

/** Parses a text with templates; `problems` lists every unknown template. */
export function parseTemplate(text: string): { template: Template; problems: string[] } {
  const parts: TemplatePart[] = []
  const problems: string[] = []
  let last = 0
  for (const m of text.matchAll(TEMPLATE)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index) })
    const part = partOf(m[1]!)
    if (typeof part === 'string') {
      problems.push(part)
      parts.push({ text: m[0] })
    } else parts.push(part)
    last = m.index + m[0].length
  }
  if (last < text.length) parts.push({ text: text.slice(last) })
  return { template: { parts, dynamic: parts.some((p) => !('text' in p)) }, problems }
}

function valueOf(part: TemplatePart, ctx: TemplateContext): string | number | undefined {
  if ('text' in part) return part.text
  if ('variable' in part) return ctx.variables?.[part.variable]
  return ctx[part.name]
}

function textOf(v: string | number | undefined): string {
  if (v === undefined) return ''
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000)
  return v
}

/** What a label shows for a value that is not known yet. */
export const UNKNOWN_VALUE_TEXT = '?'

/**
 * Renders a template; a missing value renders empty, or as `unknown` gives for its name (labels mark
 * a value not known yet this way; parameters never do).
 */
export function renderTemplate(
  template: Template,
  ctx: TemplateContext,
  unknown?: Partial<Record<TemplateName, string>>,
): string {
  let out = ''
  for (const part of template.parts) {
    const value = valueOf(part, ctx)
    out += value === undefined && 'name' in part ? (unknown?.[part.name] ?? '') : textOf(value)
  }
  return out
}

/** The template of a parameter value that is exactly one template (`"{{value}}"`), else undefined. */
export function soleTemplate(value: unknown): TemplatePart | undefined {
  if (typeof value !== 'string') return undefined
  const m = ONE_TEMPLATE.exec(value)
  if (!m || m[1]!.includes('}}')) return undefined
  const part = partOf(m[1]!)
  return typeof part === 'string' ? undefined : part
}

/**
 * A parameter value with its templates filled in: a string that is exactly one template becomes that
 * value with its type (a number stays a number); other strings have their templates replaced as text;
 * arrays and objects are filled in member by member.
 */
export function fillParam(value: unknown, ctx: TemplateContext, depth = 0): unknown {
  if (typeof value === 'string') {
    if (!value.includes('{{')) return value
    const sole = soleTemplate(value)
    if (sole !== undefined) return valueOf(sole, ctx) ?? ''
    return renderTemplate(parseTemplate(value).template, ctx)
  }
  // The loader bounds nesting; this guard keeps a hand-built value from recursing without end.
  if (depth > 16 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => fillParam(v, ctx, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = fillParam(v, ctx, depth + 1)
  return out
}

/** Whether a parameter value (at any depth) uses a template. */
export function usesTemplate(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('{{')
  if (depth > 16 || value === null || typeof value !== 'object') return false
  return Object.values(value).some((v) => usesTemplate(v, depth + 1))
}
