/**
 * The editor's form for one binding, built from the command catalogue the daemon sends
 * (`GET /api/config/choices`): a command picker grouped and headed as the command reference, with each
 * command's description; one typed field per parameter (a list for allowed words, a number field, a
 * picker of titles, video inputs or replay inputs for a parameter that names one); the label and the
 * title the key follows; and every other field of the binding (its behaviour, page, the rest of its
 * feedback) as JSON. What it gives back keeps the binding's own order of fields, so a save changes only
 * what the form changed. The daemon's check has the last word: its problems are shown at their fields.
 */
import { el } from '../dom.js'
import { isRecord } from './remote.js'

/** A parameter as the choices give it (`ParamChoice` in the daemon's API). */
interface Param {
  name: string
  type: string
  typeText: string
  required: boolean
  values?: string[]
  note?: string
  names?: string
}

interface Command {
  name: string
  summary: string
  confirm: boolean
  params: Param[]
}

/** The choices as the page reads them: groups of commands and the names to pick from. */
export interface Choices {
  groups: { title: string; commands: Command[] }[]
  names: Record<'titles' | 'videoInputs' | 'replayInputs', { from: string; names: string[] }>
}

/** The fields the form itself edits; the rest of a binding is in "other fields". */
const FORM_KEYS = new Set(['label'])

/** Reads the choices' JSON (untrusted: anything misshapen is dropped). */
export function readChoices(body: Record<string, unknown> | undefined): Choices {
  const groups: Choices['groups'] = []
  for (const g of Array.isArray(body?.groups) ? body.groups : []) {
    if (!isRecord(g) || typeof g.title !== 'string' || !Array.isArray(g.commands)) continue
    const commands = g.commands.filter(
      (c): c is Command => isRecord(c) && typeof c.name === 'string' && Array.isArray(c.params),
    )
    groups.push({ title: g.title, commands })
  }
  const names = isRecord(body?.names) ? body.names : {}
  const list = (k: string): { from: string; names: string[] } => {
    const v = names[k]
    if (!isRecord(v) || !Array.isArray(v.names)) return { from: 'file', names: [] }
    return { from: String(v.from), names: v.names.filter((n): n is string => typeof n === 'string') }
  }
  return {
    groups,
    names: { titles: list('titles'), videoInputs: list('videoInputs'), replayInputs: list('replayInputs') },
  }
}

/** Which list a parameter that names something picks from. */
const NAME_LISTS: Readonly<Record<string, keyof Choices['names']>> = {
  title: 'titles',
  'title id': 'titles',
  'video input': 'videoInputs',
  'replay input': 'replayInputs',
}

/** Why the form cannot give a binding: the field and what is wrong. */
export interface FormError {
  path: string
  message: string
}

export class BindingForm {
  readonly element = el('div', 'binding-form')
  private readonly commandSelect = el('select')
  private readonly paramsBox = el('div', 'params')
  private readonly summary = el('p', 'summary')
  private readonly label = el('input')
  private readonly title = el('input')
  private readonly other = el('textarea')
  private readonly fields = new Map<string, HTMLElement>()
  private readonly commands = new Map<string, Command>()
  /** The press the form edits is a single command (or none yet); else it is left in "other fields". */
  private readonly pressInForm: boolean

  constructor(
    private readonly choices: Choices,
    /** The binding as read (without `on` and `page`); `{}` for a new one. */
    private readonly original: Record<string, unknown>,
    private readonly changed: () => void,
    readOnly: boolean,
  ) {
    const press = original.press
    this.pressInForm =
      press === undefined
        ? !['toggle', 'steps', 'value', 'rotate', 'jog', 'shuttle', 'hold'].some((k) => k in original)
        : isRecord(press) && typeof press.command === 'string'
    const lists = el('div', 'datalists')
    for (const [key, names] of Object.entries(choices.names)) {
      const list = el('datalist')
      list.id = `editor-names-${key}`
      for (const n of names.names) list.appendChild(Object.assign(el('option'), { value: n }))
      lists.appendChild(list)
    }
    this.element.appendChild(lists)
    if (this.pressInForm) this.element.appendChild(this.commandField(isRecord(press) ? press : undefined))
    else this.element.appendChild(el('p', 'note', 'Its action is not a single command: edit it under Other fields.'))
    this.label.value = typeof original.label === 'string' ? original.label : ''
    this.element.appendChild(
      this.row('Label', this.label, 'label', 'The text on the key (it may use {{value}} and the like).'),
    )
    const feedback = isRecord(original.feedback) ? original.feedback : {}
    this.title.value = typeof feedback.title === 'string' ? feedback.title : ''
    this.title.setAttribute('list', 'editor-names-titles')
    this.element.appendChild(
      this.row(
        'Follows title',
        this.title,
        'feedback.title',
        'The key shows this title’s play state (feedback.title).',
      ),
    )
    this.other.rows = 4
    this.other.spellcheck = false
    this.other.value = JSON.stringify(this.otherFields(), null, 1)
    this.element.appendChild(
      this.row(
        'Other fields (JSON)',
        this.other,
        'other',
        'The rest of the binding as JSON: its page, the rest of its feedback (colours, image), long press, toggle, steps…',
      ),
    )
    this.element.addEventListener('input', () => changed())
    this.element.addEventListener('change', () => changed())
    if (readOnly)
      for (const f of this.element.querySelectorAll('input, select, textarea')) f.setAttribute('disabled', '')
  }

