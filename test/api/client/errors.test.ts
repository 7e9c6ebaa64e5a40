/**
 * Every error code of the command client, each provoked by a raw loopback server (or a closed port)
 * that misbehaves in exactly one way. Assertions are on `code`, never on message text.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { commandFailure } from '../../helpers/thrown.js'
import { CommandClient } from '../../../src/api/client.js'
import {
  AppError,
  COMMAND_ERROR_CODES,
  HttpStatusError,
  RequestIdMismatchError,
  TimeoutError,
} from '../../../src/api/errors.js'
import { clientFor, listen } from './harness.js'

type Handler = (req: IncomingMessage, res: ServerResponse, url: URL) => void

let hits = 0

/** Starts a loopback server on port 0 with `handler` and a client for it. */
async function setup(handler: Handler, timeoutMs = 2000): Promise<CommandClient> {
  const server = createServer((req, res) => {
    hits++
    handler(req, res, new URL(req.url ?? '/', 'http://x'))
  })
  return clientFor(await listen(server), { timeoutMs })
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** A handler that answers `status` with `body` as `type`; with 'stall', the body is sent but never ended. */
function answer(status: number, type: string, body: string, end: 'end' | 'stall' = 'end'): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': type })
    if (end === 'end') res.end(body)
    else res.write(body)
  }
}

/** A success envelope for the request's command and requestId, with `fields`. */
function ok(url: URL, fields: Record<string, unknown> = {}): unknown {
  const command = url.pathname.split('/').pop()
  return { result: { command, reply: command, success: true, requestId: url.searchParams.get('requestId'), ...fields } }
}

afterEach(() => {
  hits = 0
})

