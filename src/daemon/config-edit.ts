/**
 * The daemon's side of the mapping file's editor (issue 42 items 3 to 6): what the remote API's
 * `/api/config` and `…/binding` routes do, over the editor core (`src/mappings/edit/`). Every read carries
 * the hash of the file's bytes and every save names the hash it edited (a file changed on disk since is
 * refused, never overwritten); a save passes the loader's whole check first, is written atomically, is
 * kept in the history (in the state folder, never beside the config) and is followed by the daemon's
 * all-or-nothing reload, which it waits for. Saves run one at a time. When the application answers, a
 * save is also refused for each title, video input or replay input it adds that the application lacks
 * (only the names the edit adds: a file that already names a missing title can still be edited
 * elsewhere); when it does not answer, the loader's check alone decides.
 *
 * Who may edit is the server's (Host, Origin, token); whether the editor is on at all is this file's:
 * `listen.edit: false`, the bundled default config (part of the package), or a file the process cannot
 * write (`checkWritable`) answer 403 `EDIT_DISABLED` with the reason.
 *
 * Every save is logged with the bindings it changed (`surface/control`, `@page` for a page's own) and the
 * file's new hash, and counted in `/metrics` (`panelbridge_config_edits_total{kind}`).
 */
import { createHash } from 'node:crypto'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Logger } from '../log.js'
import { appProblems, namesInConfig, type AppNames, type NameUse } from '../mappings/config-names.js'
import { loaderCheck } from '../mappings/edit/check.js'
import { deleteBinding, putBinding, type EditResult } from '../mappings/edit/edit.js'
import { EditHistory } from '../mappings/edit/history.js'
import { EditError, parseForEdit, type BindingRef } from '../mappings/edit/locate.js'
import { readBinding } from '../mappings/edit/read.js'
import {
  checkWritable,
  readWithHash,
  type CheckText,
  type EditProblem,
  type SaveResult,
} from '../mappings/edit/save.js'
import { loadConfigText } from '../mappings/load.js'
import { serviceStateFolder } from './recorder.js'
import type { BindingAddress, BindingView, ConfigEditApi, ConfigInfo, EditChoices, EditRefusal } from './api.js'

export interface ConfigEditorOptions {
  /** The mapping file (absolute). */
  file: string
  /** Where the saved versions are kept (`editHistoryFolder`). */
  historyFolder: string
  /** Whether editing is switched on now (`listen.edit`), read at each request: a reload may change it. */
  enabled(): boolean
  /** Why the file is never to be edited whatever its permissions (the bundled default config), if so. */
  fixedReason?: string
  /** The daemon's reload; resolves false when the file was refused. */
  reload(): Promise<boolean>
  /** What the editor's form offers (`GET /api/config/choices`; `edit-choices.ts`). */
  choices?(): Promise<EditChoices>
  /** The check a save passes (default: the loader's, as the daemon loads). */
  check?: CheckText
  /**
   * The live application's names (`edit-choices.ts` liveNames), or undefined when it does not answer: a
   * save that passes the check is then refused for each name it adds that the application lacks.
   */
  liveNames?(): Promise<AppNames | undefined>
  log: Logger
  /** A save was made (for `/metrics`). */
  onSaved?(kind: 'put' | 'delete' | 'undo'): void
}

/** The names offered by an editor without a source of them. */
const NO_NAMES: EditChoices['names'] = {
  titles: { from: 'file', names: [] },
  videoInputs: { from: 'file', names: [] },
  replayInputs: { from: 'file', names: [] },
}

/** Why the editor is off when `listen.edit` is false. */
const EDIT_OFF_REASON = 'editing is switched off in the config (listen.edit: false)'

/**
 * The folder the editor's history of a config is kept in: `edits/<hash of the config's path>` under the
 * service's state folder (`$STATE_DIRECTORY`, the recording's), else under `$XDG_STATE_HOME/panelbridge`
 * (`~/.local/state/panelbridge`). ASSUMED: a daemon outside systemd keeps its state where the XDG base
 * directories say; never in the config's folder, where versions would be read as configs or committed.
 */
