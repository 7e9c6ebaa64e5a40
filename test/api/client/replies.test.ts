/**
 * The command client's edges, pinned where mutation testing found them unwatched: reply parsing and
 * conversion limits (through the pure `parseReply`), error texts and request ids, headers, the reply
 * size cap at exactly its limit, and what a finished call leaves behind. HTTP cases use a real loopback
 * server on port 0. Cases from the former client-mutants.test.ts (mutation survivors).
 */
import { getEventListeners } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { commandFailure } from '../../helpers/thrown.js'
import { until } from '../../helpers/until.js'
import { errorCode, type CallRecord } from '../../../src/api/client.js'
import { MAX_REPLY_DEPTH, formDecode, parseReply } from '../../../src/api/codec.js'
import { CommandError, HttpStatusError, isCommandError } from '../../../src/api/errors.js'
import { clientFor, listen } from './harness.js'

interface Seen {
  url: string
  headers: IncomingHttpHeaders
}

/** A loopback server answering with `answer(url, res)`; records each request. */
async function serve(
  answer: (url: URL, res: ServerResponse) => void,
): Promise<{ base: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers })
      answer(new URL(req.url ?? '/', 'http://x'), res)
    })
  })
  return { base: await listen(server), seen, server }
}

/** A success envelope for whatever command is asked (GET or POST), without a requestId echo. */
function okBody(fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ result: { success: true, ...fields } })
}

/** What `parseReply` throws for a body, as a CommandError. */
function parseError(name: string, body: string, status = 200): CommandError {
  try {
    parseReply(name, status, body, 'rid-1')
  } catch (err) {
    if (isCommandError(err)) return err
    throw new Error(`expected a CommandError, got ${String(err)}`)
  }
  throw new Error('parseReply did not throw')
}

const reply = (name: string, result: Record<string, unknown>) =>
  parseReply(name, 200, JSON.stringify({ result }), 'rid-1').reply

/** `{x: {x: ... 1}}` with `levels` objects. */
function nested(levels: number): unknown {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = { x: v }
  return v
}

