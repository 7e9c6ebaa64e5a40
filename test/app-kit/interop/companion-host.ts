/**
 * A minimal stand-in for Companion's module host (`@companion-module/base` ~1.11, what NewBlue's
 * Captivate module requires): only what that module calls (`InstanceBase` with log, updateStatus,
 * setVariableDefinitions, setVariableValues, setActionDefinitions, setFeedbackDefinitions,
 * setPresetDefinitions, checkFeedbacks, parseVariablesInString; `InstanceStatus`; `runEntrypoint`;
 * `splitRgb`), every call recorded. The test side adds what Companion's buttons would do: feedback
 * instances that `checkFeedbacks` evaluates through the module's callbacks, and pressing an action.
 *
 * `loadNewBlueCaptivate()` loads the vendored module unmodified with a require hook: the module's
 * `require('@companion-module/base')` gets this stand-in, and `ws`/`jimp` resolve to our node_modules.
 */
import Module, { createRequire } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Companion's statuses (`InstanceStatus` of @companion-module/base). */
export const InstanceStatus = {
  Ok: 'ok',
  Connecting: 'connecting',
  Disconnected: 'disconnected',
  ConnectionFailure: 'connection_failure',
  BadConfig: 'bad_config',
  UnknownError: 'unknown_error',
  UnknownWarning: 'unknown_warning',
} as const

export interface HostCall {
  method: string
  args: unknown[]
  /** `Date.now()` of the call. */
  at: number
}

export interface ActionEvent {
  id: string
  actionId: string
  controlId: string
  options: Record<string, unknown>
}
export interface ActionDefinition {
  name: string
  options: { id: string; default?: unknown }[]
  callback: (event: ActionEvent, context: HostContext) => unknown
}

export interface FeedbackEvent {
  id: string
  type: 'boolean' | 'advanced'
  feedbackId: string
  controlId: string
  options: Record<string, unknown>
}
export interface FeedbackDefinition {
  type: 'boolean' | 'advanced'
  name: string
  options: { id: string; default?: unknown }[]
  callback: (event: FeedbackEvent, context: HostContext) => unknown
  subscribe?: (event: FeedbackEvent) => void
}

export interface HostContext {
  parseVariablesInString(text: string): Promise<string>
}

/** One feedback on a button: what Companion keeps per instance, and each value its callback gave. */
export interface FeedbackInstance {
  id: string
  feedbackId: string
  options: Record<string, unknown>
  /** Every evaluation's result, oldest first, with the time it arrived. */
  results: { value: unknown; at: number }[]
  /** The latest evaluation started; an older one resolving later is not its value. */
  evaluations: number
}

/** Everything the module did to its host, and the host's state, kept beside the instance. */
export class HostRecord {
  readonly calls: HostCall[] = []
  readonly statuses: string[] = []
  variableDefinitions: { name: string; variableId: string }[] = []
  readonly variableValues: Record<string, unknown> = {}
  actionDefinitions: Record<string, ActionDefinition> = {}
  feedbackDefinitions: Record<string, FeedbackDefinition> = {}
  presetDefinitions: unknown[] = []
  readonly feedbacks = new Map<string, FeedbackInstance>()
  private nextId = 0

  constructor(readonly instanceLabel: string) {}

  /** Calls of one method. */
  callsOf(method: string): HostCall[] {
    return this.calls.filter((c) => c.method === method)
  }

  readonly context: HostContext = {
    parseVariablesInString: (text: string) => Promise.resolve(this.parse(text)),
  }

