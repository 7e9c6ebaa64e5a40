/**
 * The editor's form for one binding, built from the command catalogue the daemon sends
 * (`GET /api/config/choices`): a command picker grouped and headed as the command reference, with each
 * command's description; one typed field per parameter (a list for allowed words, a number field, a
 * picker of titles, video inputs or replay inputs for a parameter that names one); its feedback (label,
 * the title it follows, play-state colours, image, thumbnail) and behaviour (hold-to-confirm, a long
 * press and a toggle, each its own command picker). What the form does not model (steps, sequences, the
 * page, the rest of the feedback, a long press that turns a page...) stays as JSON, so nothing a file has
 * is lost by the form. What it gives back keeps the binding's own order of fields, so a save changes only
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

/** The play states a key's colours are given for (`feedback.colors`), in the form's order. */
const PLAY_STATES = ['Running', 'Paused', 'Off'] as const

/** Why the form cannot give a binding: the field and what is wrong. */
export interface FormError {
  path: string
  message: string
}

/** Makes a labelled field, remembered by its path (where the check's problems are shown). */
type RowOf = (label: string, field: HTMLElement, path: string, tip?: string) => HTMLElement

/** One command action (`{ command, params? }`): what the form's command pickers edit. */
function isCommandAction(v: unknown): v is Record<string, unknown> {
  return isRecord(v) && typeof v.command === 'string'
}

/**
 * A command picker with its parameter fields, at `path` (`press`, `hold`, `toggle.on`): every command,
 * grouped as the command reference, its description beside it. The action's other fields (`all`,
 * `unlisted`, `app`, `after_ms`) are kept as they were.
 */
class CommandField {
  readonly element: HTMLElement
  private readonly select = el('select')
  private readonly summary = el('p', 'summary')
  private readonly paramsBox = el('div', 'params')

  constructor(
    choices: Choices,
    private readonly commands: Map<string, Command>,
    private readonly fields: Map<string, HTMLElement>,
    private readonly row: RowOf,
    private readonly path: string,
    private readonly old: Record<string, unknown> | undefined,
    words: { label: string; tip: string; className: string },
  ) {
    this.element = el('div', words.className)
    const none = el('option', undefined, '(no command)')
    none.value = ''
    this.select.appendChild(none)
    for (const g of choices.groups) {
      const group = el('optgroup')
      group.label = g.title
      for (const c of g.commands) {
        commands.set(c.name, c)
        const o = el('option', undefined, `${c.name} — ${c.summary}`)
        o.value = c.name
        group.appendChild(o)
      }
      this.select.appendChild(group)
    }
    const name = typeof old?.command === 'string' ? old.command : ''
    if (name !== '' && !commands.has(name)) {
      // A command the catalogue lacks is sent as written: kept, and listed as such.
      const o = el('option', undefined, `${name} (not in the catalogue)`)
      o.value = name
      this.select.appendChild(o)
    }
    this.select.value = name
    this.element.appendChild(row(words.label, this.select, `${path}.command`, words.tip))
    this.element.appendChild(this.summary)
    this.element.appendChild(this.paramsBox)
    this.showParams(isRecord(old?.params) ? old.params : {})
    this.select.addEventListener('change', () => this.showParams(this.paramValues(true)))
  }

  /** The command picked ('' for none). */
  get command(): string {
    return this.select.value
  }

  private get prefix(): string {
    return `${this.path}.params.`
  }

  /** The parameter fields of the command picked, filled from `values`. */
  private showParams(values: Record<string, unknown>): void {
    for (const path of [...this.fields.keys()]) if (path.startsWith(this.prefix)) this.fields.delete(path)
    this.paramsBox.replaceChildren()
    const command = this.commands.get(this.select.value)
    this.summary.textContent = command
      ? command.summary + (command.confirm ? ' A press waits for a hold to confirm.' : '')
      : ''
    for (const p of command?.params ?? []) {
      const field = paramField(p, values[p.name])
      const tip = [p.typeText, p.required ? 'required' : 'optional', p.note].filter(Boolean).join(' · ')
      this.paramsBox.appendChild(this.row(p.name + (p.required ? ' *' : ''), field, this.prefix + p.name, tip))
    }
  }

