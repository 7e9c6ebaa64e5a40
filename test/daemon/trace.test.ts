/**
 * Every command the bindings send, written down (issue 22, item 16): at debug in the log, one line each
 * for `run --trace`, and a `command` event on `GET /api/events`; and never a secret in any of them.
 */
import { get, type IncomingMessage } from 'node:http'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { CommandEvent, DaemonEvent } from '../../src/daemon/api.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { formatTraceLine, traceTo, traceWanted, TRACE } from '../../src/daemon/trace.js'
import { setLogLevel, setLogSink, type LogRecord } from '../../src/log.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { CUTIN_KEY, simulatedConfig } from '../helpers/config.js'

const SECRET = 'sk-live-TOPSECRET-4242'
const WAIT = { timeout: SAFETY_MS, interval: 10 }

describe('a trace line', () => {
  const at = new Date(2026, 10, 26, 14, 2, 11, 482)

  it('names the control, the command, its parameters, the outcome and the time taken, on one line', () => {
    const line = formatTraceLine(
      {
        command: 'schedule',
        params: { action: 'automatic', title: 'Lower Third' },
        origin: 'console/key:0',
        outcome: 'ok',
        durationMs: 3.1,
      },
      at,
    )
    expect(line).toBe(
      'trace 14:02:11.482 console/key:0 schedule {"action":"automatic","title":"Lower Third"} ok 3.1 ms',
    )
  })

  it('quotes a failure’s text, and stays one line whatever the texts hold', () => {
    const line = formatTraceLine(
      {
        command: 'replay_set_scrub_position',
        params: { position: 0.2 },
        origin: 'streaming poll',
        outcome: 'APP_ERROR',
        message: 'bad\nrequest',
        durationMs: 2.4,
      },
      at,
    )
    expect(line).toBe(
      'trace 14:02:11.482 streaming poll replay_set_scrub_position {"position":0.2} APP_ERROR "bad\\nrequest" 2.4 ms',
    )
    const odd = formatTraceLine({ command: 'x\ny', params: {}, origin: 'a\tb', outcome: 'ok', durationMs: 1 }, at)
    expect(odd).not.toMatch(/[\n\t]/)
    expect(odd).toContain('"a\\tb" "x\\ny"')
  })

  it('hides secrets even in a record that carries them raw, and is bounded', () => {
    const line = formatTraceLine(
      {
        command: 'startStreaming',
        params: { serverUrl: `rtmp://127.0.0.1/live?streamKey=${SECRET}`, streamKey: SECRET, big: 'x'.repeat(5000) },
        origin: 'console/key:6',
        outcome: 'APP_ERROR',
        message: `refused "streamKey": "${SECRET}" ${'y'.repeat(5000)}`,
        durationMs: 1,
      },
      at,
    )
    expect(line).not.toContain(SECRET)
    expect(line).toContain('"streamKey":"***"')
    expect(line.length).toBeLessThan(TRACE.maxParamsChars + TRACE.maxMessageChars + 100)
  })

  it('is on with --trace or PANELBRIDGE_TRACE=1 (true, yes), off otherwise', () => {
    expect(traceWanted(true, {})).toBe(true)
    expect(traceWanted(false, {})).toBe(false)
    expect(traceWanted(false, { PANELBRIDGE_TRACE: '1' })).toBe(true)
    expect(traceWanted(false, { PANELBRIDGE_TRACE: ' Yes ' })).toBe(true)
    expect(traceWanted(false, { PANELBRIDGE_TRACE: '0' })).toBe(false)
    expect(traceWanted(false, { PANELBRIDGE_TRACE: '' })).toBe(false)
  })
})

const CONFIG = simulatedConfig(
  `${CUTIN_KEY}  - on: console/key:1
    press:
      command: startStreaming
      params: { choice: Custom, serverUrl: "rtmp://127.0.0.1/live?streamKey=${SECRET}", streamKey: "${SECRET}" }
  - on: console/key:2
    press: { command: schedule, params: { action: cutin, title: "No Such Title" } }
`,
  4,
)