export function editHistoryFolder(configFile: string, env: NodeJS.ProcessEnv = process.env): string {
  const base =
    serviceStateFolder(env) ??
    join(env.XDG_STATE_HOME ? resolve(env.XDG_STATE_HOME) : join(homedir(), '.local', 'state'), 'panelbridge')
  const id = createHash('sha256').update(resolve(configFile)).digest('hex').slice(0, 16)
  return join(base, 'edits', id)
}

const refuse = (
  status: EditRefusal['status'],
  code: EditRefusal['code'],
  message: string,
  more: Partial<EditRefusal> = {},
): EditRefusal => ({ status, code, message, ...more })

/** The id of a binding as the log names it: `surface/control`, `@page` for a page's own. */
function bindingId(b: Record<string, unknown>): string {
  return `${String(b.on)}${typeof b.page === 'string' ? `@${b.page}` : ''}`
}

/** The bindings that differ between two texts of the file (added, removed or changed), by id. */
export function changedBindings(before: string, after: string): string[] {
  const byId = (text: string): Map<string, string> => {
    try {
      return new Map(parseForEdit(text).bindings.map((b) => [bindingId(b), JSON.stringify(b)]))
    } catch {
      return new Map()
    }
  }
  const a = byId(before)
  const b = byId(after)
  const ids = new Set([...a.keys(), ...b.keys()])
  return [...ids].filter((id) => a.get(id) !== b.get(id)).sort()
}