  /** `$(label:variable)` replaced by the variable's value (Companion's syntax), other labels left alone. */
  parse(text: string): string {
    return text.replace(/\$\(([^:)]+):([^)]+)\)/g, (all, label: string, id: string) =>
      label === this.instanceLabel ? valueText(this.variableValues[id]) : all,
    )
  }

  /** Puts a feedback on a button, as Companion does: subscribe, then a first evaluation. Returns its id. */
  addFeedback(feedbackId: string, options: Record<string, unknown>): string {
    const def = this.feedbackDefinitions[feedbackId]
    if (!def) throw new Error(`no feedback definition ${feedbackId}`)
    const inst: FeedbackInstance = { id: `fb${++this.nextId}`, feedbackId, options, results: [], evaluations: 0 }
    this.feedbacks.set(inst.id, inst)
    def.subscribe?.(this.event(inst, def))
    this.evaluate(inst)
    return inst.id
  }

  /** The latest value a feedback instance's callback gave. */
  value(instanceId: string): unknown {
    return this.feedbacks.get(instanceId)?.results.at(-1)?.value
  }

  /** Presses a button's action: its definition's callback with the options (defaults filled in). */
  async runAction(actionId: string, options: Record<string, unknown>): Promise<void> {
    const def = this.actionDefinitions[actionId]
    if (!def) throw new Error(`no action definition ${actionId}`)
    const filled = Object.fromEntries(def.options.map((o) => [o.id, o.default]))
    await def.callback(
      { id: `a${++this.nextId}`, actionId, controlId: 'bank:1-1', options: { ...filled, ...options } },
      this.context,
    )
  }

  /** `checkFeedbacks(...types)`: every instance of those types (all when none) is evaluated again. */
  check(types: readonly string[]): void {
    for (const inst of this.feedbacks.values()) {
      if (types.length === 0 || types.includes(inst.feedbackId)) this.evaluate(inst)
    }
  }

  private event(inst: FeedbackInstance, def: FeedbackDefinition): FeedbackEvent {
    return { id: inst.id, type: def.type, feedbackId: inst.feedbackId, controlId: 'bank:1-1', options: inst.options }
  }

  private evaluate(inst: FeedbackInstance): void {
    const def = this.feedbackDefinitions[inst.feedbackId]
    if (!def) return
    const n = ++inst.evaluations
    void Promise.resolve()
      .then(() => def.callback(this.event(inst, def), this.context))
      .then(
        (value) => {
          if (n === inst.evaluations) inst.results.push({ value, at: Date.now() })
        },
        (err: unknown) => this.calls.push({ method: 'feedback callback threw', args: [err], at: Date.now() }),
      )
  }
}

/** A variable's value as Companion shows it in text: text and numbers as they are, anything else empty. */
function valueText(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''
}

const records = new WeakMap<object, HostRecord>()

/** The record of a module instance made from the stand-in's InstanceBase. */
export function hostOf(instance: object): HostRecord {
  const r = records.get(instance)
  if (!r) throw new Error('not an instance of the stand-in InstanceBase')
  return r
}

/** The stand-in's InstanceBase: each method records its call (and what the host would keep). */
export class InstanceBase {
  readonly label: string

  constructor(internal: unknown) {
    this.label = typeof internal === 'string' ? internal : 'captivate'
    records.set(this, new HostRecord(this.label))
  }

  private __record(method: string, args: unknown[]): HostRecord {
    const r = hostOf(this)
    r.calls.push({ method, args, at: Date.now() })
    return r
  }

  log(level: unknown, message?: unknown): void {
    this.__record('log', [level, message])
  }
  updateStatus(status: string, message?: string | null): void {
    this.__record('updateStatus', [status, message]).statuses.push(status)
  }
  setVariableDefinitions(defs: { name: string; variableId: string }[]): void {
    this.__record('setVariableDefinitions', [defs]).variableDefinitions = defs
  }
  setVariableValues(values: Record<string, unknown>): void {
    Object.assign(this.__record('setVariableValues', [values]).variableValues, values)
  }
  setActionDefinitions(actions: Record<string, ActionDefinition>): void {
    this.__record('setActionDefinitions', [actions]).actionDefinitions = actions
  }
  setFeedbackDefinitions(feedbacks: Record<string, FeedbackDefinition>): void {
    this.__record('setFeedbackDefinitions', [feedbacks]).feedbackDefinitions = feedbacks
  }
  setPresetDefinitions(presets: unknown[]): void {
    this.__record('setPresetDefinitions', [presets]).presetDefinitions = presets
  }
  checkFeedbacks(...types: string[]): void {
    this.__record('checkFeedbacks', types).check(types)
  }
  parseVariablesInString(text: string): Promise<string> {
    return Promise.resolve(this.__record('parseVariablesInString', [text]).parse(text))
  }
}

/** What `runEntrypoint` was given: the module's instance class and its upgrade scripts. */
export interface Entrypoint {
  factory: new (internal: unknown) => InstanceBase
  upgradeScripts: unknown[]
}
const entrypoints: Entrypoint[] = []

export function runEntrypoint(factory: Entrypoint['factory'], upgradeScripts: unknown[]): void {
  entrypoints.push({ factory, upgradeScripts })
}

/**
 * Companion's `splitRgb`: a colour as `{r, g, b, a}` (a from 0 to 1), from a number `0xRRGGBB` or
 * text `#rrggbb`/`#rrggbbaa`.
 */
