/**
 * `panelbridge probe`'s readers of outside data: what the application answers and sends (read into
 * facts and assumptions, recorded into a capture), and a capture file read back (into a profile). Any
 * input gives a result or the module's typed error, never another throw.
 */
import { describe } from 'vitest'
import { CaptureError, CaptureRecorder, parseCapture, redactValue } from '../../src/app-kit/probe-capture.js'
import { checkAssumptions, classifyNotification, observeFacts, pngSize } from '../../src/app-kit/probe-facts.js'
import type { ProbeObservations, ReplySeen } from '../../src/app-kit/probe-facts.js'
import { readReply } from '../../src/api/reply.js'
import { profileFromCapture } from '../../src/app-kit/simulator/profile-from-capture.js'
import { fc, fuzzParser, hostileJsonValue, hostileText, objectWith } from './harness.js'

const COMMANDS = ['getTitleControlInfo', 'getSubscriptions', 'replay_get_play_info', 'replay_get_settings', 'x']
const SIGNALS = ['onNotify', '_cmp_v1_handleFeedbackChangeEvent', 'variablesChanged']

/** A reply as probe reads it: hostile text through the reader, or hostile fields as they are. */
const reply: fc.Arbitrary<ReplySeen> = fc
  .tuple(
    fc.constantFrom<'http' | 'socket'>('http', 'socket'),
    fc.constantFrom(...COMMANDS),
    fc.oneof(hostileText, objectWith({}, ['titles', 'senders', 'frameRate', 'settings', 'requestId', 'success'])),
    fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
  )
  .map(([transport, command, raw, requestId]) => {
    const seen: ReplySeen = { transport, command, ...(requestId !== undefined ? { requestId } : {}) }
    try {
      const r = readReply(raw)
      seen.shape = r.shape
      seen.fields = r.fields
      if (r.error !== undefined) seen.error = r.error
    } catch {
      seen.unreadable = 'not-json'
    }
    return seen
  })

const observations: fc.Arbitrary<ProbeObservations> = fc.record({
  http: fc.record({ reached: fc.boolean() }),
  socket: fc.record({ reached: fc.boolean(), scheduler: fc.boolean() }),
  replies: fc.array(reply, { maxLength: 6 }),
  inits: fc.array(
    fc.record({
      methods: fc.dictionary(fc.string({ maxLength: 20 }), fc.nat(40)).map((d) => new Map(Object.entries(d))),
      signals: fc
        .dictionary(fc.constantFrom(...SIGNALS, 'newCommandXML'), fc.nat(40))
        .map((d) => new Map(Object.entries(d))),
    }),
    { maxLength: 2 },
  ),
  clientInfo: hostileJsonValue,
  layerReads: fc.array(hostileJsonValue, { maxLength: 3 }),
  registry: fc.array(fc.record({ kind: fc.constantFrom('actions', 'feedbacks'), reply: hostileJsonValue }), {
    maxLength: 2,
  }),
  signals: fc.array(
    fc.record({ t: fc.nat(), signal: fc.constantFrom(...SIGNALS), args: fc.array(hostileJsonValue, { maxLength: 4 }) }),
    { maxLength: 5 },
  ),
  polls: fc.array(
    fc.record({
      t: fc.nat(),
      titles: fc.array(
        fc.record({
          id: fc.string({ maxLength: 10 }),
          status: hostileJsonValue,
          variables: fc.string({ maxLength: 10 }),
        }),
        { maxLength: 3 },
      ),
      layer: fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })),
    }),
    { maxLength: 4 },
  ),
  listened: fc.boolean(),
})

/** A capture file: hostile text, or the capture format around hostile values. */
const captureText = fc.oneof(
  hostileText,
  fc
    .tuple(
      hostileJsonValue,
      fc.array(objectWith({ fact: fc.constantFrom('values', 'socket_reply') }, ['value', 'verdict', 'seen'])),
    )
    .map(([application, facts]) => {
      try {
        return JSON.stringify({
          format: 'panelbridge-probe-capture',
          version: 1,
          started: 'now',
          targets: { http: '', socket: '' },
          application,
          facts,
        })
      } catch {
        return '{}'
      }
    }),
)

describe('probe', () => {
  fuzzParser('classifyNotification', { input: fc.oneof(hostileText, hostileJsonValue), parse: classifyNotification })
  fuzzParser('pngSize', {
    input: fc.oneof(
      hostileText,
      hostileText.map((t) => `data:image/png;base64,${t}`),
    ),
    parse: pngSize,
  })
  fuzzParser('redactValue', { input: fc.oneof(hostileText, hostileJsonValue), parse: redactValue })
  fuzzParser('the facts and assumptions read from hostile observations', {
    input: observations,
    parse: (o) => {
      observeFacts(o)
      checkAssumptions(o)
    },
  })
  fuzzParser('the capture recorder, then its JSON', {
    input: fc.tuple(hostileText, hostileJsonValue, hostileJsonValue),
    parse: ([frame, reply, arg]) => {
      const rec = new CaptureRecorder({ http: '', socket: '', listenS: 0 }, 'x')
      rec.frame(1, frame)
      rec.reply(rec.request('socket', 'scheduleCommand', [reply]), reply)
      rec.signal(1, 'scheduler', 'onNotify', [arg])
      rec.init(1, reply)
      rec.application(arg)
      JSON.stringify(rec.finish([], []))
    },
  })
  fuzzParser('parseCapture, then profileFromCapture', {
    input: captureText,
    parse: (text) => profileFromCapture(parseCapture(text), 'fuzz.json'),
    typedError: (e) => e instanceof CaptureError,
  })
})
