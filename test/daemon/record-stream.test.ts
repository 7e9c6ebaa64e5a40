/**
 * Issue 28, item 4: `GET /api/record` streams the recording's JSON lines while the daemon records, for
 * a second machine to keep, behind the token; 409 when the daemon is not recording, 404 for a daemon
 * that cannot. A reader that does not read is dropped with a last line saying why, and neither the
 * recording nor the other readers wait for it. Real servers on 127.0.0.1, port 0.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { request, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { RecordFollower, RecordFollowing } from '../../src/daemon/api.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { Recorder, type RecordFs } from '../../src/daemon/recorder.js'
import { RECORD_STREAM_KINDS } from '../../src/daemon/record-stream.js'
import { startDaemonServer, type DaemonServer, type DaemonServerLimits } from '../../src/daemon/server.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { loggerInto } from '../helpers/logs.js'
import { pagedConsoleHead } from '../helpers/paged-console.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { call, FakeDaemon, fileLogs, TOKEN } from './helpers.js'

const records = fileLogs()
const AUTH = { authorization: `Bearer ${TOKEN}` }

const CONFIG = `${pagedConsoleHead({
  listen: `{ host: 127.0.0.1, port: 0, token: "${TOKEN}" }`,
  console: '{ driver: web, rows: 1, columns: 4, jog: true }',
})}  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: console/key:2
    press: { page: next }
  - on: console/jog
    jog: { scrub: { step_frames: 1 } }
`

interface Stream {
  res: IncomingMessage
  text(): string
  /** The whole lines so far, parsed. */
  lines(): Record<string, unknown>[]
  /** How many whole lines came so far. */
  count(): number
  ended: Promise<void>
}

/** Opens `/api/record` on its own connection; `paused`: reads nothing until `res.resume()`. */
function open(base: string, paused = false): Promise<Stream> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: '/api/record', headers: AUTH, agent: false }, (res) => {
      if (paused) res.pause()
      let text = ''
      let count = 0
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
        for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) count++
      })
      const ended = new Promise<void>((r) => res.once('close', () => r()))
      onTestFinished(() => void req.destroy())
      const lines = (): Record<string, unknown>[] =>
        text
          .split('\n')
          .slice(0, -1)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      resolve({ res, text: () => text, lines, count: () => count, ended })
    })
    req.on('error', reject)
    req.end()
  })
}

async function daemonIn(dir: string, record: boolean | string): Promise<Daemon> {
  const config = join(dir, 'show.yaml')
  await writeFile(config, CONFIG)
  const file = typeof record === 'string' ? record : join(dir, 'show.jsonl')
  const daemon = await Daemon.start({
    reloadTimeoutMs: SAFETY_MS,
    config,
    drivers: [],
    watch: false,
    ...(record !== false ? { record: { file } } : {}),
  })
  onTestFinished(() => daemon.stop())
  await until('the application link', () => daemon.status().app.state === 'connected')
  return daemon
}