export class ConfigEditor implements ConfigEditApi {
  private readonly history: EditHistory
  private readonly check: CheckText
  /** Saves one at a time: each waits for the one before (and its reload). */
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly o: ConfigEditorOptions) {
    this.history = new EditHistory(o.file, o.historyFolder)
    this.check = o.check ?? loaderCheck(o.file, { imageProblems: 'warning' })
  }

  /** Why the editor may not write the file now, or undefined. */
  private async disabled(): Promise<string | undefined> {
    if (!this.o.enabled()) return EDIT_OFF_REASON
    if (this.o.fixedReason !== undefined) return this.o.fixedReason
    const w = await checkWritable(this.o.file)
    return w.writable ? undefined : w.reason
  }

  async info(): Promise<ConfigInfo> {
    const { hash } = await readWithHash(this.o.file)
    const reason = await this.disabled()
    return {
      path: this.o.file,
      hash,
      writable: reason === undefined,
      ...(reason !== undefined ? { reason } : {}),
      enabled: this.o.enabled(),
    }
  }

  choices(): Promise<EditChoices> {
    return this.o.choices?.() ?? Promise.resolve({ groups: [], names: NO_NAMES })
  }

  async read(at: BindingAddress): Promise<BindingView | EditRefusal> {
    try {
      const found = await readBinding(this.o.file, ref(at))
      if (!found.found)
        return refuse(404, 'NO_BINDING', `${at.surface}/${at.control} has no binding`, { hash: found.hash })
      return {
        hash: found.hash,
        file: found.file,
        line: found.line,
        yaml: found.yaml,
        binding: found.binding,
        ...(found.editable ? {} : { readOnly: found.reason ?? 'this binding cannot be edited alone' }),
      }
    } catch (err) {
      return editFailure(err, (await readWithHash(this.o.file)).hash)
    }
  }

  put(at: BindingAddress, hash: string, binding: unknown): Promise<{ hash: string } | EditRefusal> {
    return this.save('put', hash, (text) => putBinding(text, ref(at), binding, this.o.file))
  }

  remove(at: BindingAddress, hash: string): Promise<{ hash: string } | EditRefusal> {
    return this.save('delete', hash, (text) => deleteBinding(text, ref(at), this.o.file))
  }

  undo(hash: string): Promise<{ hash: string } | EditRefusal> {
    return this.serial(async () => {
      const reason = await this.disabled()
      if (reason !== undefined) return refuse(403, 'EDIT_DISABLED', reason)
      const before = (await readWithHash(this.o.file)).bytes.toString('utf8')
      const r = await this.history.undo(hash)
      if (!r.ok) {
        if (r.code === 'NOTHING_TO_UNDO') return refuse(409, 'NOTHING_TO_UNDO', 'no save of the editor is kept to undo')
        return refuse(409, 'CONFIG_CHANGED', changedMessage(), { hash: r.hash })
      }
      const after = (await readWithHash(this.o.file)).bytes.toString('utf8')
      return this.applied('undo', before, after, r.hash)
    })
  }

  /** A save: the edit made on the file's current text, over the version `hash` names only. */
  private save(
    kind: 'put' | 'delete',
    hash: string,
    edit: (text: string) => EditResult,
  ): Promise<{ hash: string } | EditRefusal> {
    return this.serial(async () => {
      const reason = await this.disabled()
      if (reason !== undefined) return refuse(403, 'EDIT_DISABLED', reason)
      const current = await readWithHash(this.o.file)
      if (current.hash !== hash) return refuse(409, 'CONFIG_CHANGED', changedMessage(), { hash: current.hash })
      const before = current.bytes.toString('utf8')
      let next: string
      try {
        next = edit(before).text
      } catch (err) {
        return editFailure(err, current.hash)
      }
      const result: SaveResult = await this.history.save(hash, next, this.checkAgainst(before))
      if (!result.ok) {
        if (result.code === 'CONFIG_CHANGED')
          return refuse(409, 'CONFIG_CHANGED', changedMessage(), { hash: result.hash })
        if (result.code === 'NOT_WRITABLE') return refuse(403, 'EDIT_DISABLED', result.reason)
        return refuse(422, 'CONFIG_REFUSED', 'the check refused the edit; the file is unchanged', {
          problems: result.problems,
        })
      }
      return this.applied(kind, before, next, result.hash)
    })
  }

  /** The check of a save over `before`: the loader's, then the names the edit adds looked up live. */
  private checkAgainst(before: string): CheckText {
    return async (text) => {
      const problems = await this.check(text)
      if (problems.length > 0 || !this.o.liveNames) return problems
      return this.addedNameProblems(before, text)
    }
  }

  /** Each name `after` uses that `before` did not (kind and name) and the live application lacks. */
  private async addedNameProblems(before: string, after: string): Promise<EditProblem[]> {
    const key = (u: NameUse): string => `${u.kind}\u0000${u.name}`
    const old = new Set((await this.namesOf(before)).map(key))
    const added = (await this.namesOf(after)).filter((u) => !old.has(key(u)))
    if (added.length === 0) return []
    const app = await this.o.liveNames?.()
    if (!app) return []
    return appProblems(added, app).map((p) => ({ path: p.path.join('.'), message: p.message }))
  }

  /** The names a text of the file gives the application (none when it does not load). */
  private async namesOf(text: string): Promise<NameUse[]> {
    const { config } = await loadConfigText(text, this.o.file, { imageProblems: 'warning' })
    return config ? namesInConfig(config) : []
  }

  /** A save written: logged, counted, and the reload waited for. */
  private async applied(
    kind: 'put' | 'delete' | 'undo',
    before: string,
    after: string,
    hash: string,
  ): Promise<{ hash: string } | EditRefusal> {
    this.o.log.info('the mapping file was edited', { kind, bindings: changedBindings(before, after), hash })
    this.o.onSaved?.(kind)
    const ok = await this.o.reload()
    if (!ok)
      return refuse(500, 'RELOAD_FAILED', 'the file was saved but its reload was refused; the old mapping runs on', {
        hash,
      })
    return { hash }
  }

  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job)
    this.queue = run.catch(() => undefined)
    return run
  }
}

function ref(at: BindingAddress): BindingRef {
  return { surface: at.surface, control: at.control, ...(at.page !== undefined ? { page: at.page } : {}) }
}

function changedMessage(): string {
  return 'the file changed on disk since it was read (its hash is not the one named); read it again'
}

/** The editor core's refusal as the API's; anything else is a fault. */
function editFailure(err: unknown, hash: string): EditRefusal {
  if (!(err instanceof EditError)) throw err
  switch (err.code) {
    case 'NO_BINDING':
      return refuse(404, 'NO_BINDING', err.message, { hash })
    case 'NOT_EDITABLE':
      return refuse(403, 'NOT_EDITABLE', err.message)
    case 'BAD_BINDING':
      return refuse(422, 'CONFIG_REFUSED', err.message, { problems: [{ path: 'binding', message: err.message }] })
    case 'ALREADY_BOUND':
    case 'NOT_PRESERVED':
    case 'SYNTAX':
    case 'UNSUPPORTED':
      return refuse(422, 'CONFIG_REFUSED', err.message, { problems: [{ path: '', message: err.message }] })
  }
}
