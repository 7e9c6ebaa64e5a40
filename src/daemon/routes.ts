/**
 * What the daemon server answers, once a request has passed the checks (`auth.ts`). `{control}` is
 * percent-decoded, so `key:3` and `key%3A3` both work.
 *
 * - `GET /api/status` → `DaemonApi.status()`
 * - `GET /api/errors` → `{ "errors": DaemonApi.recentErrors() }` (the page's status strip)
 * - `GET /api/surfaces/{surface}/controls/{control}` → `DaemonApi.controlState()`
 * - `POST /api/surfaces/{surface}/controls/{control}/{press|down|up|rotate|value}` (`rotate?delta=N`,
 *   `value?value=X`, `down?lease_ms=N`) → `DaemonApi.inject()` → `200 {"ok":true}`; on a surface waiting
 *   for its device that takes rehearsal presses, `200 {"ok":true,"rehearsal":true,"waitingFor":"Stream Deck XL"}`
 *   (without `rehearse`, 409 `SURFACE_NOT_OPEN` saying it is waiting)
 * - the mapping file's editor (issue 42; `config-edit.ts`, JSON bodies of at most MAX_EDIT_BODY_BYTES):
 *   `GET /api/config` → `DaemonApi.edit.info()`; `GET /api/config/choices` → `edit.choices()` (the
 *   editor form's commands and names, read-only); `GET|PUT|DELETE /api/surfaces/{surface}/controls/{control}/binding`
 *   (`?page=P`; PUT `{ "hash", "binding" }`, DELETE `?hash=`); `POST /api/config/undo` `{ "hash" }`
 * - find-by-pressing: `POST /api/find` `{ "surfaces"?: [...] }` arms, `DELETE /api/find` disarms
 * - `GET /metrics` → Prometheus text
 * - the web page: `/` redirects to its base path when that is not the root; its own paths; else 404.
 *
 * (`GET /api/events` is the event stream's, `event-stream.ts`.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { ControlIdError, isSurfaceName, parseControlId, type ParsedControlId } from '../face/control-id.js'
import { MAX_ROTATE_DELTA } from '../face/protocol.js'
import type { BindingAddress, ConfigEditApi, DaemonApi, EditRefusal, InjectKind, InjectRefusal } from './api.js'
import { API_LEASE } from './input.js'
import { allow, allowMethod, COMMON_HEADERS, HttpError } from './http.js'

/**
 * Largest request body of the editor's routes, bytes (the bound; 413 beyond). A binding is a few
 * hundred bytes; 64 KiB holds the largest a person writes (a long sequence) many times over.
 */
export const MAX_EDIT_BODY_BYTES = 64 * 1024

/** Whether a request carries a JSON body this server reads (the editor's writes and find). */
export function takesBody(method: string, path: string): boolean {
  if (method === 'PUT') return /^\/api\/surfaces\/[^/]+\/controls\/[^/]+\/binding$/.test(path)
  return method === 'POST' && (path === '/api/config/undo' || path === '/api/find')
}

/** Largest `|delta|` of `rotate?delta=N` (the web page's own bound). */
const MAX_INJECT_ROTATE_DELTA = MAX_ROTATE_DELTA

/** The web page server as mounted here (`WebSurfaceServer` is one). */
export interface MountedWebServer {
  /** Returns false when the request is not the web server's (this server answers 404). */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean
  /** Returns false when the upgrade is not the web server's. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean
  /** Its path prefix (`''` at the root); `/` redirects there when it is not the root. */
  readonly basePath: string
}

/** What `/metrics` serves (`PrometheusMetrics` is one). */
export interface MetricsSource {
  text(): Promise<string>
  readonly contentType: string
}

const INJECT_KINDS: readonly InjectKind[] = ['press', 'down', 'up', 'rotate', 'value']
/** A decimal number as a person writes it (no hex, no blanks, no `Infinity`). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/
const INTEGER = /^[+-]?\d+$/
/** `value` ranges by control kind (the table in `src/surfaces/types.ts`): the shuttle is centred. */
const CENTRED_KINDS: ReadonlySet<string> = new Set(['shuttle'])

export interface RoutesOptions {
  api: DaemonApi
  /** Without it, `/metrics` is 404. */
  metrics?: MetricsSource
  /** Without it, only the API and metrics are served. */
  web?: MountedWebServer
}

export class Routes {
  constructor(private readonly o: RoutesOptions) {}