describe('client error codes', () => {
  it('APP_ERROR when the reply carries error, even with success: true', async () => {
    const client = await setup((_req, res, url) => json(res, ok(url, { error: 'No such title name' })))
    const err = await commandFailure(client.call('selectTitle', { title: 'Nope' }))
    expect(err.code).toBe('APP_ERROR')
    expect(err).toBeInstanceOf(AppError)
    expect(err.command).toBe('selectTitle')
    expect((err as AppError).appMessage).toBe('No such title name')
    expect((err as AppError).result.success).toBe(true)
  })

  it('APP_ERROR when success is false without an error text', async () => {
    const client = await setup((_req, res, url) => json(res, ok(url, { success: false })))
    expect((await commandFailure(client.call('closeDesigner'))).code).toBe('APP_ERROR')
  })

  it('TIMEOUT when the reply never comes (per-call override), and the command is not sent again', async () => {
    const client = await setup(() => undefined)
    const err = await commandFailure(client.call('replay_play_pause', undefined, { timeoutMs: 100 }))
    expect(err.code).toBe('TIMEOUT')
    expect(err).toBeInstanceOf(TimeoutError)
    expect((err as TimeoutError).timeoutMs).toBe(100)
    expect(hits).toBe(1)
  })

  it('a call that timed out while queued is never sent later', async () => {
    const seen: string[] = []
    const server = createServer((req) => {
      hits++ // never answers
      seen.push(new URL(req.url ?? '', 'http://x').pathname)
    })
    const client = clientFor(await listen(server), { connections: 1 })
    const first = commandFailure(client.call('replay_play_pause', undefined, { timeoutMs: 300 }))
    const queued = await commandFailure(client.call('schedule', { action: 'cutin', title: 'T' }, { timeoutMs: 50 }))
    expect(queued.code).toBe('TIMEOUT')
    expect((await first).code).toBe('TIMEOUT')
    // With the one socket free again, a later call reaches the server: the queued one, had it been kept,
    // would have gone first (and held the socket, so the later one would never arrive).
    const later = commandFailure(client.call('closeDesigner', undefined, { timeoutMs: 300 }))
    await expect.poll(() => seen, { timeout: 5000, interval: 5 }).toHaveLength(2)
    expect(seen).toEqual(['/api/command/replay_play_pause', '/api/command/closeDesigner'])
    expect((await later).code).toBe('TIMEOUT')
  })

  it("TIMEOUT uses the client's default when the call gives none", async () => {
    const client = await setup(() => undefined, 150)
    const err = await commandFailure(client.call('closeDesigner'))
    expect(err.code).toBe('TIMEOUT')
    expect((err as TimeoutError).timeoutMs).toBe(150)
  })

  it('TIMEOUT when the headers come but the body stalls', async () => {
    const client = await setup(answer(200, 'application/json', '{"result":', 'stall'))
    expect((await commandFailure(client.call('closeDesigner', undefined, { timeoutMs: 100 }))).code).toBe('TIMEOUT')
  })

  it('CONNECTION_REFUSED on a port that was opened and closed', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const client = clientFor(`http://127.0.0.1:${port}`)
    const err = await commandFailure(client.call('closeDesigner'))
    expect(err.code).toBe('CONNECTION_REFUSED')
    expect(err.cause).toBeDefined()
  })

  it('NETWORK when the socket is dropped mid-request, and the command is not sent again', async () => {
    const client = await setup((req) => req.socket.destroy())
    const err = await commandFailure(client.call('replay_play_pause'))
    expect(err.code).toBe('NETWORK')
    expect(hits).toBe(1)
  })

  it('HTTP_STATUS on a 500, with the status', async () => {
    const client = await setup(answer(500, 'text/plain', 'internal error'))
    const err = await commandFailure(client.call('closeDesigner'))
    expect(err.code).toBe('HTTP_STATUS')
    expect((err as HttpStatusError).status).toBe(500)
    expect((err as HttpStatusError).bodySnippet).toBe('internal error')
  })

  it('HTTP_STATUS on a 400 bad request', async () => {
    const client = await setup((_req, res) => json(res, { error: 'bad request' }, 400))
    const err = await commandFailure(client.call('replay_enter_playback'))
    expect(err.code).toBe('HTTP_STATUS')
    expect((err as HttpStatusError).status).toBe(400)
  })

  it('BAD_JSON when the body is not JSON', async () => {
    const client = await setup(answer(200, 'application/json', '<newblue_ext command="closeDesigner" success="1"/>'))
    expect((await commandFailure(client.call('closeDesigner'))).code).toBe('BAD_JSON')
  })

  it('BAD_ENVELOPE for bodies that are JSON but not the envelope', async () => {
    const bodies: unknown[] = [[], 'text', null, { ok: true }, { result: 'done' }, { result: [] }]
    let next = 0
    const client = await setup((_req, res) => json(res, bodies[next++]))
    for (const body of bodies) {
      const err = await commandFailure(client.call('closeDesigner'))
      expect(err.code, JSON.stringify(body)).toBe('BAD_ENVELOPE')
    }
  })

  it('BAD_ENVELOPE when the reply names another command', async () => {
    const client = await setup((_req, res, url) =>
      json(res, {
        result: {
          command: 'getOutputDevice',
          reply: 'getOutputDevice',
          success: true,
          device: 'x',
          requestId: url.searchParams.get('requestId'),
        },
      }),
    )
    expect((await commandFailure(client.call('getVideoFormat'))).code).toBe('BAD_ENVELOPE')
  })

  it('BAD_ENVELOPE when a required field is missing or cannot be converted', async () => {
    const replies: Record<string, unknown>[] = [
      {},
      { frameRate: 'fast', replayDuration: 1, replayEnd: 1, replayScrubStart: 0, replayStart: 0, replayTime: 0 },
      { frameRate: 30, replayDuration: 1, replayEnd: 1, replayScrubStart: 0, replayStart: 0, replayTime: {} },
    ]
    let next = 0
    const client = await setup((_req, res, url) => json(res, ok(url, replies[next++])))
    for (const reply of replies) {
      expect((await commandFailure(client.call('replay_get_play_info'))).code, JSON.stringify(reply)).toBe(
        'BAD_ENVELOPE',
      )
    }
  })

  it('BAD_ENVELOPE for a wrong type inside an array or an integer field', async () => {
    const replies: Record<string, unknown>[] = [
      { count: '1', videoIns: 'Cam 1' },
      { count: '1', videoIns: [{ name: 'Cam 1' }] },
    ]
    let next = 0
    const client = await setup((_req, res, url) => json(res, ok(url, replies[next++])))
    for (const reply of replies) {
      expect((await commandFailure(client.call('getAllVideoIns'))).code, JSON.stringify(reply)).toBe('BAD_ENVELOPE')
    }
    const other = await setup((_req, res, url) => json(res, ok(url, { recentProjects: [{ filesize: 10.5 }] })))
    expect((await commandFailure(other.call('getRecentProjects'))).code).toBe('BAD_ENVELOPE')
  })

  it('REQUEST_ID_MISMATCH when the echo differs from the id sent', async () => {
    const client = await setup((_req, res, url) => json(res, ok(url, { requestId: 'someone-else' })))
    const err = await commandFailure(client.call('closeDesigner', undefined, { requestId: 'mine' }))
    expect(err.code).toBe('REQUEST_ID_MISMATCH')
    expect(err).toBeInstanceOf(RequestIdMismatchError)
    expect((err as RequestIdMismatchError).sent).toBe('mine')
    expect((err as RequestIdMismatchError).received).toBe('someone-else')
  })

  it('ABORTED when the caller aborts a call in flight', async () => {
    const controller = new AbortController()
    const client = await setup(() => controller.abort())
    const err = await commandFailure(client.call('closeDesigner', undefined, { signal: controller.signal }))
    expect(err.code).toBe('ABORTED')
    expect(hits).toBe(1)
  })

  it('ABORTED without sending when the signal has already fired', async () => {
    const client = await setup((_req, res, url) => json(res, ok(url)))
    const err = await commandFailure(client.call('closeDesigner', undefined, { signal: AbortSignal.abort() }))
    expect(err.code).toBe('ABORTED')
    expect(hits).toBe(0)
  })

  it('ABORTED for calls in flight when the client closes, and for calls after close', async () => {
    const holder: { client?: CommandClient } = {}
    const client = await setup(() => void holder.client!.close())
    holder.client = client
    expect((await commandFailure(client.call('closeDesigner'))).code).toBe('ABORTED')
    expect((await commandFailure(client.call('closeDesigner'))).code).toBe('ABORTED')
    expect(hits).toBe(1)
  })

  it('BAD_PARAMS before sending anything', async () => {
    const client = await setup((_req, res, url) => json(res, ok(url)))
    expect((await commandFailure(client.callByName('replay_set_scrub_position', {}))).code).toBe('BAD_PARAMS')
    expect(hits).toBe(0)
  })

  it('never puts a stream key into an error message', async () => {
    const client = await setup((req, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`proxy failed for ${req.url}`)
    })
    const err = await commandFailure(
      client.call('startStreaming', { choice: 'Custom', serverUrl: 'rtmp://a/live', streamKey: 'sk-SECRET-1' }),
    )
    expect(err.code).toBe('HTTP_STATUS')
    expect((err as HttpStatusError).bodySnippet).toContain('streamKey=***')
    expect(JSON.stringify({ m: err.message, b: (err as HttpStatusError).bodySnippet })).not.toContain('SECRET')

    const app = await setup((_req, res, url) =>
      json(res, ok(url, { error: `cannot connect with streamKey=${url.searchParams.get('streamKey')}` })),
    )
    const appErr = await commandFailure(app.call('startStreaming', { streamKey: 'sk-SECRET-2' }))
    expect(appErr.code).toBe('APP_ERROR')
    expect(appErr.message + (appErr as AppError).appMessage).not.toContain('SECRET')
  })

  it('has stable, distinct codes', () => {
    expect(new Set(COMMAND_ERROR_CODES).size).toBe(COMMAND_ERROR_CODES.length)
    expect(COMMAND_ERROR_CODES).toEqual(
      expect.arrayContaining([
        'APP_ERROR',
        'TIMEOUT',
        'CONNECTION_REFUSED',
        'NETWORK',
        'HTTP_STATUS',
        'BAD_JSON',
        'BAD_ENVELOPE',
        'REQUEST_ID_MISMATCH',
        'ABORTED',
      ]),
    )
  })
})