/** Reads a Server-Sent Events stream into `body` until `close()`. */
function follow(url: string): { body: () => string; close: () => void } {
  let text = ''
  let res: IncomingMessage | undefined
  const req = get(url, (r) => {
    res = r
    r.setEncoding('utf8')
    r.on('data', (chunk: string) => (text += chunk))
  })
  req.on('error', () => undefined)
  return { body: () => text, close: () => (res ? res.destroy() : req.destroy()) }
}

describe('the daemon’s commands', () => {
  it('are logged at debug, traced, and sent as `command` events, with the stream key as ***', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-trace-'))
    const file = join(dir, 'config.yaml')
    await writeFile(file, CONFIG)
    const logs: LogRecord[] = []
    const prev = setLogSink((r) => void logs.push(r))
    setLogLevel('debug')
    const records: CommandEvent[] = []
    const lines: string[] = []
    const trace = traceTo((t) => void lines.push(t))
    const daemon = await Daemon.start({
      reloadTimeoutMs: SAFETY_MS,
      config: file,
      drivers: [],
      watch: false,
      onCommand: (e) => {
        records.push(e)
        trace(e)
      },
    })
    const events: DaemonEvent[] = []
    const stopWatching = daemon.watchEvents((e) => void events.push(e))
    const stream = follow(`${daemon.url}api/events`)
    onTestFinished(async () => {
      stream.close()
      stopWatching()
      await daemon.stop()
      setLogLevel('info')
      setLogSink(prev)
      await rm(dir, { recursive: true, force: true })
    })
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    await until('the event stream to open', () => stream.body().includes('event: surface'))

    for (const key of ['key:0', 'key:1', 'key:2']) expect(daemon.inject('console', key, 'press')).toBeUndefined()
    await expect.poll(() => records.length, WAIT).toBe(3)
    await until('three command events on the wire', () => stream.body().split('event: command').length === 4)

    const byOrigin = new Map(records.map((r) => [r.origin, r]))
    expect(byOrigin.get('console/key:0')).toMatchObject({ command: 'schedule', outcome: 'ok' })
    expect(byOrigin.get('console/key:1')).toMatchObject({
      command: 'startStreaming',
      params: { choice: 'Custom', serverUrl: 'rtmp://127.0.0.1/live?streamKey=***', streamKey: '***' },
    })
    expect(byOrigin.get('console/key:2')).toMatchObject({ outcome: 'APP_ERROR', message: expect.any(String) })
    for (const r of records) expect(r.durationMs).toBeGreaterThanOrEqual(0)

    // The same records in the daemon's event feed and on the wire.
    const fed = events.flatMap((e) => (e.type === 'command' ? [e.command] : []))
    expect(fed).toEqual(records)
    const wire = stream
      .body()
      .split('\n\n')
      .filter((block) => block.startsWith('event: command\n'))
      .map((block) => JSON.parse(block.slice('event: command\ndata: '.length)) as CommandEvent)
    expect(wire).toEqual(records)

    // One trace line per command.
    expect(lines).toHaveLength(3)
    expect(lines.every((l) => l.endsWith(' ms\n') && l.split('\n').length === 2)).toBe(true)
    expect(lines.find((l) => l.includes(' console/key:1 startStreaming '))).toContain('"streamKey":"***"')

    // Each command at debug, with its outcome.
    const debug = logs.filter((l) => l.level === 'debug' && l.scope === 'daemon/engine')
    expect(debug.map((l) => l.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^console\/key:0: schedule ok \(/),
        expect.stringMatching(/^console\/key:1: startStreaming (ok|failed)/),
      ]),
    )

    // Never the secret: not in a log record, an event, the wire or a trace line.
    expect(JSON.stringify(logs)).not.toContain(SECRET)
    expect(JSON.stringify(events)).not.toContain(SECRET)
    expect(stream.body()).not.toContain(SECRET)
    expect(lines.join('')).not.toContain(SECRET)
  })
})