describe('GET /api/record', () => {
  it('streams the lines the recording writes, from a start line of its own, to a last line at the stop', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-record-stream-'))
    const daemon = await daemonIn(dir, true)
    const base = daemon.url

    const reader = await open(base)
    expect(reader.res.statusCode).toBe(200)
    expect(reader.res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8')
    await until('the start line', () => reader.lines().length === 1)
    expect(reader.lines()[0]).toMatchObject({
      kind: 'start',
      format: 'panelbridge-record',
      continued: true,
      pages: { console: 'main' },
    })

    expect(daemon.inject('console', 'key:2', 'press')).toBeUndefined()
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    for (let i = 0; i < 30; i++) expect(daemon.inject('console', 'jog', 'rotate', 1)).toBeUndefined()
    await until('the cut-in sent', () => reader.lines().some((l) => l.kind === 'command' && l.command === 'schedule'))
    // A reader joining after the page turn starts from the page as it is now.
    const later = await open(base)
    await until('its start line', () => later.count() >= 1)
    expect(later.lines()[0]).toMatchObject({ kind: 'start', pages: { console: 'replay' } })

    await daemon.stop()
    await Promise.all([reader.ended, later.ended])
    const lines = reader.text().split('\n').slice(0, -1)
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      kind: RECORD_STREAM_KINDS.end,
      reason: 'stopped',
      message: 'this server is closing (the daemon stops, or listen: changed); reconnect to follow again',
    })
    // The same text as the file's, line for line, from the moment the reader joined.
    const body = lines.slice(1, -1)
    const file = (await readFile(join(dir, 'show.jsonl'), 'utf8')).split('\n').slice(0, -1)
    expect(body.length).toBeGreaterThan(5)
    expect(file.slice(-body.length)).toEqual(body)
    const kinds = body.map((l) => (JSON.parse(l) as { kind: string }).kind)
    expect(kinds).toEqual(expect.arrayContaining(['input', 'page', 'command']))
  })

  it('answers 409 with why while the daemon is not recording, and 404 where the daemon cannot record', async () => {
    const daemon = await daemonIn(await mkdtemp(join(tmpdir(), 'pb-record-stream-')), false)
    const r = await call(daemon.url, 'GET', '/api/record', AUTH)
    expect(r.status).toBe(409)
    expect(r.json).toEqual({
      error: {
        code: 'NOT_RECORDING',
        message: 'this daemon is not recording; start it with run --record FILE, or record: in the config',
      },
    })
    // A recording asked for that could not be opened: the refusal says why.
    const dir = await mkdtemp(join(tmpdir(), 'pb-record-stream-'))
    const failed = await daemonIn(dir, join(dir, 'missing', 'show.jsonl'))
    const why = await call(failed.url, 'GET', '/api/record', AUTH)
    expect(why.status).toBe(409)
    expect(why.json).toEqual({
      error: {
        code: 'NOT_RECORDING',
        message: `not recording: cannot open ${join(dir, 'missing', 'show.jsonl')}: its folder does not exist (ENOENT)`,
      },
    })
    const server = await startDaemonServer({ api: new FakeDaemon(), port: 0 })
    onTestFinished(() => server.close())
    const none = await call(server.url, 'GET', '/api/record')
    expect(none.status).toBe(404)
    expect(JSON.stringify(none.json)).toContain('this daemon offers no record stream')
  })

  it('drops a reader that does not read, with a last line saying why; the recording and a reader that reads lose nothing', async () => {
    const written: string[] = []
    const fs: RecordFs = {
      open: () =>
        Promise.resolve({
          identity: 'only',
          size: () => Promise.resolve(0),
          endsLine: () => Promise.resolve(true),
          write: (data: Buffer) => (written.push(data.toString()), Promise.resolve(data.length)),
          truncate: () => Promise.resolve(),
          close: () => Promise.resolve(),
        }),
      rename: () => Promise.resolve(),
      identity: () => Promise.resolve('only'),
    }
    const recorder = await Recorder.open({ file: 'show.jsonl', config: 'show.yaml', log: loggerInto('rec').logger, fs })
    onTestFinished(() => recorder.stop())
    const api = Object.assign(new FakeDaemon(), {
      watchRecord: (f: RecordFollower): RecordFollowing | undefined => recorder.follow(f),
    })
    const limit = 64 * 1024
    const limits: Partial<DaemonServerLimits> = { maxEventStreamBufferBytes: limit }
    // Bound beyond loopback, so that the token is asked for (on loopback no route asks).
    const server: DaemonServer = await startDaemonServer({ api, host: '0.0.0.0', token: TOKEN, port: 0, limits })
    onTestFinished(() => server.close())
    const base = `http://127.0.0.1:${server.port}`
    expect((await call(base, 'GET', '/api/record')).status).toBe(401)
    const stalled = await open(base, true)
    const reading = await open(base)
    await until('the start line', () => reading.count() === 1)

    // Lines that cannot be summed, as fast as the input path makes them, until the stalled reader is
    // dropped (the sockets' own buffers take megabytes first): presses, and commands with long parameters.
    const press = (i: number): SurfaceEvent => ({
      surface: 'console',
      control: 'key:0',
      type: i % 2 ? 'up' : 'down',
      at: 0,
    })
    const long = { title: 'x'.repeat(3000) }
    const dropped = (): boolean => records.some((r) => r.message === 'dropped a record stream whose reader fell behind')
    let n = 0
    while (!dropped() && n < 200_000) {
      for (let i = 0; i < 100; i++) {
        recorder.input(press(n++), 'api')
        recorder.command({
          command: 'schedule',
          params: long,
          origin: 'console/key:0',
          outcome: 'ok',
          durationMs: 1,
        })
        n++
      }
      await new Promise((r) => setImmediate(r))
    }
    expect(dropped()).toBe(true)
    // Lines made after the drop reach the reader that reads, never the dropped one (before the drop, the
    // sockets may have taken every line: from Node 22 a socket buffers 64 KiB before it says it is full).
    for (let i = 0; i < 10; i++) recorder.input(press(n++), 'api')
    await until('the reader that reads has every line', () => reading.count() === 1 + n, 30_000)
    expect(reading.res.destroyed).toBe(false)

    stalled.res.resume()
    await stalled.ended
    const last = JSON.parse(stalled.text().split('\n').at(-2)!) as Record<string, unknown>
    expect(last).toMatchObject({ kind: RECORD_STREAM_KINDS.dropped, reason: 'behind', limitBytes: limit })
    expect(last.unreadBytes as number).toBeGreaterThan(limit)
    expect(String(last.message)).toContain('fell behind')
    expect(stalled.count()).toBeLessThan(n)

    // The file lost nothing: every line is there.
    await recorder.flush()
    expect(recorder.droppedLines).toBe(0)
    expect(written.join('').split('\n').length - 1).toBe(1 + n)

    // The recording stops: a reader's last line says so.
    await recorder.stop()
    await reading.ended
    expect(JSON.parse(reading.text().split('\n').at(-2)!)).toEqual({
      kind: RECORD_STREAM_KINDS.end,
      reason: 'stopped',
      message: 'the recording stopped',
    })
  })
})