  /** The binding's fields the form does not show, as they are. */
  private otherFields(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(this.original)) {
      if (FORM_KEYS.has(k) || (k === 'press' && this.pressInForm)) continue
      if (k === 'feedback' && isRecord(v)) {
        const { title: _title, ...rest } = v
        if (Object.keys(rest).length > 0) out.feedback = rest
        continue
      }
      out[k] = v
    }
    return out
  }

  /** A labelled field, remembered by its path (where the check's problems are shown). */
  private row(label: string, field: HTMLElement, path: string, tip?: string): HTMLElement {
    const row = el('label', 'field')
    row.dataset.path = path
    row.appendChild(el('span', 'name', label))
    row.appendChild(field)
    if (tip !== undefined) row.title = tip
    row.appendChild(el('span', 'problem'))
    this.fields.set(path, row)
    return row
  }

  /** The command picker: every command, grouped as the command reference, its description beside it. */
  private commandField(press: Record<string, unknown> | undefined): HTMLElement {
    const box = el('div', 'command')
    const none = el('option', undefined, '(no command)')
    none.value = ''
    this.commandSelect.appendChild(none)
    for (const g of this.choices.groups) {
      const group = el('optgroup')
      group.label = g.title
      for (const c of g.commands) {
        this.commands.set(c.name, c)
        const o = el('option', undefined, `${c.name} — ${c.summary}`)
        o.value = c.name
        group.appendChild(o)
      }
      this.commandSelect.appendChild(group)
    }
    const name = typeof press?.command === 'string' ? press.command : ''
    if (name !== '' && !this.commands.has(name)) {
      // A command the catalogue lacks is sent as written: kept, and listed as such.
      const o = el('option', undefined, `${name} (not in the catalogue)`)
      o.value = name
      this.commandSelect.appendChild(o)
    }
    this.commandSelect.value = name
    box.appendChild(this.row('Command', this.commandSelect, 'press.command', 'What a press sends.'))
    box.appendChild(this.summary)
    box.appendChild(this.paramsBox)
    this.showParams(isRecord(press?.params) ? press.params : {})
    this.commandSelect.addEventListener('change', () => this.showParams(this.paramValues(true)))
    return box
  }

  /** The parameter fields of the command picked, filled from `values`. */
  private showParams(values: Record<string, unknown>): void {
    for (const path of [...this.fields.keys()]) if (path.startsWith('press.params.')) this.fields.delete(path)
    this.paramsBox.replaceChildren()
    const command = this.commands.get(this.commandSelect.value)
    this.summary.textContent = command
      ? command.summary + (command.confirm ? ' A press waits for a hold to confirm.' : '')
      : ''
    for (const p of command?.params ?? []) {
      const field = paramField(p, values[p.name])
      const tip = [p.typeText, p.required ? 'required' : 'optional', p.note].filter(Boolean).join(' · ')
      this.paramsBox.appendChild(this.row(p.name + (p.required ? ' *' : ''), field, `press.params.${p.name}`, tip))
    }
  }

  /** The parameters as typed, each by its type; `loose` keeps what does not parse (to refill a new command's fields). */
  private paramValues(loose = false): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [path, row] of this.fields) {
      if (!path.startsWith('press.params.')) continue
      const field = row.querySelector<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
        'input, select, textarea',
      )
      if (!field || field.value.trim() === '') continue
      const name = path.slice('press.params.'.length)
      const v = typedValue(field.dataset.type ?? 'string', field.value)
      if (v instanceof Error && !loose) throw new FieldError(path, v.message)
      out[name] = v instanceof Error ? field.value : v
    }
    return out
  }

  /** The binding the form describes, in the original's order of fields, or why it cannot be given. */
  value(): { binding: Record<string, unknown> } | { error: FormError } {
    const v = this.read()
    return 'binding' in v ? v : { error: v.error }
  }

  private read(): { binding: Record<string, unknown> } | { error: FormError } {
    let other: unknown
    try {
      other = JSON.parse(this.other.value.trim() === '' ? '{}' : this.other.value)
    } catch (err) {
      return { error: { path: 'other', message: `not JSON: ${(err as Error).message}` } }
    }
    if (!isRecord(other)) return { error: { path: 'other', message: 'give the other fields as a JSON object ({ … })' } }
    const next: Record<string, unknown> = {}
    // Every field in the original's place; those taken away are left out; new ones at the end.
    const keys = [...Object.keys(this.original)]
    for (const k of ['press', 'label', 'feedback', ...Object.keys(other)]) if (!keys.includes(k)) keys.push(k)
    let press: Record<string, unknown> | undefined
    if (this.pressInForm) {
      const command = this.commandSelect.value
      if (command !== '') {
        let params: Record<string, unknown>
        try {
          params = this.paramValues()
        } catch (err) {
          if (err instanceof FieldError) return { error: { path: err.path, message: err.message } }
          throw err
        }
        const old = isRecord(this.original.press) ? this.original.press : {}
        press = { ...old, command }
        if (Object.keys(params).length > 0) press.params = inOrder(params, isRecord(old.params) ? old.params : {})
        else delete press.params
      }
    }
    const label = this.label.value
    const title = this.title.value.trim()
    const feedbackRest = isRecord(other.feedback) ? other.feedback : undefined
    for (const k of keys) {
      if (k === 'press' && this.pressInForm) {
        if (press) next.press = press
      } else if (k === 'label') {
        if (label !== '') next.label = label
      } else if (k === 'feedback') {
        const oldFeedback = isRecord(this.original.feedback) ? this.original.feedback : {}
        const feedback = inOrder({ ...(title !== '' ? { title } : {}), ...feedbackRest }, oldFeedback)
        if (Object.keys(feedback).length > 0) next.feedback = feedback
      } else if (Object.hasOwn(other, k)) next[k] = other[k]
    }
    return { binding: next }
  }

  /** What the key would say: its label, else the title it follows. */
  previewText(): string {
    return this.label.value || this.title.value
  }

  /** Each problem at its field (`bindings.3.press.params.title` → `press.params.title`); the rest are returned. */
  showProblems(problems: readonly FormError[]): FormError[] {
    for (const row of this.fields.values()) {
      row.classList.remove('bad')
      const p = row.querySelector('.problem')
      if (p) p.textContent = ''
    }
    const rest: FormError[] = []
    for (const problem of problems) {
      const path = problem.path.replace(/^bindings\.\d+\.?/, '')
      const row = this.rowFor(path)
      if (!row) {
        rest.push(problem)
        continue
      }
      row.classList.add('bad')
      const p = row.querySelector('.problem')
      if (p) p.textContent = [p.textContent, problem.message].filter(Boolean).join('; ')
    }
    return rest
  }

  /** The field a path is at, or the nearest field above it; the rest of the binding is "other fields". */
  private rowFor(path: string): HTMLElement | undefined {
    const parts = path.split('.')
    for (let n = parts.length; n > 0; n--) {
      const row = this.fields.get(parts.slice(0, n).join('.'))
      if (row) return row
    }
    return path === '' ? undefined : this.fields.get('other')
  }
}

