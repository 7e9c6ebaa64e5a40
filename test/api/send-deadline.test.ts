/**
 * Issue 24, item 8: a late command after a restart. Seven presses on an application that hangs: as many
 * as the client has connections go on the wire and hang; the rest wait. A command not on the wire within
 * its send deadline (`app.send_deadline_ms`, default 500) is dropped and shown failed on its key, and
 * nothing that waited is sent after the application restarts (nor after any lost connection), even
 * within the deadline.
 *
 * The stand-in application is a raw HTTP server on 127.0.0.1 port 0: it holds every request unanswered
 * while it "hangs", then "restarts" (drops every connection) and answers from then on. The engine, the
 * command client and the keys are the real ones.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { CommandClient, CLIENT_DEFAULTS } from '../../src/api/client.js'
import { NotSentError } from '../../src/api/errors.js'
import { Engine } from '../../src/mappings/engine.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { commandFailure } from '../helpers/thrown.js'
import { until } from '../helpers/until.js'
import { CONSOLE, loadOrThrow, RecordingSurfaces } from '../mappings/helpers.js'

const PRESSES = 7

/** A stand-in application that hangs until `restart()`, then answers every command. */
class StandIn {
  /** Each request received: when (`performance.now()`) and the title it names. */
  readonly received: { title: string | null }[] = []
  private hanging = true
  private readonly sockets = new Set<Socket>()
  private readonly server = createServer((req, res) => this.handle(req, res))
  url = ''

  async start(): Promise<void> {
    this.server.on('connection', (s) => {
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  /** The application restarts: every connection it had is gone, and it answers from now on. */
  restart(): void {
    this.hanging = false
    for (const s of this.sockets) s.destroy()
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x')
    this.received.push({ title: url.searchParams.get('title') })
    if (this.hanging) return // held: never answered
    const command = url.pathname.split('/').pop()
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ result: { command, success: true, requestId: url.searchParams.get('requestId') } }))
  }
}

/** The titles of `barrier`'s calls, one for each connection of the client. */
const BARRIER_TITLES = [...Array(CLIENT_DEFAULTS.connections).keys()].map((i) => `after ${i}`)

/**
 * A call on every connection of the client, each answered: whatever the client still meant to send has gone
 * out before these, so what the application received then is all it will ever receive of the earlier calls.
 */
async function barrier(client: CommandClient): Promise<void> {
  const replies = await Promise.all(
    BARRIER_TITLES.map((title) => client.callByName('schedule', { action: 'automatic', title })),
  )
  for (const reply of replies) expect(reply).toMatchObject({ raw: { success: true } })
}

async function rig(sendDeadlineMs?: number) {
  const app = new StandIn()
  await app.start()
  onTestFinished(() => app.close())
  const client = new CommandClient({
    baseUrl: app.url,
    timeoutMs: 5000,
    ...(sendDeadlineMs !== undefined ? { sendDeadlineMs } : {}),
  })
  onTestFinished(() => client.close())
  let yaml = `${CONSOLE}bindings:\n`
  for (let i = 0; i < PRESSES; i++) {
    yaml += `  - on: console/key:${i}\n    press: { command: schedule, params: { action: automatic, title: "T${i}" } }\n`
  }
  // `CONSOLE` has 8 keys: key:0..6 each send their own title.
  const surfaces = new RecordingSurfaces()
  const engine = new Engine({ client, state: new AppState(), surfaces })
  engine.apply(await loadOrThrow(yaml))
  onTestFinished(() => engine.stop())
  const pressAll = (): number => {
    const at = performance.now()
    for (let i = 0; i < PRESSES; i++) {
      for (const type of ['down', 'up'] as const) {
        engine.handle({ type, surface: 'console', control: `key:${i}`, at: performance.now() })
      }
    }
    return at
  }
  return { app, client, surfaces, pressAll }
}

