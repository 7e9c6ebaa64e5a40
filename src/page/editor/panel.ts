/**
 * The editor on the page (issue 42): an "Edit" switch in the page's header opens a panel beside the
 * surfaces. "Find by pressing" arms one surface or all of them through the page's socket (`find`); the
 * armed surfaces' controls are framed; the next press, turn or move of a control there, on the page or
 * on its hardware, selects it (`selected`: its press sent nothing) and the panel opens its binding:
 * `file:line`, the YAML as written, and a form (`./form.ts`). Changes show on the page's copy of the key
 * (a preview: nothing is sent) until saved. Save names the hash of the file it was read from: a file
 * changed on disk since is shown (what changed) and the form offers to reload; a refused edit shows each
 * problem at its field; a file the daemon may not write opens read-only, with why. Delete, copy to
 * another control, and undo of the last save go through the same remote API.
 *
 * Never built on a read-only viewer (`?view=1`), nor when editing is switched off (`listen.edit: false`)
 * or the page is served without the daemon (the API answers 404): then there is no switch at all.
 * Escape, the switch, or closing the page disarms (the daemon disarms a closed page's arming itself).
 */
import type { FindClientMessage, ServerMessage } from '../../face/protocol.js'
import { el } from '../dom.js'
import { BindingForm, readChoices, type Choices, type FormError } from './form.js'
import { bindingPath, errorOf, isRecord, refusalCode, refusalText, request, text, type Answer } from './remote.js'

/** The binding open in the panel. */
interface Open {
  surface: string
  control: string
  page: string | null
  /** The file's hash the binding was read with (a save names it). */
  hash: string
  /** The YAML as read (`undefined` for a control without a binding). */
  yaml: string | undefined
  form: BindingForm
  readOnly: string | undefined
}

/** The words and tooltips of the panel. */
const WORDS = {
  findAll: 'all surfaces',
  armed: 'Press, turn or move a control on an armed surface to open its binding (Esc stops). It sends nothing.',
} as const

export class Editor {
  private readonly panel = el('aside', 'editor')
  private readonly toggle = el('button', 'edit-switch', 'Edit')
  private readonly fileLine = el('p', 'file')
  private readonly readOnlyNote = el('p', 'read-only-note')
  private readonly findTarget = el('select')
  private readonly findButton = el('button', 'find', 'Find by pressing')
  private readonly findState = el('p', 'find-state')
  private readonly body = el('section', 'binding')
  private readonly message = el('div', 'message')
  private readonly surfaces = new Map<string, string[]>()
  private armedOn: string[] | 'all' | undefined
  private choices: Choices | undefined
  private open: Open | undefined
  private configReason: string | undefined
  /** The key the preview shows on, and what it showed before. */
  private previewed: HTMLElement | undefined