  /** The parameters as typed, each by its type; `loose` keeps what does not parse (to refill a new command's fields). */
  private paramValues(loose = false): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [path, row] of this.fields) {
      if (!path.startsWith(this.prefix)) continue
      const field = row.querySelector<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(
        'input, select, textarea',
      )
      if (!field || field.value.trim() === '') continue
      const v = typedValue(field.dataset.type ?? 'string', field.value)
      if (v instanceof Error && !loose) throw new FieldError(path, v.message)
      out[path.slice(this.prefix.length)] = v instanceof Error ? field.value : v
    }
    return out
  }

  /**
   * The action the picker gives (the old one's other fields kept), or undefined without a command;
   * `loose` keeps a parameter that does not parse as typed (to refill the fields after a row is removed).
   */
  value(loose = false): Record<string, unknown> | undefined {
    const command = this.select.value
    if (command === '') return undefined
    const params = this.paramValues(loose)
    const old = this.old ?? {}
    const action: Record<string, unknown> = { ...old, command }
    if (Object.keys(params).length > 0) action.params = inOrder(params, isRecord(old.params) ? old.params : {})
    else delete action.params
    return action
  }
}

export class BindingForm {
  readonly element = el('div', 'binding-form')
  private readonly label = el('input')
  private readonly title = el('input')
  private readonly image = el('input')
  private readonly thumbnail = el('input')
  private readonly colors = new Map<string, { set: HTMLInputElement; value: HTMLInputElement }>()
  private readonly confirmMs = el('input')
  private readonly holdMs = el('input')
  private readonly other = el('textarea')
  private readonly fields = new Map<string, HTMLElement>()
  private readonly commands = new Map<string, Command>()
  private readonly press: CommandField | undefined
  private readonly hold: CommandField | undefined
  private readonly toggle: { on: CommandField; off: CommandField } | undefined
  /** The steps, each a single command (`steps:`), when the binding has none or only such. */
  private readonly steps: { box: HTMLElement; list: CommandField[] } | undefined
  /** `feedback.colors` is the form's (a record of play states to #rrggbb, or none). */
  private readonly colorsInForm: boolean