describe('parseReply: envelope', () => {
  it('refuses an unknown command with BAD_PARAMS, naming it and keeping the request id', () => {
    const err = parseError('noSuchCommand', '{}')
    expect([err.code, err.message, err.requestId]).toEqual(['BAD_PARAMS', 'noSuchCommand: unknown command', 'rid-1'])
  })

  it('keeps the first 200 characters of a non-200 body', () => {
    const err = parseError('getOutputDevice', 'x'.repeat(300), 500) as HttpStatusError
    expect([err.code, err.bodySnippet, err.requestId]).toEqual(['HTTP_STATUS', 'x'.repeat(200), 'rid-1'])
  })

  it('quotes the first 80 characters of a body that is not JSON', () => {
    const err = parseError('getOutputDevice', `<html>${'y'.repeat(200)}`)
    expect([err.code, err.message, err.requestId]).toEqual([
      'BAD_JSON',
      `getOutputDevice: body is not JSON: <html>${'y'.repeat(74)}`,
      'rid-1',
    ])
  })

  it('tells a deeply nested non-object from a plain one, and a result that is not an object', () => {
    const deep = '['.repeat(100) + ']'.repeat(100)
    expect([parseError('getOutputDevice', deep).message, parseError('getOutputDevice', '42').message]).toEqual([
      'getOutputDevice: reply nested too deep',
      'getOutputDevice: reply is not a JSON object',
    ])
    const err = parseError('getOutputDevice', '{"result": 5}')
    expect([err.code, err.message, err.requestId]).toEqual([
      'BAD_ENVELOPE',
      'getOutputDevice: result is not an object',
      'rid-1',
    ])
  })

  it('a bare object with fields is no empty reply, even for a command that may answer {}', () => {
    expect(parseError('loadProject', '{"x": 1}').message).toBe('loadProject: reply has no result object')
  })

  it('accepts a null requestId echo, and a number equal to the id sent', () => {
    expect(reply('getOutputDevice', { requestId: null, device: 'a' })).toEqual({ device: 'a' })
    expect(
      parseReply('getOutputDevice', 200, JSON.stringify({ result: { requestId: 7, device: 'a' } }), '7').reply,
    ).toEqual({
      device: 'a',
    })
  })

  it('quotes a structured or over-long requestId echo as JSON, cut to 200 characters', () => {
    expect(parseError('getOutputDevice', JSON.stringify({ result: { requestId: { a: 1 } } })).message).toBe(
      'getOutputDevice: reply carries requestId {"a":1}, sent rid-1',
    )
    const long = 'z'.repeat(300)
    expect(parseError('getOutputDevice', JSON.stringify({ result: { requestId: long } })).message).toBe(
      `getOutputDevice: reply carries requestId ${'z'.repeat(200)}, sent rid-1`,
    )
  })

  it('accepts a result without command or reply names, and names the field that differs', () => {
    expect(reply('getOutputDevice', { device: 'a' })).toEqual({ device: 'a' })
    expect(parseError('getOutputDevice', JSON.stringify({ result: { reply: 'other' } })).message).toBe(
      'getOutputDevice: result.reply is "other"',
    )
  })

  it(`accepts a result nested ${MAX_REPLY_DEPTH - 1} levels and refuses one level more`, () => {
    expect(() => reply('replay_get_settings', { settings: {}, deep: nested(MAX_REPLY_DEPTH - 2) })).not.toThrow()
    expect(
      parseError('replay_get_settings', JSON.stringify({ result: { settings: {}, deep: nested(MAX_REPLY_DEPTH - 1) } }))
        .message,
    ).toBe(`replay_get_settings: reply nested deeper than ${MAX_REPLY_DEPTH} levels`)
  })

  it('accepts a result without names for a command that has a reply alias', () => {
    expect(reply('removeTitleInput', {})).toEqual({})
  })

  it('quotes an error that is not text as JSON', () => {
    const err = parseError('getOutputDevice', JSON.stringify({ result: { error: { code: 5 } } }))
    expect([err.code, err.message]).toEqual(['APP_ERROR', 'getOutputDevice: application error: {"code":5}'])
  })

  it("takes error: null as no error, and success: 'false' as a failure", () => {
    expect(reply('getOutputDevice', { error: null, device: 'a' })).toEqual({ device: 'a' })
    const err = parseError('getOutputDevice', JSON.stringify({ result: { success: 'false', device: 'a' } }))
    expect([err.code, err.message]).toEqual(['APP_ERROR', 'getOutputDevice: application error: success is false'])
  })
})

