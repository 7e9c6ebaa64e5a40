/**
 * The simulator's parsers of outside bytes (issue 9, fuzzing): QWebChannel frames, command parameters
 * and request URLs. Each returns a value or throws only its module's typed error; frames sent over a
 * real socket never stop the server from answering the next one.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { QWC_MESSAGE } from '../../src/api/protocol.js'
import { decodeRequestUrl, HttpError } from '../../src/app-kit/simulator/http.js'
import { SIMULATOR_COMMANDS, startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { Params, readVariables } from '../../src/app-kit/simulator/params.js'
import { parseClientFrame, QwcFrameError } from '../../src/app-kit/simulator/qwebchannel-server.js'
import { SimulatorState } from '../../src/app-kit/simulator/state.js'
import { HandlerError } from '../../src/app-kit/simulator/types.js'
import {
  checkProperty,
  deepJsonText,
  fc,
  fuzzParser,
  FUZZ_MAX_DEPTH,
  hostileJsonValue,
  hostileText,
} from './harness.js'
import { until } from '../helpers/until.js'

/** JSON text of a hostile value, built as text so that deep nesting never passes through JSON.stringify. */
const hostileJsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(FUZZ_MAX_DEPTH), fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'))
      .map(([d, shape]) => deepJsonText(d, '1', shape)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '"__proto__"',
      '"constructor"',
      '"toString"',
      '"hasOwnProperty"',
      '{"toString":1}',
      '{"__proto__":{"x":1}}',
      '[]',
      'null',
      '-1',
      '1e308',
      '3.5',
      '"scheduler"',
      '"scheduleCommand"',
      '"scheduleAction"',
      '"notifyClientConnected"',
      '"deleteLater"',
    ),
  },
)

/** A QWebChannel client frame with hostile fields, as text. */
const hostileFrame: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: hostileText },
  {
    weight: 4,
    arbitrary: fc
      .record({
        type: fc.oneof(fc.constantFrom('3', '4', '5', '6', '7', '8', '9', '10', '99', '-1', '"6"'), hostileJsonText),
        object: hostileJsonText,
        method: fc.oneof(fc.nat(20).map(String), hostileJsonText),
        signal: fc.oneof(fc.nat(20).map(String), hostileJsonText),
        id: hostileJsonText,
        args: fc.oneof(
          hostileJsonText,
          fc.array(hostileJsonText, { maxLength: 5 }).map((xs) => `["readTitle",${xs.join(',') || '{}'}]`),
        ),
        data: hostileJsonText,
      })
      .chain((fields) =>
        fc
          .subarray(Object.keys(fields))
          .map((keys) => `{${keys.map((k) => `"${k}":${fields[k as keyof typeof fields]}`).join(',')}}`),
      ),
  },
)

describe('simulator QWebChannel frames', () => {
  fuzzParser('parseClientFrame', {
    input: hostileFrame,
    parse: parseClientFrame,
    typedError: (e) => e instanceof QwcFrameError,
  })

  let sim: SimulatorHandle
  let ws: WebSocket
  const responses = new Map<string, unknown>()
  beforeAll(async () => {
    sim = await startSimulator({ animationMs: 5 })
    ws = new WebSocket(sim.wsUrl)
    ws.on('message', (d: Buffer) => {
      const msg = JSON.parse(d.toString()) as { type: number; id?: unknown; data?: unknown }
      if (msg.type === QWC_MESSAGE.response && typeof msg.id === 'string') responses.set(msg.id, msg.data)
    })
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
  })
  afterAll(async () => {
    ws.terminate()
    await sim.close()
  })

  test('fuzz: hostile frames over one socket never stop the server answering the next frame', async () => {
    let n = 0
    await checkProperty(
      'simulator frame handling over a socket',
      fc.asyncProperty(hostileFrame, async (frame) => {
        const id = `probe-${n++}`
        ws.send(frame)
        ws.send(JSON.stringify({ type: QWC_MESSAGE.init, id }))
        await until(
          'an answer after a hostile frame',
          () => {
            if (ws.readyState !== WebSocket.OPEN) throw new Error('the server closed the socket')
            return responses.has(id)
          },
          5000,
          1,
        )
        expect(responses.get(id)).toHaveProperty('scheduler')
        responses.clear()
      }),
    )
  })
})

describe('simulator command parameters', () => {
  const names = [
    'id',
    'title',
    'file',
    'channel',
    'input',
    'events',
    'sender',
    'width',
    'action',
    'variables',
    'settings',
  ]
  const rawParams = fc.dictionary(
    fc.oneof(
      fc.constantFrom(...names, '__proto__', 'constructor', 'toString', 'requestId'),
      fc.string({ maxLength: 8 }),
    ),
    hostileJsonValue,
    { maxKeys: 6 },
  )

  fuzzParser('Params readers', {
    input: fc.tuple(rawParams, fc.constantFrom(...names, 'constructor', '__proto__')),
    parse: ([raw, name]) => {
      const p = new Params(raw, raw.variables)
      p.has(name)
      p.str(name)
      p.list(name)
      p.flag(name)
      p.num(name)
      p.int(name)
      p.channel()
      p.required(name)
      p.bool(name)
    },
    typedError: (e) => e instanceof HandlerError,
  })

  fuzzParser('readVariables', {
    input: fc.oneof(hostileJsonValue, hostileText),
    parse: readVariables,
    typedError: (e) => e instanceof HandlerError,
  })

  fuzzParser('decodeRequestUrl', {
    input: fc.oneof(
      hostileText,
      fc
        .tuple(
          fc.constantFrom('/api/command/', '/api', '/', '//', 'http://[', ''),
          fc.string({ maxLength: 64 }),
          hostileText,
        )
        .map(([a, b, c]) => `${a}${b}?${c}`),
    ),
    parse: decodeRequestUrl,
    typedError: (e) => e instanceof HttpError,
  })

  test('fuzz: every command with hostile parameters answers an envelope and never an internal error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'panelbridge-fuzz-'))
    const state = new SimulatorState({ dataDir, animationMs: 5 })
    try {
      await checkProperty(
        'dispatch with hostile parameters',
        fc.property(fc.constantFrom(...SIMULATOR_COMMANDS), rawParams, hostileJsonValue, (command, raw, variables) => {
          const reply = state.dispatch(command, raw, variables) as { result?: { error?: string } }
          expect(reply.result?.error ?? '').not.toMatch(/^internal error/)
        }),
      )
    } finally {
      state.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
