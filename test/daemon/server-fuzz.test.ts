/**
 * The remote API under hostile paths and queries (the shared fuzz harness, real sockets): every answer
 * is one of the API's status codes with a JSON body of the documented shape, never a 500 or a dropped
 * connection, and an event reaches the daemon only on a 200, with a canonical control id and a number
 * in range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaemonServer, type DaemonServer } from '../../src/daemon/server.js'
import { setLogSink } from '../../src/log.js'
import { formatControlId, parseControlId } from '../../src/face/control-id.js'
import { checkProperty, fc, hostileText } from '../fuzz/harness.js'
import { call, sampleDaemon } from './helpers.js'

const previousSink = setLogSink(() => undefined)
const daemon = sampleDaemon()
let server: DaemonServer
beforeAll(async () => {
  server = await startDaemonServer({ api: daemon, port: 0 })
})
afterAll(async () => {
  await server.close()
  setLogSink(previousSink)
})

/** A path segment: plausible ids, near misses, and hostile text, percent-encoded or raw-but-safe. */
const segment = fc
  .oneof(
    fc.constantFrom('console', 'desk', 'key:0', 'key:3', 'key:03', 'jog', 'shuttle', 'fader:0', 'note:1:60', ''),
    fc.string({ maxLength: 20 }),
    hostileText.map((t) => t.slice(0, 300)),
  )
  .map((s) => encodeURIComponent(s))
const rawSegment = fc.constantFrom('%', '%zz', '%E0%A4%A', 'a%00b', '..', '.', '%2F')
/** Mostly real names, so that the accepted paths are reached too. */
const surfaceSegment = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('console', 'desk') }, segment, rawSegment)
const controlSegment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('key:0', 'key%3A3', 'jog', 'shuttle', 'fader:0') },
  segment,
  rawSegment,
)
const action = fc.constantFrom('', '/press', '/down', '/up', '/rotate', '/value', '/bogus')
const query = fc.oneof(
  fc.constant(''),
  fc
    .tuple(fc.constantFrom('delta', 'value', 'x'), fc.oneof(fc.string({ maxLength: 30 }), fc.double().map(String)))
    .map(([k, v]) => `?${k}=${encodeURIComponent(v)}`),
)

describe('remote API under hostile input', () => {
  it('answers every path and query with an API status and a JSON body, and injects only on 200', async () => {
    const seen = new Set<number>()
    await checkProperty(
      'daemon server routes',
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'POST', 'PUT'),
        surfaceSegment,
        controlSegment,
        action,
        query,
        async (method, surface, control, act, q) => {
          const before = daemon.injections.length
          const r = await call(server.url, method, `/api/surfaces/${surface}/controls/${control}${act}${q}`)
          seen.add(r.status)
          expect([200, 400, 404, 405, 409]).toContain(r.status)
          expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
          if (r.status !== 200) {
            expect(r.json).toEqual({
              error: { code: expect.any(String) as string, message: expect.any(String) as string },
            })
            expect(daemon.injections.length).toBe(before)
            return
          }
          if (method === 'POST') {
            expect(r.json).toEqual({ ok: true })
            expect(daemon.injections.length).toBe(before + 1)
            const injected = daemon.injections.at(-1)!
            expect(formatControlId(parseControlId(injected.control))).toBe(injected.control)
            if (injected.arg !== undefined) expect(Number.isFinite(injected.arg)).toBe(true)
            if (injected.kind === 'value') expect(Math.abs(injected.arg!)).toBeLessThanOrEqual(1)
            if (injected.kind === 'rotate') expect(Number.isInteger(injected.arg)).toBe(true)
          } else {
            expect(daemon.injections.length).toBe(before)
          }
        },
      ),
    )
    // The generators reach both sides: accepted events and every kind of refusal.
    expect([...seen].sort((a, b) => a - b)).toEqual([200, 400, 404, 405, 409])
    // And the server still injects after all of it (a random run need not have drawn an accepted POST).
    const before = daemon.injections.length
    const press = await call(server.url, 'POST', '/api/surfaces/console/controls/key:0/press')
    expect(press.status).toBe(200)
    expect(daemon.injections.length).toBe(before + 1)
  })
})