  /**
   * `/api/...` (but the event stream): the JSON body of a 200, or throws the refusal; the editor's routes
   * give a promise of it. `body` is the request's JSON, read by the server for the routes that take one
   * (`takesBody`).
   */
  api(method: string, path: string, query: URLSearchParams, body?: unknown): unknown {
    const segments = path.split('/').slice(2) // '' and 'api'
    if (segments.length === 1 && (segments[0] === 'status' || segments[0] === 'errors')) {
      allowMethod(method, ['GET', 'HEAD'])
      return segments[0] === 'status' ? this.o.api.status() : { errors: this.o.api.recentErrors() }
    }
    if (segments[0] === 'config' && segments.length <= 2) return this.config(method, segments[1], body)
    if (segments[0] === 'find' && segments.length === 1) return this.find(method, body)
    if (
      segments.length === 5 &&
      segments[0] === 'surfaces' &&
      segments[2] === 'controls' &&
      segments[4] === 'binding'
    ) {
      return this.binding(method, segments, query, body)
    }
    if (segments.length >= 4 && segments.length <= 5 && segments[0] === 'surfaces' && segments[2] === 'controls') {
      return this.control(method, segments, query)
    }
    throw new HttpError(404, 'NOT_FOUND', 'no such API route')
  }

  /** `/metrics`. */
  async metrics(req: IncomingMessage, res: ServerResponse, head: boolean): Promise<void> {
    allow(req, ['GET', 'HEAD'])
    const metrics = this.o.metrics
    if (!metrics) throw new HttpError(404, 'NOT_FOUND', 'metrics are not enabled')
    const text = await metrics.text()
    res.writeHead(200, {
      ...COMMON_HEADERS,
      'content-type': metrics.contentType,
      'content-length': Buffer.byteLength(text),
    })
    res.end(head ? undefined : text)
  }

  /** Everything else: the web page, or 404. */
  page(req: IncomingMessage, res: ServerResponse, path: string): void {
    const web = this.o.web
    if (web && path === '/' && web.basePath !== '') {
      res.writeHead(302, { ...COMMON_HEADERS, location: `${web.basePath}/` }).end()
      return
    }
    if (web?.handleRequest(req, res)) return
    throw new HttpError(404, 'NOT_FOUND', 'no such page')
  }

  /** The editor, or 404 on a daemon without one. */
  private editor(): ConfigEditApi {
    const edit = this.o.api.edit
    if (!edit) throw new HttpError(404, 'NOT_FOUND', 'this daemon has no editor')
    return edit
  }

  /** `GET /api/config`, `GET /api/config/choices`, `POST /api/config/undo`. */
  private async config(method: string, action: string | undefined, body: unknown): Promise<unknown> {
    if (action === undefined) {
      allowMethod(method, ['GET', 'HEAD'])
      return this.editor().info()
    }
    if (action === 'choices') {
      allowMethod(method, ['GET', 'HEAD'])
      return this.editor().choices()
    }
    if (action !== 'undo') throw new HttpError(404, 'NOT_FOUND', 'no such API route')
    allowMethod(method, ['POST'])
    return answer(await this.editor().undo(hashOf(body)))
  }

  /** `GET|PUT|DELETE /api/surfaces/{surface}/controls/{control}/binding`. */
  private async binding(method: string, segments: string[], query: URLSearchParams, body: unknown): Promise<unknown> {
    allowMethod(method, ['GET', 'HEAD', 'PUT', 'DELETE'])
    const edit = this.editor()
    const surface = decodeSegment(segments[1]!)
    const control = decodeSegment(segments[3]!)
    if (!isSurfaceName(surface))
      throw new HttpError(404, 'UNKNOWN_SURFACE', `no surface named ${JSON.stringify(surface)}`)
    parseControl(control)
    const page = query.get('page')
    const at: BindingAddress = { surface, control, ...(page !== null && page !== '' ? { page } : {}) }
    if (method === 'GET' || method === 'HEAD') return answer(await edit.read(at))
    if (method === 'DELETE') {
      const hash = query.get('hash')
      if (hash === null || hash === '')
        throw new HttpError(400, 'BAD_VALUE', 'DELETE needs ?hash=, the hash the file was read with')
      return answer(await edit.remove(at, hash))
    }
    const binding = isRecord(body) ? body.binding : undefined
    if (!isRecord(binding))
      throw new HttpError(400, 'BAD_VALUE', 'the body needs "binding", the binding as a JSON object')
    return answer(await edit.put(at, hashOf(body), binding))
  }

  /** `POST /api/find` arms find-by-pressing, `DELETE /api/find` disarms. */
  private find(method: string, body: unknown): unknown {
    allowMethod(method, ['POST', 'DELETE'])
    const find = this.o.api.findByPressing
    if (!find) throw new HttpError(404, 'NOT_FOUND', 'this daemon has no find-by-pressing')
    if (method === 'DELETE') {
      find.disarm()
      return { ok: true }
    }
    let surfaces: string[] | undefined
    if (isRecord(body) && body.surfaces !== undefined) {
      if (!Array.isArray(body.surfaces) || !body.surfaces.every((s) => typeof s === 'string'))
        throw new HttpError(400, 'BAD_VALUE', '"surfaces" is a list of surface names')
      surfaces = body.surfaces
    }
    const armed = find.arm(surfaces)
    if ('status' in armed) throw refusal(armed)
    return { ok: true, surfaces: armed.armed, timeoutMs: armed.timeoutMs }
  }