describe('a command not on the wire within its deadline is dropped', () => {
  it('seven presses on a hung application that restarts 700 ms later: the queued ones never reach it; their keys fail', async () => {
    const { app, client, surfaces, pressAll } = await rig()
    const pressedAt = pressAll()
    // As many as the client has connections are on the wire (and hang); the rest wait.
    await until('the first presses to reach the application', () => app.received.length === CLIENT_DEFAULTS.connections)
    const onWire = new Set(app.received.map((r) => r.title))
    const queued = [...Array(PRESSES).keys()].map((i) => `T${i}`).filter((t) => !onWire.has(t))
    expect(queued.length).toBe(PRESSES - CLIENT_DEFAULTS.connections)
    const keyOf = (title: string): string => `console/key:${title.slice(1)}`
    // Each queued press fails on its key at its deadline.
    await until('the queued keys to show failed', () => queued.every((t) => surfaces.of(keyOf(t))?.badge === 'failed'))
    expect(performance.now() - pressedAt).toBeGreaterThanOrEqual(CLIENT_DEFAULTS.sendDeadlineMs - 5)
    for (const t of queued) expect(surfaces.of(keyOf(t))!.detail).toBe('not sent in time')
    while (performance.now() - pressedAt < 700) await new Promise((r) => setTimeout(r, 10))
    app.restart()
    // The ones on the wire fail with the lost connection.
    await until('the hung presses to fail', () => [...onWire].every((t) => surfaces.of(keyOf(t!))?.badge === 'failed'))
    const before = app.received.map((r) => r.title)
    // Nothing that waited was sent after the restart. Proven by what came after, not by waiting: a call on
    // every connection the client has, answered; a dropped press sent late would have gone out before them.
    await barrier(client)
    expect(before.sort()).toEqual([...onWire].sort())
    expect(
      app.received
        .map((r) => r.title)
        .slice(before.length)
        .sort(),
    ).toEqual(BARRIER_TITLES)
  })

  it('a restart within the deadline drops what waited too: nothing queued outlives a lost connection', async () => {
    // A deadline far longer than the test: only the lost connection can drop the waiting calls.
    const { app, client } = await rig(5000)
    const calls = [...Array(PRESSES).keys()].map((i) =>
      commandFailure(client.callByName('schedule', { action: 'automatic', title: `T${i}` })),
    )
    await until('the first calls to reach the application', () => app.received.length === CLIENT_DEFAULTS.connections)
    app.restart()
    const failures = await Promise.all(calls)
    const dropped = failures.filter((e) => e instanceof NotSentError)
    expect(dropped.map((e) => [e.code, e.reason])).toEqual(
      Array(PRESSES - CLIENT_DEFAULTS.connections).fill(['NETWORK', 'reconnect']),
    )
    // The application, back, answers new calls on every connection; none of the dropped ones ever arrive
    // (one sent late would have gone out before them).
    await barrier(client)
    expect(app.received.map((r) => r.title)).toHaveLength(CLIENT_DEFAULTS.connections + BARRIER_TITLES.length)
    expect(
      app.received
        .map((r) => r.title)
        .slice(CLIENT_DEFAULTS.connections)
        .sort(),
    ).toEqual(BARRIER_TITLES)
  })

  it('a call the application takes at once is not cut by the deadline, however long its reply takes', async () => {
    const app = new StandIn()
    await app.start()
    onTestFinished(() => app.close())
    const client = new CommandClient({ baseUrl: app.url, timeoutMs: 5000, sendDeadlineMs: 100 })
    onTestFinished(() => client.close())
    const call = client.callByName('schedule', { action: 'automatic', title: 'slow' })
    await until('the call to arrive', () => app.received.length === 1)
    await new Promise((r) => setTimeout(r, 300)) // past the deadline, on the wire
    app.restart() // its connection is lost: it fails as a network error, not as "not sent"
    const err = await commandFailure(call)
    expect(err.code).toBe('NETWORK')
    expect(err).not.toBeInstanceOf(NotSentError)
  })
})

describe('app.send_deadline_ms', () => {
  it('the loader takes a deadline within its bounds and refuses one outside, naming the key', async () => {
    const base = 'version: 1\nsurfaces: { console: { driver: web, rows: 1, columns: 1 } }\n'
    const good = await loadConfigText(`${base}app: { send_deadline_ms: 800 }\n`, 'ok.yaml')
    expect(good.config?.app.send_deadline_ms).toBe(800)
    expect((await loadConfigText(base, 'default.yaml')).config?.app.send_deadline_ms).toBeUndefined()
    for (const bad of ['10', '20000', '1.5', '"500"']) {
      const r = await loadConfigText(`${base}app: { send_deadline_ms: ${bad} }\n`, 'bad.yaml')
      expect(r.config, bad).toBeUndefined()
      expect(r.problems.map(formatProblem).join('\n'), bad).toMatch(/send_deadline_ms/)
    }
  })
})