describe('parseReply: fields', () => {
  it('leaves out an optional field that is missing or null (no key at all)', () => {
    expect(Object.keys(reply('getPlayStatus', { id: null }))).toEqual([])
    expect(Object.keys(reply('getPlayStatus', {}))).toEqual([])
  })

  it('names a missing required field and a field that is not an array', () => {
    expect(parseError('getOutputDevice', JSON.stringify({ result: {} })).message).toBe(
      'getOutputDevice: missing field device',
    )
    expect(parseError('replay_commands', JSON.stringify({ result: { commands: 'x' } })).message).toBe(
      'replay_commands: field commands is not an array',
    )
  })

  it('names the element of an array that is wrong, and the field inside it', () => {
    expect(parseError('replay_commands', JSON.stringify({ result: { commands: ['a', {}] } })).message).toBe(
      'replay_commands: field commands[1] is not a string',
    )
    expect(parseError('getRecentProjects', JSON.stringify({ result: { recentProjects: [7] } })).message).toBe(
      'getRecentProjects: field recentProjects[0] is not an object',
    )
    const err = parseError(
      'getRecentProjects',
      JSON.stringify({ result: { recentProjects: [{ filePath: 'a', filesize: 1.5 }] } }),
    )
    expect(err.message).toMatch(/^getRecentProjects: field recentProjects\[0\]\.\w+ is not/)
  })

  it('leaves a null optional field of an object out of the object', () => {
    const item = reply('getRecentProjects', { recentProjects: [{ filesize: null, keep: 'me' }] }).recentProjects as
      Record<string, unknown>[] | undefined
    expect(item?.[0] && 'filesize' in item[0]).toBe(false)
    expect(item?.[0]?.keep).toBe('me')
  })

  it('form-decodes only the fields the catalogue marks so', () => {
    expect(reply('getOutputDevice', { device: 'a+b%20c' })).toEqual({ device: 'a+b%20c' })
    expect(reply('duplicateTitle', { id: 'x', title: 'a+b%20c' })).toEqual({ id: 'x', title: 'a b c' })
  })

  it('turns a number or a boolean into text where the contract says string, and nothing else', () => {
    expect(reply('getOutputDevice', { device: true })).toEqual({ device: 'true' })
    expect(reply('getOutputDevice', { device: 5 })).toEqual({ device: '5' })
    expect(parseError('getOutputDevice', JSON.stringify({ result: { device: [] } })).message).toBe(
      'getOutputDevice: field device is not a string',
    )
  })

  it('refuses blank text, booleans and non-numbers for a number, quoting the value', () => {
    for (const speed of ['', '   ', true, 'abc']) {
      expect(parseError('replay_get_replay_speed', JSON.stringify({ result: { speed } })).message).toBe(
        `replay_get_replay_speed: field speed is not a number: ${JSON.stringify(speed)}`,
      )
    }
  })

  it('refuses a fraction for an integer, quoting it', () => {
    expect(
      parseError('getRecentProjects', JSON.stringify({ result: { recentProjects: [{ filesize: 1.5 }] } })).message,
    ).toBe('getRecentProjects: field recentProjects[0].filesize is not an integer: 1.5')
  })

  it('reads booleans from 1, 0 and words in any case and padding; refuses anything else', () => {
    const isTrial = (v: unknown): unknown => reply('replay_is_trial_mode', { isTrial: v }).isTrial
    expect([1, 0, 'true', ' TRUE ', 'False', '1', '0'].map(isTrial)).toEqual([
      true,
      false,
      true,
      true,
      false,
      true,
      false,
    ])
    for (const v of ['maybe', 2, {}]) {
      const err = parseError('replay_is_trial_mode', JSON.stringify({ result: { isTrial: v } }))
      expect([err.code, err.message]).toEqual([
        'BAD_ENVELOPE',
        `replay_is_trial_mode: field isTrial is not a boolean: ${JSON.stringify(v)}`,
      ])
    }
  })

  it('formDecode keeps text that is not valid percent-encoded UTF-8', () => {
    expect(formDecode('a+%ff')).toBe('a %ff')
  })
})

