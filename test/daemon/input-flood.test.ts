/**
 * A page that floods (issue 24, items 3 and 4), against a real daemon in-process (the simulator and its
 * HTTP server on port 0) and a raw page socket: 100,000 rotate frames written at once reach the engine
 * and the application with the right total, as a few summed turns, while a request on another
 * connection is answered before the flood is through; a reader of `/api/events` that keeps up keeps its
 * stream through a page's burst of 5,000 turns and sees their total.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { CommandEvent } from '../../src/daemon/api.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { until, SAFETY_MS } from '../helpers/until.js'

const CONFIG = `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  pad: { driver: web, rows: 1, columns: 2, encoders: 1 }
bindings:
  - on: pad/encoder:0
    rotate: { command: replay_set_in_point, params: { position: "{{delta}}" }, acceleration: false }
`

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

interface Rig {
  daemon: Daemon
  port: number
  /** Every command the bindings sent. */
  commands: CommandEvent[]
  /** The turns the engine was handed (the door's observers see what the engine got), summed and counted. */
  turns: { sum: number; events: number }
}

async function startDaemon(): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-flood-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, CONFIG)
  const previous = setLogSink(() => undefined)
  const commands: CommandEvent[] = []
  const daemon = await Daemon.start({
    config: file,
    drivers: [],
    watch: false,
    onCommand: (c) => commands.push(c),
    reloadTimeoutMs: SAFETY_MS,
  })
  cleanups.push(async () => {
    await daemon.stop()
    setLogSink(previous)
    await rm(dir, { recursive: true, force: true })
  })
  const turns = { sum: 0, events: 0 }
  const stop = daemon.watchEvents((e) => {
    if (e.type !== 'input' || e.input.type !== 'rotate') return
    turns.sum += e.input.delta ?? 0
    turns.events++
  })
  cleanups.push(stop)
  return { daemon, port: Number(new URL(daemon.url).port), commands, turns }
}

/** A page socket on a raw TCP connection: the upgrade by hand, then whatever bytes the test writes. */
async function pageSocket(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  cleanups.push(() => void socket.destroy())
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    let head = ''
    const onData = (d: Buffer): void => {
      head += d.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      socket.off('data', onData)
      if (!head.startsWith('HTTP/1.1 101')) reject(new Error(`no upgrade: ${head.split('\r\n')[0]}`))
      else resolve()
    }
    socket.on('data', onData)
    socket.write(
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    )
  })
  // What the server sends the page (faces, states) is read and let go.
  socket.on('data', () => undefined)
  return socket
}

/** `count` rotate frames as a browser sends them (text, masked: with a zero key, so the bytes stay as written). */
function rotateFrames(count: number, delta = 1): Buffer {
  const payload = Buffer.from(JSON.stringify({ type: 'rotate', surface: 'pad', control: 'encoder:0', delta }))
  const one = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload])
  return Buffer.concat(Array.from({ length: count }, () => one))
}

/** `GET path` on a connection of its own; resolves once the whole answer has arrived. */
function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('a page that floods the daemon', () => {
  it('100,000 rotate frames: the right total at the engine and the application, few events, others served meanwhile', async () => {
    const FRAMES = 100_000
    const rig = await startDaemon()
    await expect.poll(() => rig.daemon.status().app.state, { timeout: 10_000 }).toBe('connected')
    const page = await pageSocket(rig.port)

    // The most turns the engine got within one turn of the loop (a tick here each turn).
    let perTurn = 0
    let lastSum = 0
    let ticking = true
    const tick = (): void => {
      perTurn = Math.max(perTurn, rig.turns.sum - lastSum)
      lastSum = rig.turns.sum
      if (ticking) setImmediate(tick)
    }
    setImmediate(tick)
    cleanups.push(() => void (ticking = false))

    page.write(rotateFrames(FRAMES))
    // Asked right after the flood was written: answered while the flood is still being handled, not after it.
    const status = await get(rig.port, '/api/status')
    const handledAtStatus = rig.turns.sum
    expect(status.status).toBe(200)
    expect(JSON.parse(status.body)).toMatchObject({ app: { state: 'connected' } })
    expect(handledAtStatus).toBeLessThan(FRAMES)

    await until('the whole flood at the engine', () => rig.turns.sum === FRAMES, 60_000)
    // Summed at the door: the engine was handed a few turns, not one per frame.
    expect(rig.turns.events).toBeLessThan(FRAMES / 20)
    // Handled in slices: no turn of the loop took more than the socket's inbox holds (it pauses the socket
    // at PAUSE_AT_FRAMES, plus what ws has in hand, about 1,000 frames a chunk), whatever the machine's speed.
    expect(perTurn).toBeGreaterThan(0)
    expect(perTurn).toBeLessThanOrEqual(5000)
    // The application got the same total (one command at a time, the turns meanwhile summed).
    const sent = (): number =>
      rig.commands
        .filter((c) => c.command === 'replay_set_in_point')
        .reduce((total, c) => total + Number(c.params.position), 0)
    await until('the whole flood at the application', () => sent() === FRAMES, 30_000)
    expect(rig.commands.length).toBeLessThan(FRAMES / 20)
  })

  it('a reader of /api/events that keeps up keeps its stream through a page’s 5,000 turns and sees their total', async () => {
    const rig = await startDaemon()
    let text = ''
    let closed = false
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: rig.port, path: '/api/events', agent: false }, (res) => {
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.once('close', () => (closed = true))
        resolve()
      })
      cleanups.push(() => void req.destroy())
      req.on('error', reject)
      req.end()
    })
    await until('the snapshot', () => text.includes('event: surface'))
    const page = await pageSocket(rig.port)

    page.write(rotateFrames(5000, 3))
    const streamed = (): number =>
      text
        .split('\n\n')
        .slice(0, -1)
        .filter((b) => b.startsWith('event: input'))
        .map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)) as { type: string; delta?: number })
        .filter((e) => e.type === 'rotate')
        .reduce((total, e) => total + (e.delta ?? 0), 0)
    await until('every turn on the stream', () => streamed() === 15_000, 30_000)
    expect(rig.turns.sum).toBe(15_000)
    expect(closed).toBe(false)
    expect(text).not.toContain('event: dropped')
  })
})