export function splitRgb(color: number | string): { r: number; g: number; b: number; a: number } {
  if (typeof color === 'string' && /^#[0-9a-f]{6}([0-9a-f]{2})?$/i.test(color)) {
    const n = (i: number): number => parseInt(color.slice(i, i + 2), 16)
    return { r: n(1), g: n(3), b: n(5), a: color.length === 9 ? n(7) / 255 : 1 }
  }
  const dec = typeof color === 'number' ? color : Number(color) || 0
  return { r: (dec >> 16) & 0xff, g: (dec >> 8) & 0xff, b: dec & 0xff, a: 1 }
}

const standIn = { InstanceBase, InstanceStatus, runEntrypoint, splitRgb }

/** Where the vendored module lives (src/app-kit/vendor/, beside the simulator: NewBlue's code, not a test of ours). */
export const MODULE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../src/app-kit/vendor/newblue-captivate')
const STAND_IN_FILE = join(MODULE_DIR, '@companion-module-base.stand-in.js')

type ResolveFilename = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string

let loaded: Entrypoint | undefined

/**
 * Loads the vendored module once (its top level calls `runEntrypoint`) and returns what it registered.
 * The require hook is in place only while it loads.
 */
export function loadNewBlueCaptivate(): Entrypoint {
  if (loaded) return loaded
  const ours = createRequire(import.meta.url)
  const loader = Module as unknown as { _resolveFilename: ResolveFilename; _cache: Record<string, unknown> }
  const original = loader._resolveFilename
  const fromModule = (parent: { filename?: string | null } | undefined): boolean =>
    typeof parent?.filename === 'string' && parent.filename.startsWith(MODULE_DIR + sep)
  loader._resolveFilename = function (request, parent, ...rest) {
    if (request === '@companion-module/base') return STAND_IN_FILE
    if ((request === 'ws' || request === 'jimp') && fromModule(parent)) return ours.resolve(request)
    return original.call(this, request, parent, ...rest)
  }
  const stub = new Module(STAND_IN_FILE)
  stub.filename = STAND_IN_FILE
  stub.loaded = true
  stub.exports = standIn
  loader._cache[STAND_IN_FILE] = stub
  // The module prints the Jimp class at load (captivate.js 49); that is noise in a test log.
  const log = console.log
  console.log = () => undefined
  try {
    createRequire(join(MODULE_DIR, 'captivate.js'))('./captivate.js')
  } finally {
    console.log = log
    loader._resolveFilename = original
  }
  const entry = entrypoints.at(-1)
  if (!entry) throw new Error('the module did not call runEntrypoint')
  loaded = entry
  return entry
}

/** The timers the vendored module started and that are still pending. */
export interface ModuleTimers {
  readonly live: ReadonlySet<NodeJS.Timeout>
  /** How many timers the module started in all. */
  readonly started: number
  restore(): void
}

/**
 * Watches the timers the vendored module starts (a call whose stack passes through its folder), so
 * that a test can prove none is left pending after teardown: its 5-minute refresh (captivate.js 185)
 * and its reconnect watchdog (captivate.js 274) would keep a process alive. Every other timer is
 * passed through untouched.
 */
export function trackModuleTimers(): ModuleTimers {
  const live = new Set<NodeJS.Timeout>()
  let started = 0
  const g = globalThis as unknown as Record<
    'setTimeout' | 'setInterval' | 'clearTimeout' | 'clearInterval',
    (...args: unknown[]) => unknown
  >
  const original = {
    setTimeout: g.setTimeout,
    setInterval: g.setInterval,
    clearTimeout: g.clearTimeout,
    clearInterval: g.clearInterval,
  }
  const fromModule = (): boolean => (new Error().stack ?? '').includes(MODULE_DIR + sep)
  g.setTimeout = (fn: unknown, ...rest: unknown[]) => {
    if (typeof fn !== 'function' || !fromModule()) return original.setTimeout(fn, ...rest)
    const [ms, ...args] = rest
    const t = original.setTimeout(() => {
      live.delete(t)
      ;(fn as (...a: unknown[]) => void)(...args)
    }, ms) as NodeJS.Timeout
    live.add(t)
    started++
    return t
  }
  g.setInterval = (fn: unknown, ...rest: unknown[]) => {
    const t = original.setInterval(fn, ...rest) as NodeJS.Timeout
    if (fromModule()) {
      live.add(t)
      started++
    }
    return t
  }
  g.clearTimeout = (t: unknown) => {
    live.delete(t as NodeJS.Timeout)
    original.clearTimeout(t)
  }
  g.clearInterval = (t: unknown) => {
    live.delete(t as NodeJS.Timeout)
    original.clearInterval(t)
  }
  return {
    live,
    get started() {
      return started
    },
    restore() {
      Object.assign(g, original)
    },
  }
}
