/**
 * The reading side of `GET /api/events` in `panelbridge learn`: the Server-Sent Events parser (chunks
 * split anywhere, bounds), the checks of each event, and learn against a hostile server on a real
 * socket that answers like a daemon.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runLearn } from '../../src/commands/learn.js'
import {
  EventStreamError,
  LEARN_MAX_EVENT_BYTES,
  parseInputEvent,
  parseSurfaceEvent,
  readServerSentEvents,
  type ServerSentEvent,
} from '../../src/commands/learn-stream.js'
import { fc, fuzzParser, hostileJsonValue } from '../fuzz/harness.js'
import { harness } from './hardware-helpers.js'
import { afterBanner } from './learn-helpers.js'

/** The parts as a body arriving in chunks, one at a time. */
async function* chunks(parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) {
    await Promise.resolve()
    yield typeof p === 'string' ? new TextEncoder().encode(p) : p
  }
}

async function collect(parts: (string | Uint8Array)[], max?: number): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = []
  for await (const e of readServerSentEvents(chunks(parts), max)) out.push(e)
  return out
}

describe('readServerSentEvents', () => {
  it('reads events split anywhere, with CRLF, comments, several data lines and a split UTF-8 character', async () => {
    const text =
      ': hello\r\nevent: surface\r\ndata: {"a":1}\r\n\r\nevent: input\ndata: one\ndata:two\n\ndata: ü\n\nevent: lost\ndata: x'
    const bytes = new TextEncoder().encode(text)
    const expected = [
      { event: 'surface', data: '{"a":1}' },
      { event: 'input', data: 'one\ntwo' },
      { event: 'message', data: 'ü' },
    ]
    expect(await collect([text])).toEqual(expected)
    // One byte at a time: CRLF and the two bytes of ü each split across chunks.
    expect(await collect([...bytes].map((b) => Uint8Array.of(b)))).toEqual(expected)
  })

  it('throws EventStreamError for a line or an event longer than the bound', async () => {
    await expect(collect(['data: ' + 'x'.repeat(100)], 64)).rejects.toThrow(EventStreamError)
    await expect(collect(['data: 1234567890\n'.repeat(10)], 64)).rejects.toThrow('an event longer than 64 bytes')
    // Without a newline, the buffer is bounded too: a stream of one endless line ends.
    const endless = Array.from({ length: 100 }, () => 'y'.repeat(1024))
    await expect(collect(endless)).rejects.toThrow(`a line longer than ${LEARN_MAX_EVENT_BYTES} bytes`)
  })
})

fuzzParser('the event stream parser', {
  input: fc.array(fc.uint8Array({ maxLength: 256 }), { maxLength: 16 }),
  parse: (parts) => collect(parts, 512),
  typedError: (err) => err instanceof EventStreamError,
})

fuzzParser('the event checks', {
  input: fc.oneof(
    hostileJsonValue.map((v) => {
      try {
        return JSON.stringify(v) ?? 'null'
      } catch {
        return 'null' // a value JSON cannot write (a BigInt): no text to check
      }
    }),
    fc.string(),
  ),
  parse: (data) => [parseInputEvent(data), parseSurfaceEvent(data)],
})

describe('parseInputEvent and parseSurfaceEvent', () => {
  const input = {
    surface: 'desk',
    driver: 'midi',
    device: 'APC',
    control: 'note:1:60',
    kind: 'note',
    type: 'down',
    velocity: 0.5,
  }

  it('take a well-formed event, the kind from the id, and make texts safe for a terminal', () => {
    expect(parseInputEvent(JSON.stringify({ ...input, kind: 'key', device: 'A\u001b[2JB' }))).toEqual({
      surface: 'desk',
      driver: 'midi',
      device: 'A?[2JB',
      control: 'note:1:60',
      kind: 'note',
      type: 'down',
      velocity: 0.5,
    })
    expect(
      parseSurfaceEvent(JSON.stringify({ name: 'desk', driver: 'hid', state: 'failed', message: 'm'.repeat(500) })),
    ).toMatchObject({ message: `${'m'.repeat(200)}…` })
  })

  it('refuse what learn could not print as a canonical binding', () => {
    for (const bad of [
      { control: 'key:03' },
      { control: 'note:17:60' },
      { surface: 'no such/name' },
      { surface: 'x'.repeat(129) },
      { type: 'press' },
      { type: 'rotate' },
      { type: 'rotate', delta: 1.5 },
      { type: 'value', value: 'NaN' },
      { driver: 7 },
    ]) {
      expect(parseInputEvent(JSON.stringify({ ...input, ...bad })), JSON.stringify(bad)).toBeUndefined()
    }
    expect(parseInputEvent('not json')).toBeUndefined()
    expect(parseSurfaceEvent(JSON.stringify({ name: 'desk', driver: 'hid', state: 'burning' }))).toBeUndefined()
  })
})

describe('learn against a server that answers like a daemon', () => {
  /** A daemon's status on /api/status; on /api/events, `events` is written (and the response ended). */
  async function fake(events: string | ((res: ServerResponse) => void)): Promise<string> {
    const server = createServer((req, res) => {
      if (req.url === '/api/status') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ version: '9.9.9', config: '/nonexistent/config.yaml', surfaces: [] }))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (typeof events === 'string') res.end(events)
      else events(res)
    })
    onTestFinished(() => {
      server.closeAllConnections()
      return new Promise<void>((r) => server.close(() => r()))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  it('prints its valid events, ignores malformed ones (saying so once), and stops at the end of the stream', async () => {
    const h = harness()
    const url = await fake(
      [
        'event: surface\ndata: {"name":"desk","driver":"midi","state":"open","device":"APC\\u001b]0;pwned\\u0007","model":"APC"}\n\n',
        'event: input\ndata: {"surface":"desk","driver":"midi","control":"key:03","type":"down"}\n\n',
        'event: input\ndata: [1,2\n\n',
        'event: input\ndata: {"surface":"desk","driver":"midi","control":"cc:1:7","type":"rotate","delta":-3}\n\n',
      ].join(''),
    )
    expect(await runLearn(['--url', url], { ...h.deps, env: {} })).toBe(1)
    expect(afterBanner(h.out)).toEqual([
      'midi APC?]0;pwned? (APC): open: learning as desk',
      "  claimed by the daemon's surfaces: entry desk",
      'desk/cc:1:7 rotate -3',
      '  binding:',
      '    - on: desk/cc:1:7',
      '      jog: { scrub: { step_frames: 1 } }',
    ])
    expect(h.err).toEqual([
      `panelbridge learn: ignored a malformed event from ${url} (more are ignored silently)`,
      `panelbridge learn: the daemon at ${url} ended the event stream (stopped?)`,
    ])
    expect(h.transport.opened).toEqual([])
  })

  it('ends with exit 1 on an endless line rather than reading it into memory', async () => {
    const h = harness()
    let written = 0
    const url = await fake((res) => {
      // As fast as the reader takes it, up to 16 times the bound, with never a newline.
      const more = (): void => {
        while (written < 16 * LEARN_MAX_EVENT_BYTES) {
          written += 4096
          if (!res.write('z'.repeat(4096))) return void res.once('drain', more)
        }
      }
      more()
    })
    expect(await runLearn(['--url', url], { ...h.deps, env: {} })).toBe(1)
    expect(h.err.join('\n')).toContain(`a line longer than ${LEARN_MAX_EVENT_BYTES} bytes`)
  })
})