describe('CommandClient over HTTP', () => {
  it('asks for JSON on GET and declares JSON on POST', async () => {
    const { base, seen } = await serve((_url, res) => res.end(okBody({ device: 'a' })))
    const client = clientFor(base)
    await client.call('getOutputDevice')
    await client.call('getOutputDevice', {}, { transport: 'post' })
    expect(seen.map((s) => [s.headers.accept, s.headers['content-type']])).toEqual([
      ['application/json', undefined],
      ['application/json', 'application/json'],
    ])
  })

  it('drops every trailing slash of the base path', async () => {
    const { base, seen } = await serve((_url, res) => res.end(okBody({ device: 'a' })))
    await clientFor(`${base}/app//`).call('getOutputDevice')
    expect(seen[0]!.url).toMatch(/^\/app\/api\/command\/getOutputDevice\?/)
  })

  it('numbers its request ids pb-<6 hex>-1, -2, ... and reports a latency that is small and not negative', async () => {
    const { base, seen } = await serve((_url, res) => res.end(okBody({ device: 'a' })))
    const records: CallRecord[] = []
    const client = clientFor(base, { onCall: (r) => records.push(r) })
    const first = await client.request('getOutputDevice')
    await client.call('getOutputDevice')
    await commandFailure(client.callByName('noSuchCommand'))
    const ids = seen.map((s) => new URL(s.url, 'http://x').searchParams.get('requestId'))
    expect(ids[0]).toMatch(/^pb-[0-9a-f]{6}-1$/)
    expect(ids[1]).toBe(ids[0]!.replace(/1$/, '2'))
    expect(first.latencyMs).toBeGreaterThanOrEqual(0)
    expect(first.latencyMs).toBeLessThan(60_000)
    for (const r of records) expect(r.latencyMs).toBeLessThan(60_000)
    expect(records.map((r) => r.ok)).toEqual([true, true, false])
  })

  it('gives every refusal its message and request id', async () => {
    const { base } = await serve((_url, res) => res.end(okBody()))
    const client = clientFor(base)
    const unknown = await commandFailure(client.callByName('noSuchCommand'))
    expect([unknown.message, unknown.requestId]).toEqual(['noSuchCommand: unknown command', expect.any(String)])
    const bad = await commandFailure(client.callByName('getOutputDevice', { nope: 1 }))
    expect([bad.code, bad.requestId]).toEqual(['BAD_PARAMS', expect.any(String)])
    const early = new AbortController()
    early.abort()
    const aborted = await commandFailure(client.call('getOutputDevice', {}, { signal: early.signal, requestId: 'r-1' }))
    expect([aborted.message, aborted.requestId]).toEqual(['getOutputDevice: aborted before sending', 'r-1'])
  })

  it('a call after close() is refused before any socket is touched; close() twice is fine', async () => {
    const { base, seen } = await serve((_url, res) => res.end(okBody()))
    const client = clientFor(base)
    await client.close()
    await client.close()
    const err = await commandFailure(client.call('getOutputDevice', {}, { requestId: 'r-2' }))
    expect([err.code, err.message, err.requestId, err.cause]).toEqual([
      'ABORTED',
      'getOutputDevice: client closed',
      'r-2',
      undefined,
    ])
    expect(seen).toEqual([])
  })

  it('names an abort in flight, a time-out and a close in flight, each with its request id', async () => {
    const { base, seen } = await serve(() => undefined) // never answers
    const client = clientFor(base)
    const ctl = new AbortController()
    const aborting = commandFailure(client.call('getOutputDevice', {}, { signal: ctl.signal, requestId: 'a' }))
    const closing = commandFailure(client.call('getOutputDevice', {}, { requestId: 'c' }))
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(2)
    ctl.abort()
    const aborted = await aborting
    expect([aborted.message, aborted.requestId]).toEqual(['getOutputDevice: aborted by caller', 'a'])
    const timedOut = await commandFailure(client.call('getOutputDevice', {}, { timeoutMs: 50, requestId: 't' }))
    expect([timedOut.code, timedOut.requestId]).toEqual(['TIMEOUT', 't'])
    await client.close()
    const closed = await closing
    expect([closed.code, closed.message, closed.requestId]).toEqual(['ABORTED', 'getOutputDevice: client closed', 'c'])
  })

  it('leaves no abort listener on the caller signal once a call is done', async () => {
    const { base } = await serve((_url, res) => res.end(okBody({ device: 'a' })))
    const client = clientFor(base)
    const ctl = new AbortController()
    await client.call('getOutputDevice', {}, { signal: ctl.signal })
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0)
  })

  it('accepts a reply of exactly maxReplyBytes, announced or chunked; one byte more is refused with the id', async () => {
    const body = okBody({ device: 'a' })
    const size = Buffer.byteLength(body)
    const { base } = await serve((url, res) => {
      const text = url.searchParams.get('requestId')!.endsWith('big') ? okBody({ device: 'ab' }) : body
      if (url.pathname.endsWith('getOutputDevice')) res.writeHead(200, { 'content-length': Buffer.byteLength(text) })
      res.end(text)
    })
    const client = clientFor(base, { maxReplyBytes: size })
    expect(await client.call('getOutputDevice')).toEqual({ device: 'a' })
    const announced = await commandFailure(client.call('getOutputDevice', {}, { requestId: 'x-big' }))
    expect([announced.code, announced.requestId]).toEqual(['REPLY_TOO_LARGE', 'x-big'])
  })

  it('counts a chunked body against the cap: exactly the cap passes, one byte more is refused with the id', async () => {
    const body = okBody({ device: 'a' })
    const size = Buffer.byteLength(body)
    const { base } = await serve((url, res) => {
      const text = url.searchParams.get('requestId')!.endsWith('big') ? okBody({ device: 'ab' }) : body
      res.write(text.slice(0, 5))
      res.end(text.slice(5))
    })
    const client = clientFor(base, { maxReplyBytes: size })
    expect(await client.call('getOutputDevice')).toEqual({ device: 'a' })
    const streamed = await commandFailure(client.call('getOutputDevice', {}, { requestId: 'y-big' }))
    expect([streamed.code, streamed.requestId]).toEqual(['REPLY_TOO_LARGE', 'y-big'])
  })

  it('closes an idle keep-alive socket after keepAliveTimeoutMs', async () => {
    // Two clients side by side, one with a short keep-alive and one with a long one: the short one's socket
    // closes while the long one's is still open. Both wait on the same clock, so a busy machine delays both.
    const closed = { short: false, long: false }
    const serveFor = async (which: keyof typeof closed): Promise<string> => {
      const { base, server } = await serve((_url, res) => res.end(okBody({ device: 'a' })))
      // Why keepAliveTimeout 0: the server then sends no Keep-Alive hint, which undici would take over ours.
      server.keepAliveTimeout = 0
      server.on('connection', (socket) => socket.on('close', () => (closed[which] = true)))
      return base
    }
    const short = clientFor(await serveFor('short'), { keepAliveTimeoutMs: 100 })
    const long = clientFor(await serveFor('long'), { keepAliveTimeoutMs: 60_000 })
    await Promise.all([short.call('getOutputDevice'), long.call('getOutputDevice')])
    await until('the short keep-alive socket closed', () => closed.short)
    expect(closed.long).toBe(false)
  })

  it('names the system error code of a dropped connection', async () => {
    const { base } = await serve((_url, res) => res.socket?.destroy())
    const err = await commandFailure(clientFor(base).call('getOutputDevice', {}, { requestId: 'n' }))
    expect([err.code, err.requestId, err.cause]).toEqual(['NETWORK', 'n', expect.any(Error)])
    expect(err.message).toMatch(/^getOutputDevice: network error \([A-Z_]+\): \S/)
  })

  it('names a refused connection', async () => {
    const { base, server: s } = await serve(() => undefined)
    await new Promise<void>((resolve) => s.close(() => resolve()))
    const err = await commandFailure(clientFor(base).call('getOutputDevice', {}, { requestId: 'r' }))
    expect([err.code, err.message, err.requestId]).toEqual([
      'CONNECTION_REFUSED',
      'getOutputDevice: connection refused',
      'r',
    ])
  })
})