  constructor(
    private readonly choices: Choices,
    /** The binding as read (without `on` and `page`); `{}` for a new one. */
    private readonly original: Record<string, unknown>,
    private readonly changed: () => void,
    readOnly: boolean,
  ) {
    const { press, hold, toggle, steps } = original
    // Each action the form edits is a single command (or none yet); any other shape stays in "other fields".
    const pressInForm =
      press === undefined
        ? !['toggle', 'steps', 'value', 'rotate', 'jog', 'shuttle'].some((k) => k in original)
        : isCommandAction(press)
    const toggleInForm =
      toggle === undefined
        ? !['press', 'steps', 'value', 'rotate', 'jog', 'shuttle'].some((k) => k in original)
        : isRecord(toggle) && isCommandAction(toggle.on) && isCommandAction(toggle.off)
    const stepsInForm =
      steps === undefined
        ? !['press', 'toggle', 'value', 'rotate', 'jog', 'shuttle'].some((k) => k in original)
        : Array.isArray(steps) && steps.every(isCommandAction)
    const lists = el('div', 'datalists')
    for (const [key, names] of Object.entries(choices.names)) {
      const list = el('datalist')
      list.id = `editor-names-${key}`
      for (const n of names.names) list.appendChild(Object.assign(el('option'), { value: n }))
      lists.appendChild(list)
    }
    this.element.appendChild(lists)
    if (pressInForm) {
      this.press = this.commandField('press', press, 'Command', 'What a press sends.', 'command')
      this.element.appendChild(this.press.element)
    }
    // An action the form does not model (a jog, a fader's value, a sequence...) is kept as written.
    const inForm: Record<string, boolean> = { press: pressInForm, toggle: toggleInForm, steps: stepsInForm }
    const aside = ['press', 'toggle', 'steps', 'jog', 'shuttle', 'value', 'rotate'].find(
      (k) => k in original && inForm[k] !== true,
    )
    if (aside !== undefined)
      this.element.appendChild(el('p', 'note', `Its ${aside} is not a single command: edit it under Other fields.`))

    const feedbackBox = this.section('Feedback')
    this.label.value = typeof original.label === 'string' ? original.label : ''
    feedbackBox.appendChild(
      this.row('Label', this.label, 'label', 'The text on the key (it may use {{value}} and the like).'),
    )
    const feedback = isRecord(original.feedback) ? original.feedback : {}
    this.title.value = typeof feedback.title === 'string' ? feedback.title : ''
    this.title.setAttribute('list', 'editor-names-titles')
    feedbackBox.appendChild(
      this.row(
        'Follows title',
        this.title,
        'feedback.title',
        'The key shows this title’s play state (feedback.title).',
      ),
    )
    const colors = feedback.colors
    this.colorsInForm =
      colors === undefined ||
      (isRecord(colors) &&
        Object.entries(colors).every(
          ([k, v]) =>
            (PLAY_STATES as readonly string[]).includes(k) && typeof v === 'string' && /^#[0-9a-f]{6}$/i.test(v),
        ))
    if (this.colorsInForm) feedbackBox.appendChild(this.colorsField(isRecord(colors) ? colors : {}))
    this.thumbnail.type = 'checkbox'
    this.thumbnail.checked = feedback.thumbnail === true
    feedbackBox.appendChild(
      this.row(
        'Thumbnail',
        this.thumbnail,
        'feedback.thumbnail',
        'The followed title’s own thumbnail under the label, its play-state colour as the border (needs a title; not with an image).',
      ),
    )
    this.image.value = typeof original.image === 'string' ? original.image : ''
    this.image.placeholder = 'logo.png'
    feedbackBox.appendChild(
      this.row(
        'Image',
        this.image,
        'image',
        'A PNG, JPEG or SVG file under the label, relative to the config file’s folder.',
      ),
    )

    const behaviour = this.section('Behaviour')
    this.confirmMs.inputMode = 'numeric'
    this.confirmMs.value = typeof original.confirm_ms === 'number' ? String(original.confirm_ms) : ''
    this.confirmMs.placeholder = 'default'
    behaviour.appendChild(
      this.row(
        'Hold to confirm, ms',
        this.confirmMs,
        'confirm_ms',
        'How long a press must be held before it is sent; 0 turns it off. Empty: the default (1500 ms for destructive commands).',
      ),
    )
    if (hold === undefined || isCommandAction(hold)) {
      this.hold = this.commandField(
        'hold',
        hold,
        'Long press',
        'What holding the control sends (with a press).',
        'sub-command',
      )
      behaviour.appendChild(this.hold.element)
      this.holdMs.inputMode = 'numeric'
      this.holdMs.placeholder = '800'
      this.holdMs.value = isRecord(hold) && typeof hold.after_ms === 'number' ? String(hold.after_ms) : ''
      behaviour.appendChild(
        this.row(
          'Long press after, ms',
          this.holdMs,
          'hold.after_ms',
          'How long the control must be held (default 800).',
        ),
      )
    }
    if (toggleInForm) {
      const t = isRecord(toggle) ? toggle : {}
      this.toggle = {
        on: this.commandField(
          'toggle.on',
          t.on,
          'Toggle on',
          'Sent when the toggle is off (or its state unknown).',
          'sub-command',
        ),
        off: this.commandField('toggle.off', t.off, 'Toggle off', 'Sent when the toggle is on.', 'sub-command'),
      }
      behaviour.append(this.toggle.on.element, this.toggle.off.element)
    }

    if (stepsInForm) {
      const box = el('div', 'steps')
      this.steps = { box, list: [] }
      behaviour.appendChild(
        this.row(
          'Steps',
          box,
          'steps',
          'Each press sends the next step (two or more); after the last, the first.',
          'div',
        ),
      )
      this.showSteps(Array.isArray(steps) ? steps : [])
    }

    this.other.rows = 3
    this.other.spellcheck = false
    this.other.value = JSON.stringify(this.otherFields(pressInForm), null, 1)
    this.element.appendChild(
      this.row(
        'Other fields (JSON)',
        this.other,
        'other',
        'What the form does not show, as JSON: its page, steps, sequences, the rest of its feedback…',
      ),
    )
    this.element.addEventListener('input', () => changed())
    this.element.addEventListener('change', () => changed())
    if (readOnly)
      for (const f of this.element.querySelectorAll('input, select, textarea, button')) f.setAttribute('disabled', '')
  }

  /** A command picker at `path`, its fields remembered with the form's. */
  private commandField(path: string, old: unknown, label: string, tip: string, className: string): CommandField {
    const row: RowOf = (l, field, p, t) => this.row(l, field, p, t)
    return new CommandField(this.choices, this.commands, this.fields, row, path, isRecord(old) ? old : undefined, {
      label,
      tip,
      className,
    })
  }

