/**
 * The editor's requests to the daemon's remote API (`/api/config`, `…/binding`, `/api/config/undo`,
 * `/api/config/choices`): same origin, so the token cookie a `?token=` link set rides along, and the
 * answers are read as untrusted JSON (their shapes are checked where they are used). A request that
 * gets no answer resolves with status 0 and why.
 */

/** An answer: its HTTP status and its JSON body (an object, or undefined when it had none). */
export interface Answer {
  status: number
  body: Record<string, unknown> | undefined
}

/** The address of a control's binding (`?page=P` for a page's own). */
export function bindingPath(surface: string, control: string, page?: string | null): string {
  const base = `/api/surfaces/${encodeURIComponent(surface)}/controls/${encodeURIComponent(control)}/binding`
  return page !== undefined && page !== null ? `${base}?page=${encodeURIComponent(page)}` : base
}

/** One request; a JSON body is sent as JSON. */
export async function request(method: string, path: string, body?: unknown): Promise<Answer> {
  try {
    const res = await fetch(path, {
      method,
      cache: 'no-store',
      credentials: 'same-origin',
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    })
    let parsed: unknown
    try {
      parsed = await res.json()
    } catch {
      parsed = undefined
    }
    return { status: res.status, body: isRecord(parsed) ? parsed : undefined }
  } catch (err) {
    return { status: 0, body: { message: `no answer from panelbridge: ${(err as Error).message}` } }
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A string field of an answer, or undefined. */
export function text(body: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = body?.[key]
  return typeof v === 'string' ? v : undefined
}

/** A refusal's `error` (`{ code, message, hash?, problems?, reason? }`), or the body itself. */
export function errorOf(a: Answer): Record<string, unknown> | undefined {
  return isRecord(a.body?.error) ? a.body.error : a.body
}

/** What a refusal says: its message (and reason when it says more), else its status. */
export function refusalText(a: Answer): string {
  const error = errorOf(a)
  const message = text(error, 'message')
  const reason = text(error, 'reason')
  const words = [message, reason !== message ? reason : undefined].filter((w) => w !== undefined).join(': ')
  return words !== '' ? words : `HTTP ${a.status}`
}

/** The code of a refusal (`CONFIG_CHANGED`), or undefined. */
export function refusalCode(a: Answer): string | undefined {
  return text(errorOf(a), 'code')
}