describe('errorCode: the system error code behind a wrapped socket error', () => {
  const coded = (message: string, code: string | undefined, cause?: unknown): Error =>
    Object.assign(new Error(message, cause === undefined ? undefined : { cause }), code === undefined ? {} : { code })

  it('finds ECONNREFUSED behind a wrapping error that has a code of its own', () => {
    expect(errorCode(coded('socket', 'UND_ERR_SOCKET', coded('connect', 'ECONNREFUSED')))).toBe('ECONNREFUSED')
  })

  it('otherwise gives the first code, looking past errors that have none', () => {
    expect(errorCode(coded('fetch failed', undefined, coded('reset', 'ECONNRESET', coded('x', 'EPIPE'))))).toBe(
      'ECONNRESET',
    )
    expect(errorCode(coded('plain', undefined))).toBeUndefined()
    expect(errorCode('not an error')).toBeUndefined()
  })

  it('looks at most four errors deep, so a cyclic cause chain ends', () => {
    const deep = coded(
      '1',
      undefined,
      coded('2', undefined, coded('3', undefined, coded('4', undefined, coded('5', 'ECONNREFUSED')))),
    )
    expect(errorCode(deep)).toBeUndefined()
    const fourth = coded('1', undefined, coded('2', undefined, coded('3', undefined, coded('4', 'EHOSTUNREACH'))))
    expect(errorCode(fourth)).toBe('EHOSTUNREACH')
    const cyclic = coded('a', undefined)
    ;(cyclic as { cause?: unknown }).cause = cyclic
    expect(errorCode(cyclic)).toBeUndefined()
  })
})

describe('the last client edges mutation testing found', () => {
  it('form-decodes only the fields the catalogue marks form-encoded', () => {
    // duplicateTitle's title is echoed form-encoded (notes 5.2); its id is not, and keeps its '+'.
    expect(reply('duplicateTitle', { id: 'a+b', title: 'New+Title' })).toEqual({ id: 'a+b', title: 'New Title' })
  })

  it('sends an unlisted command without parameters', async () => {
    const { base, seen } = await serve((_url, res) => res.end(okBody()))
    const result = await clientFor(base).callByName('getTally', undefined, { unlisted: true })
    expect(result.command).toBe('getTally')
    expect(seen.map((s) => new URL(s.url, 'http://x').pathname)).toEqual(['/api/command/getTally'])
  })
})