  /** `/api/surfaces/{surface}/controls/{control}[/{action}]`. */
  private control(method: string, segments: string[], query: URLSearchParams): unknown {
    const action = segments[4]
    if (action !== undefined && !(INJECT_KINDS as readonly string[]).includes(action)) {
      throw new HttpError(404, 'NOT_FOUND', `no such action ${JSON.stringify(action)}; use ${INJECT_KINDS.join(', ')}`)
    }
    allowMethod(method, action === undefined ? ['GET', 'HEAD'] : ['POST'])
    const surface = decodeSegment(segments[1]!)
    const control = decodeSegment(segments[3]!)
    // A name the config could not give a surface (the one rule, `surfaceNameProblem` of `src/face/control-id.ts`) names none.
    if (!isSurfaceName(surface)) {
      throw new HttpError(404, 'UNKNOWN_SURFACE', `no surface named ${JSON.stringify(surface)}`)
    }
    const parsed = parseControl(control)
    if (action === undefined) {
      const state = this.o.api.controlState(surface, control)
      if ('status' in state) throw refusal(state)
      return state
    }
    const kind = action as InjectKind
    const outcome = this.o.api.inject(surface, control, kind, injectArgument(kind, parsed, query))
    if (outcome && 'status' in outcome) throw refusal(outcome)
    // A surface waiting for its device took the press for rehearsal: the reply says so.
    return outcome ? { ok: true, rehearsal: true, waitingFor: outcome.waitingFor } : { ok: true }
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new HttpError(400, 'BAD_PATH', 'the path has a malformed percent-encoding')
  }
}

function parseControl(control: string): ParsedControlId {
  try {
    return parseControlId(control)
  } catch (err) {
    if (err instanceof ControlIdError) throw new HttpError(400, 'BAD_CONTROL_ID', err.message)
    throw err
  }
}

/**
 * The number an event carries: `rotate?delta=N` (a non-zero integer), `value?value=X` (in the kind's
 * range), `down?lease_ms=N` (an integer within the lease bounds; absent, the door's default).
 */
function injectArgument(kind: InjectKind, control: ParsedControlId, query: URLSearchParams): number | undefined {
  const lease = query.get('lease_ms')
  if (kind === 'down' && lease !== null) {
    const ms = INTEGER.test(lease) ? Number(lease) : NaN
    if (!Number.isSafeInteger(ms) || ms < API_LEASE.minMs || ms > API_LEASE.maxMs) {
      throw new HttpError(
        400,
        'BAD_VALUE',
        `lease_ms must be an integer from ${API_LEASE.minMs} to ${API_LEASE.maxMs} (ms the down holds without its up)`,
      )
    }
    return ms
  }
  if (lease !== null) throw new HttpError(400, 'BAD_VALUE', 'lease_ms applies to down only')
  if (kind === 'rotate') {
    const text = query.get('delta')
    const delta = text !== null && INTEGER.test(text) ? Number(text) : NaN
    if (!Number.isSafeInteger(delta) || delta === 0 || Math.abs(delta) > MAX_INJECT_ROTATE_DELTA) {
      throw new HttpError(
        400,
        'BAD_VALUE',
        `rotate needs ?delta=N, a non-zero integer from -${MAX_INJECT_ROTATE_DELTA} to ${MAX_INJECT_ROTATE_DELTA}`,
      )
    }
    return delta
  }
  if (kind === 'value') {
    const [min, max] = CENTRED_KINDS.has(control.kind) ? [-1, 1] : [0, 1]
    const text = query.get('value')
    const value = text !== null && DECIMAL.test(text) ? Number(text) : NaN
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new HttpError(400, 'BAD_VALUE', `value needs ?value=X, a number from ${min} to ${max} for ${control.kind}`)
    }
    return value + 0 // -0 → 0
  }
  return undefined
}

function refusal(r: InjectRefusal): HttpError {
  return new HttpError(r.status, r.code, r.message)
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The body's `hash`: the file's hash the edit was made on. */
function hashOf(body: unknown): string {
  const hash = isRecord(body) ? body.hash : undefined
  if (typeof hash !== 'string' || hash === '')
    throw new HttpError(400, 'BAD_VALUE', 'the body needs "hash", the hash the file was read with (GET /api/config)')
  return hash
}

/** The editor's answer: its result, or its refusal as the error reply (with `hash`, `problems` or `reason`). */
function answer<T extends object>(r: T | EditRefusal): T {
  if (!('status' in r && 'code' in r)) return r
  const details: Record<string, unknown> = {}
  if (r.hash !== undefined) details.hash = r.hash
  if (r.problems !== undefined) details.problems = r.problems
  if (r.code === 'EDIT_DISABLED' || r.code === 'NOT_EDITABLE') details.reason = r.message
  throw new HttpError(r.status, r.code, r.message, {}, details)
}