  /** The steps' pickers, one a step, each with a Remove button, and Add step under them. */
  private showSteps(values: readonly unknown[]): void {
    const steps = this.steps
    if (!steps) return
    for (const path of [...this.fields.keys()]) if (path.startsWith('steps.')) this.fields.delete(path)
    steps.box.replaceChildren()
    steps.list = values.map((v, i) => {
      const f = this.commandField(
        `steps.${i}`,
        v,
        `Step ${i + 1}`,
        'Sent by the press after the step before.',
        'sub-command step',
      )
      const remove = el('button', 'remove-step', 'Remove step')
      remove.type = 'button'
      remove.addEventListener('click', () => {
        const now = this.stepValues()
        now.splice(i, 1)
        this.showSteps(now)
        this.changed()
      })
      f.element.appendChild(remove)
      steps.box.appendChild(f.element)
      return f
    })
    const add = el('button', 'add-step', 'Add step')
    add.type = 'button'
    add.addEventListener('click', () => {
      this.showSteps([...this.stepValues(), {}])
      this.changed()
    })
    steps.box.appendChild(add)
  }

  /** The steps as they stand (a step without a command as `{}`), to rebuild their rows. */
  private stepValues(): unknown[] {
    return (this.steps?.list ?? []).map((f) => f.value(true) ?? {})
  }

  /** A titled group of fields. */
  private section(title: string): HTMLElement {
    const box = el('fieldset', 'group')
    box.appendChild(el('legend', undefined, title))
    this.element.appendChild(box)
    return box
  }

  /** One colour per play state, each given or not (a state left out keeps the default palette's). */
  private colorsField(colors: Record<string, unknown>): HTMLElement {
    const box = el('div', 'colors')
    for (const state of PLAY_STATES) {
      const label = el('label', 'color')
      label.dataset.state = state
      const set = Object.assign(el('input'), { type: 'checkbox' })
      const value = Object.assign(el('input'), { type: 'color' })
      const given = colors[state]
      set.checked = typeof given === 'string'
      value.value = typeof given === 'string' ? given.toLowerCase() : '#000000'
      // Picking a colour gives it.
      value.addEventListener('input', () => (set.checked = true))
      label.append(set, value, el('span', undefined, state))
      this.colors.set(state, { set, value })
      box.appendChild(label)
    }
    return this.row('Colours', box, 'feedback.colors', 'The key’s colour per play state of the followed title.', 'div')
  }