  constructor(
    header: HTMLElement,
    private readonly send: (m: FindClientMessage) => void,
    /** The page's surfaces (their sections and controls carry `data-surface`, `data-control`). */
    private readonly main: HTMLElement,
  ) {
    this.toggle.type = 'button'
    this.toggle.setAttribute('aria-pressed', 'false')
    this.toggle.title = 'Open the editor beside the surfaces: find a control by pressing it, change its binding.'
    this.toggle.hidden = true
    this.toggle.addEventListener('click', () => this.setEditing(!document.body.classList.contains('editing')))
    header.appendChild(this.toggle)
    this.panel.id = 'editor'
    this.panel.hidden = true
    this.panel.setAttribute('aria-label', 'Binding editor')
    this.build()
    document.body.appendChild(this.panel)
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.armedOn !== undefined) this.send({ type: 'disarm' })
    })
    void this.start()
  }

  /** Shows the switch once the daemon says editing is on. */
  private async start(): Promise<void> {
    const info = await request('GET', '/api/config')
    const on = info.status === 200 && info.body?.enabled === true
    // What the page made of the answer, on the body: `on`, or `off` (no switch).
    document.body.dataset.editor = on ? 'on' : 'off'
    if (!on) return
    this.showConfig(info)
    this.toggle.hidden = false
  }

  private showConfig(info: Answer): void {
    const path = text(info.body, 'path') ?? ''
    this.fileLine.textContent = path
    this.configReason =
      info.body?.writable === true ? undefined : (text(info.body, 'reason') ?? 'the file cannot be written')
    this.readOnlyNote.hidden = this.configReason === undefined
    this.readOnlyNote.textContent =
      this.configReason === undefined ? '' : `Read-only: ${this.configReason}. You can look, not save.`
  }

  private build(): void {
    const head = el('header')
    head.appendChild(el('h2', undefined, 'Edit bindings'))
    const close = el('button', 'close', 'Close')
    close.type = 'button'
    close.addEventListener('click', () => this.setEditing(false))
    head.appendChild(close)
    const find = el('div', 'find-row')
    const label = el('label', undefined, 'on ')
    label.appendChild(this.findTarget)
    this.findButton.type = 'button'
    this.findButton.addEventListener('click', () => {
      if (this.armedOn !== undefined) this.send({ type: 'disarm' })
      else this.arm()
    })
    find.append(this.findButton, label)
    this.findState.setAttribute('role', 'status')
    this.message.setAttribute('role', 'alert')
    this.body.hidden = true
    this.panel.append(head, this.fileLine, this.readOnlyNote, find, this.findState, this.message, this.body)
    this.fillTargets()
  }

  private arm(): void {
    const target = this.findTarget.value
    this.send(target === '' ? { type: 'find' } : { type: 'find', surfaces: [target] })
  }

  private setEditing(on: boolean): void {
    document.body.classList.toggle('editing', on)
    this.toggle.setAttribute('aria-pressed', String(on))
    this.panel.hidden = !on
    if (on) {
      void request('GET', '/api/config').then((info) => {
        if (info.status === 200) this.showConfig(info)
      })
    } else {
      if (this.armedOn !== undefined) this.send({ type: 'disarm' })
      this.clearPreview()
    }
  }

  /** The server's messages the editor reads: surfaces (for its lists), find's state and selections. */
  handle(m: ServerMessage): void {
    if (m.type === 'hello') {
      // A new socket: its daemon sends find's state afresh (a closed page's arming ended with it).
      this.surfaces.clear()
      this.fillTargets()
      this.showArmed(false, undefined)
      // A daemon that was down when the page loaded (or restarted with editing on) is asked again.
      if (this.toggle.hidden) void this.start()
    } else if (m.type === 'surface') {
      this.surfaces.set(
        m.surface.id,
        m.surface.controls.map((c) => c.id),
      )
      this.fillTargets()
      this.frame()
    } else if (m.type === 'removed') {
      this.surfaces.delete(m.surface)
      this.fillTargets()
    } else if (m.type === 'find-state') {
      this.showArmed(m.armed, m.surfaces)
    } else if (m.type === 'selected' && document.body.classList.contains('editing')) {
      void this.select(m.surface, m.control, m.page)
    }
  }

  /** Find's state on the panel and the surfaces. */
  private showArmed(armed: boolean, surfaces: string[] | 'all' | undefined): void {
    this.armedOn = armed ? (surfaces ?? 'all') : undefined
    this.findButton.textContent = armed ? 'Stop finding' : 'Find by pressing'
    this.findButton.setAttribute('aria-pressed', String(armed))
    this.findState.textContent = armed
      ? `Armed on ${surfaces === 'all' || surfaces === undefined ? WORDS.findAll : surfaces.join(', ')}. ${WORDS.armed}`
      : ''
    this.frame()
  }

  /** The surfaces to arm: all, or one. */
  private fillTargets(): void {
    const current = this.findTarget.value
    this.findTarget.replaceChildren(Object.assign(el('option', undefined, WORDS.findAll), { value: '' }))
    for (const id of this.surfaces.keys())
      this.findTarget.appendChild(Object.assign(el('option', undefined, id), { value: id }))
    this.findTarget.value = this.surfaces.has(current) ? current : ''
  }

  /** Frames the armed surfaces' controls on the page. */
  private frame(): void {
    for (const section of this.main.querySelectorAll<HTMLElement>('section.surface')) {
      const id = section.dataset.surface ?? ''
      const on = this.armedOn === 'all' || (this.armedOn !== undefined && this.armedOn.includes(id))
      section.classList.toggle('find-armed', on)
    }
  }

  /** Opens the binding of a control (selected by pressing it). */
  async select(surface: string, control: string, page: string | null): Promise<void> {
    this.say('')
    const [read, choices] = await Promise.all([
      request('GET', bindingPath(surface, control, page)),
      this.choices ? Promise.resolve(undefined) : request('GET', '/api/config/choices'),
    ])
    if (choices) this.choices = readChoices(choices.status === 200 ? choices.body : undefined)
    const error = errorOf(read)
    if (read.status !== 200 && refusalCode(read) !== 'NO_BINDING') {
      this.say(`Cannot open ${surface}/${control}: ${refusalText(read)}`, 'bad')
      return
    }
    const found = read.status === 200
    const hash = (found ? text(read.body, 'hash') : text(error, 'hash')) ?? ''
    const binding = found && isRecord(read.body?.binding) ? read.body.binding : {}
    const readOnly = (found ? text(read.body, 'readOnly') : undefined) ?? this.configReason
    const form = new BindingForm(this.choices!, binding, () => this.preview(), readOnly !== undefined)
    this.clearPreview()
    this.open = { surface, control, page, hash, yaml: found ? text(read.body, 'yaml') : undefined, form, readOnly }
    this.body.replaceChildren()
    this.body.hidden = false
    const title = el('h3', undefined, `${surface}/${control}${page !== null ? ` (page ${page})` : ''}`)
    this.body.appendChild(title)
    const where = found
      ? `${text(read.body, 'file') ?? ''}:${String(read.body?.line)}`
      : 'no binding yet: saving adds one'
    this.body.appendChild(el('p', 'where', where))
    if (readOnly !== undefined) this.body.appendChild(el('p', 'read-only-note', `Read-only: ${readOnly}`))
    if (found) {
      const yaml = el('details', 'yaml')
      yaml.open = true
      yaml.appendChild(el('summary', undefined, 'As written in the file'))
      yaml.appendChild(el('pre', undefined, text(read.body, 'yaml') ?? ''))
      this.body.appendChild(yaml)
    }
    this.body.appendChild(form.element)
    this.body.appendChild(this.actions(found, readOnly !== undefined))
  }

  /** Save, delete, copy, undo. */
  private actions(found: boolean, readOnly: boolean): HTMLElement {
    const row = el('div', 'actions')
    const button = (label: string, cls: string, run: () => Promise<void>, tip: string): HTMLButtonElement => {
      const b = el('button', cls, label)
      b.type = 'button'
      b.title = tip
      b.disabled = readOnly
      b.addEventListener('click', () => void run())
      row.appendChild(b)
      return b
    }
    button(
      'Save',
      'save',
      () => this.save(),
      'Write the change to the file (only this binding’s lines change) and reload.',
    )
    if (found) button('Delete', 'delete', () => this.remove(), 'Remove this binding from the file.')
    const copyTo = el('input', 'copy-to')
    copyTo.placeholder = 'surface/control'
    copyTo.setAttribute('list', 'editor-controls')
    copyTo.disabled = readOnly
    const controls = el('datalist')
    controls.id = 'editor-controls'
    for (const [s, ids] of this.surfaces)
      for (const c of ids) controls.appendChild(Object.assign(el('option'), { value: `${s}/${c}` }))
    button(
      'Copy to',
      'copy',
      () => this.copy(copyTo.value),
      'Give another control this binding (it replaces what that control has).',
    )
    row.append(copyTo, controls)
    button('Undo last save', 'undo', () => this.undo(), 'Put back the file as it was before the editor’s last save.')
    return row
  }

  /** The form's binding, or undefined after showing why there is none. */
  private formValue(): Record<string, unknown> | undefined {
    const open = this.open
    if (!open) return undefined
    const v = open.form.value()
    if ('error' in v) {
      open.form.showProblems([v.error])
      this.say('The form has a problem; see the field marked.', 'bad')
      return undefined
    }
    open.form.showProblems([])
    return v.binding
  }

  private async save(): Promise<void> {
    const open = this.open
    const binding = this.formValue()
    if (!open || !binding) return
    const r = await request('PUT', bindingPath(open.surface, open.control, open.page), { hash: open.hash, binding })
    await this.after(r, 'Saved; the mapping was reloaded.')
  }

  private async remove(): Promise<void> {
    const open = this.open
    if (!open) return
    const path = bindingPath(open.surface, open.control, open.page)
    const r = await request('DELETE', `${path}${path.includes('?') ? '&' : '?'}hash=${encodeURIComponent(open.hash)}`)
    await this.after(r, 'Deleted; the mapping was reloaded.')
  }

  private async copy(target: string): Promise<void> {
    const open = this.open
    const binding = this.formValue()
    if (!open || !binding) return
    const slash = target.indexOf('/')
    if (slash <= 0 || slash === target.length - 1) {
      this.say('Copy to: name the control as surface/control (key:3 on desk is desk/key:3).', 'bad')
      return
    }
    const [surface, control] = [target.slice(0, slash), target.slice(slash + 1)]
    const r = await request('PUT', bindingPath(surface, control, open.page), { hash: open.hash, binding })
    if (r.status === 200) {
      await this.select(open.surface, open.control, open.page)
      this.say(`Copied to ${surface}/${control}; the mapping was reloaded.`, 'ok')
      return
    }
    await this.after(r, '')
  }

  private async undo(): Promise<void> {
    const open = this.open
    if (!open) return
    const r = await request('POST', '/api/config/undo', { hash: open.hash })
    await this.after(r, 'The last save was undone; the mapping was reloaded.')
  }

  /** What a save, delete or undo answered: the binding read again, or the refusal shown. */
  private async after(r: Answer, done: string): Promise<void> {
    const open = this.open
    if (!open) return
    if (r.status === 200) {
      this.clearPreview()
      await this.select(open.surface, open.control, open.page)
      this.say(done, 'ok')
      return
    }
    const code = refusalCode(r)
    if (code === 'CONFIG_CHANGED') return this.changedOnDisk(open)
    if (code === 'CONFIG_REFUSED') {
      const problems = problemsOf(r)
      const rest = open.form.showProblems(problems)
      this.say(
        ['The check refused the edit; the file is unchanged.', ...rest.map((p) => `${p.path}: ${p.message}`)].join(
          '\n',
        ),
        'bad',
      )
      return
    }
    this.say(`${r.status === 403 ? 'Not allowed' : 'Refused'}: ${refusalText(r)}. The file is unchanged.`, 'bad')
  }

  /** 409: the file changed on disk since the form was read: what changed at this binding, and a reload. */
  private async changedOnDisk(open: Open): Promise<void> {
    const now = await request('GET', bindingPath(open.surface, open.control, open.page))
    const after = now.status === 200 ? (text(now.body, 'yaml') ?? '') : ''
    this.message.replaceChildren()
    this.message.className = 'message bad'
    this.message.appendChild(
      el(
        'p',
        undefined,
        'The file changed on disk since this form was read (another editor, a git pull?). Nothing was saved.',
      ),
    )
    const diff = el('pre', 'diff')
    const lines = lineDiff(open.yaml ?? '', after)
    diff.textContent =
      lines.length > 0 ? lines.join('\n') : 'This binding is as it was; other lines of the file changed.'
    this.message.appendChild(diff)
    const reload = el('button', 'reload', 'Reload the form')
    reload.type = 'button'
    reload.addEventListener('click', () => void this.select(open.surface, open.control, open.page))
    this.message.appendChild(reload)
  }

  private say(words: string, kind: 'ok' | 'bad' | '' = ''): void {
    this.message.replaceChildren()
    this.message.className = `message ${kind}`
    this.message.textContent = words
  }

  /** Shows the change on the page's copy of the key (nothing is sent). */
  private preview(): void {
    const open = this.open
    if (!open) return
    const node = this.main.querySelector<HTMLElement>(
      `[data-surface="${CSS.escape(open.surface)}"][data-control="${CSS.escape(open.control)}"]`,
    )
    if (this.previewed && this.previewed !== node) this.clearPreview()
    if (!node) return
    node.classList.add('previewing')
    node.dataset.preview = open.form.previewText() || '(no label)'
    const color = open.form.previewColor()
    if (color !== undefined) node.style.setProperty('--preview-color', color)
    else node.style.removeProperty('--preview-color')
    this.previewed = node
  }

  private clearPreview(): void {
    if (!this.previewed) return
    this.previewed.classList.remove('previewing')
    delete this.previewed.dataset.preview
    this.previewed.style.removeProperty('--preview-color')
    this.previewed = undefined
  }
}

/** The problems of a 422 (`[{ path, message }]`), untrusted. */
function problemsOf(r: Answer): FormError[] {
  const list = errorOf(r)?.problems
  if (!Array.isArray(list)) return []
  return list.flatMap((p) =>
    isRecord(p) && typeof p.path === 'string' && typeof p.message === 'string'
      ? [{ path: p.path, message: p.message }]
      : [],
  )
}

/** The lines of `before` gone (`- `) and of `after` new (`+ `), in order: what changed at the binding. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split('\n')
  const b = after.split('\n')
  const inA = new Set(a)
  const inB = new Set(b)
  return [...a.filter((l) => !inB.has(l)).map((l) => `- ${l}`), ...b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`)]
}