class FieldError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message)
  }
}

/** `values`' fields in `order`'s order first (the file's), then the others. */
function inOrder(values: Record<string, unknown>, order: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(order)) if (Object.hasOwn(values, k)) out[k] = values[k]
  for (const [k, v] of Object.entries(values)) if (!Object.hasOwn(out, k)) out[k] = v
  return out
}

/** A field's text as its parameter's type, or why it is not one. */
function typedValue(type: string, raw: string): unknown {
  const t = raw.trim()
  switch (type) {
    case 'number': {
      const n = Number(t)
      return Number.isFinite(n) ? n : new Error('give a number')
    }
    case 'boolean':
      return t === 'true' ? true : t === 'false' ? false : new Error('give true or false')
    case 'string[]':
      return t
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    case 'object':
      try {
        const v: unknown = JSON.parse(t)
        return isRecord(v) ? v : new Error('give a JSON object ({ … })')
      } catch {
        return new Error('give a JSON object ({ … })')
      }
    default:
      return raw
  }
}

/** A value as a field shows it: a word or number as written, anything else as JSON. */
function fieldText(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

/** The field of one parameter, filled with `value`. */
function paramField(p: Param, value: unknown): HTMLElement {
  let field: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
  const words = p.values ?? (p.type === 'boolean' ? ['true', 'false'] : undefined)
  if (words) {
    field = el('select')
    const empty = el('option', undefined, p.required ? '(choose)' : '(not given)')
    empty.value = ''
    field.appendChild(empty)
    for (const w of words) field.appendChild(Object.assign(el('option', undefined, w), { value: w }))
    const current = fieldText(value)
    if (current !== '' && !words.includes(current))
      field.appendChild(Object.assign(el('option', undefined, current), { value: current }))
    field.value = current
  } else if (p.type === 'object') {
    field = el('textarea')
    field.rows = 2
    field.value = value === undefined ? '' : JSON.stringify(value)
  } else {
    field = el('input')
    if (p.type === 'number') field.inputMode = 'decimal'
    const list = p.names !== undefined ? NAME_LISTS[p.names] : undefined
    if (list) field.setAttribute('list', `editor-names-${list}`)
    field.value = Array.isArray(value) ? value.map(fieldText).join(', ') : fieldText(value)
  }
  field.dataset.type = p.type
  field.name = p.name
  return field
}