  /** The binding's fields the form does not show, as they are. */
  private otherFields(pressInForm: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(this.original)) {
      if (this.modelled(k, pressInForm)) continue
      if (k === 'feedback' && isRecord(v)) {
        const rest = Object.fromEntries(Object.entries(v).filter(([f]) => !this.modelledFeedback(f)))
        if (Object.keys(rest).length > 0) out.feedback = rest
        continue
      }
      out[k] = v
    }
    return out
  }

  /** A top-level field the form edits itself. */
  private modelled(k: string, pressInForm = this.press !== undefined): boolean {
    switch (k) {
      case 'label':
      case 'image':
      case 'confirm_ms':
        return true
      case 'press':
        return pressInForm
      case 'hold':
        return this.hold !== undefined
      case 'toggle':
        return this.toggle !== undefined
      case 'steps':
        return this.steps !== undefined
      default:
        return false
    }
  }

  /** A field of `feedback` the form edits itself. */
  private modelledFeedback(f: string): boolean {
    return f === 'title' || f === 'thumbnail' || (f === 'colors' && this.colorsInForm)
  }

  /** A labelled field, remembered by its path (where the check's problems are shown). */
  private row(
    label: string,
    field: HTMLElement,
    path: string,
    tip?: string,
    tag: 'label' | 'div' = 'label',
  ): HTMLElement {
    // A row holding several controls is a div (a label holds one).
    const row = el(tag, tag === 'div' ? 'field wide' : 'field')
    row.dataset.path = path
    row.appendChild(el('span', 'name', label))
    row.appendChild(field)
    if (tip !== undefined) row.title = tip
    row.appendChild(el('span', 'problem'))
    this.fields.set(path, row)
    return row
  }

  /** The binding the form describes, in the original's order of fields, or why it cannot be given. */
  value(): { binding: Record<string, unknown> } | { error: FormError } {
    try {
      return this.read()
    } catch (err) {
      if (err instanceof FieldError) return { error: { path: err.path, message: err.message } }
      throw err
    }
  }

  private read(): { binding: Record<string, unknown> } | { error: FormError } {
    let other: unknown
    try {
      other = JSON.parse(this.other.value.trim() === '' ? '{}' : this.other.value)
    } catch (err) {
      return { error: { path: 'other', message: `not JSON: ${(err as Error).message}` } }
    }
    if (!isRecord(other)) return { error: { path: 'other', message: 'give the other fields as a JSON object ({ … })' } }
    const mine: Record<string, unknown> = {}
    const press = this.press?.value()
    if (press) mine.press = press
    if (this.label.value !== '') mine.label = this.label.value
    const feedback = this.feedback(isRecord(other.feedback) ? other.feedback : undefined)
    if (Object.keys(feedback).length > 0) mine.feedback = feedback
    if (this.image.value.trim() !== '') mine.image = this.image.value.trim()
    const confirm = msValue(this.confirmMs, 'confirm_ms')
    if (confirm !== undefined) mine.confirm_ms = confirm
    const hold = this.hold?.value()
    const after = msValue(this.holdMs, 'hold.after_ms')
    if (hold) {
      if (after !== undefined) hold.after_ms = after
      else delete hold.after_ms
      mine.hold = hold
    } else if (after !== undefined) throw new FieldError('hold.command', 'a long press time needs a command')
    if (this.toggle) {
      const [on, off] = [this.toggle.on.value(), this.toggle.off.value()]
      if (on && off) {
        const old = isRecord(this.original.toggle) ? this.original.toggle : {}
        mine.toggle = inOrder({ on, off }, old)
      } else if (on || off)
        throw new FieldError(on ? 'toggle.off.command' : 'toggle.on.command', 'a toggle needs both on and off')
    }
    if (this.steps) {
      const given = this.steps.list.flatMap((f) => f.value() ?? [])
      if (given.length > 0) mine.steps = given
    }
    const next: Record<string, unknown> = {}
    // Every field in the original's place; those taken away are left out; new ones at the end.
    const keys = [...Object.keys(this.original)]
    for (const k of [...Object.keys(mine), ...Object.keys(other)]) if (!keys.includes(k)) keys.push(k)
    for (const k of keys) {
      if (this.modelled(k) || k === 'feedback') {
        if (Object.hasOwn(mine, k)) next[k] = mine[k]
      } else if (Object.hasOwn(other, k)) next[k] = other[k]
    }
    return { binding: next }
  }

  /** `feedback` from the form's fields and the rest given as JSON, in the file's order. */
  private feedback(rest: Record<string, unknown> | undefined): Record<string, unknown> {
    const old = isRecord(this.original.feedback) ? this.original.feedback : {}
    const mine: Record<string, unknown> = {}
    const title = this.title.value.trim()
    if (title !== '') mine.title = title
    if (this.colorsInForm) {
      const oldColors = isRecord(old.colors) ? old.colors : {}
      const colors: Record<string, unknown> = {}
      for (const [state, { set, value }] of this.colors) {
        if (!set.checked) continue
        // The file's own spelling of an unchanged colour (#FF0000 stays so, not #ff0000).
        const was = oldColors[state]
        colors[state] = typeof was === 'string' && was.toLowerCase() === value.value ? was : value.value
      }
      // An empty `colors: {}` in the file stays as written.
      if (Object.keys(colors).length > 0 || (isRecord(old.colors) && Object.keys(old.colors).length === 0))
        mine.colors = inOrder(colors, oldColors)
    }
    if (this.thumbnail.checked) mine.thumbnail = true
    else if (old.thumbnail === false) mine.thumbnail = false
    const out: Record<string, unknown> = { ...mine }
    for (const [k, v] of Object.entries(rest ?? {})) if (!this.modelledFeedback(k)) out[k] = v
    return inOrder(out, old)
  }

  /** What the key would say: its label, else the title it follows. */
  previewText(): string {
    return this.label.value || this.title.value
  }

  /** The colour the key would show when its title is off (else running, else paused), if one is given. */
  previewColor(): string | undefined {
    for (const state of ['Off', 'Running', 'Paused']) {
      const c = this.colors.get(state)
      if (c?.set.checked) return c.value.value
    }
    return undefined
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

/** A field of milliseconds: undefined when empty, else a whole number ≥ 0 (the check bounds the rest). */
function msValue(field: HTMLInputElement, path: string): number | undefined {
  const t = field.value.trim()
  if (t === '') return undefined
  const n = Number(t)
  if (!Number.isInteger(n) || n < 0) throw new FieldError(path, 'give a whole number of milliseconds (0 or more)')
  return n
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
