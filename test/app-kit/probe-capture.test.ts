/**
 * probe's capture (src/app-kit/probe-capture.ts): secrets out (at any depth, inside JSON text nested in a
 * frame, in variables named like a secret, in RTMP URLs), every bound kept (frames, exchanges,
 * characters per text and in all), and a capture read back with only CaptureError for a bad file.
 */
import { describe, expect, it } from 'vitest'
import {
  CAPTURE_LIMITS,
  CaptureError,
  CaptureRecorder,
  parseCapture,
  redactCaptureText,
  redactValue,
} from '../../src/app-kit/probe-capture.js'
import { deepJsonText } from '../fuzz/harness.js'

const targets = { http: 'http://127.0.0.1:9022', socket: 'ws://127.0.0.1:9023', listenS: 1 }

function recorder(): { rec: CaptureRecorder; tick: (ms: number) => void } {
  let now = 1_700_000_000_000
  return { rec: new CaptureRecorder(targets, '0.1.0', () => now), tick: (ms) => void (now += ms) }
}

describe('redaction', () => {
  it('hides values under secret names at any depth, and keeps yes/no values', () => {
    const out = redactValue({ a: { b: [{ streamKey: 'k1', token: 7, tokenRequired: true, name: 'x' }] } })
    expect(out).toEqual({ a: { b: [{ streamKey: '***', token: '***', tokenRequired: true, name: 'x' }] } })
  })

  it('hides secrets inside JSON text nested in a frame, and keeps the text as text', () => {
    const reply = JSON.stringify({ result: { serverUrl: 'rtmp://x/app', streamKey: 'k2' } })
    const frame = JSON.stringify({ type: 10, id: 3, data: reply })
    const out = JSON.parse(redactValue(frame) as string) as { data: unknown }
    expect(typeof out.data).toBe('string')
    expect(JSON.parse(out.data as string)).toEqual({ result: { serverUrl: 'rtmp://x/app', streamKey: '***' } })
  })

  it('hides the value of a title variable named like a secret', () => {
    const out = redactValue({
      titles: [
        {
          variables: [
            { variable: 'Stream Key', value: 'k3' },
            { variable: 'Name', value: 'Alex' },
          ],
        },
      ],
      variables: [{ name: 'stream-key', value: 'k4' }],
    })
    expect(JSON.stringify(out)).not.toMatch(/k3|k4/)
    expect(JSON.stringify(out)).toContain('Alex')
  })

  it('hides the key of an RTMP URL, streamKey= and Bearer texts', () => {
    expect(redactCaptureText('go rtmp://a.rtmp.youtube.com/live2/abcd-1234 now')).toBe(
      'go rtmp://a.rtmp.youtube.com/live2/*** now',
    )
    expect(redactCaptureText('rtmps://live.example.com:443/app/key?x=1')).toBe(
      'rtmps://live.example.com:443/app/***?x=1',
    )
    expect(redactCaptureText('rtmp://host/live2')).toBe('rtmp://host/live2')
    expect(redactCaptureText('startStreaming?streamKey=abc&x=1')).toBe('startStreaming?streamKey=***&x=1')
    expect(redactCaptureText('Authorization: Bearer abc.def')).toBe('Authorization: Bearer ***')
    expect(redactCaptureText('http://admin:hunter2@127.0.0.5:9022/api')).toBe('http://***@127.0.0.5:9022/api')
  })

  it('keeps a key named __proto__ as a plain entry, and values too deep as a marker', () => {
    const out = redactValue(JSON.parse('{"__proto__": {"token": "t"}}')) as Record<string, unknown>
    expect(Object.keys(out)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(JSON.stringify(redactValue(JSON.parse(deepJsonText(200))))).toContain('[array]')
  })
})

describe('the recorder', () => {
  it('records exchanges and frames with times since the start, redacted', () => {
    const { rec, tick } = recorder()
    tick(5)
    const e = rec.request('http', 'getOutputDevice', { streamKey: 'k' }, { requestId: 'r1' })
    tick(7)
    rec.reply(e, '{"result":{"device":"NDI","token":"t"}}', 200)
    rec.frame(1, '{"type":1,"object":"scheduler","signal":3,"args":["{\\"token\\":\\"t2\\"}"]}')
    const c = rec.finish([], [])
    expect(c.exchanges).toEqual([
      {
        t: 5,
        transport: 'http',
        command: 'getOutputDevice',
        params: { streamKey: '***' },
        requestId: 'r1',
        replyT: 12,
        status: 200,
        reply: '{"result":{"device":"NDI","token":"***"}}',
      },
    ])
    expect(c.frames).toEqual([{ t: 12, connection: 1, text: expect.stringContaining('***') as string }])
    expect(JSON.stringify(c)).not.toMatch(/"t2|"k"|\\"t\\"/)
    expect(c.started).toBe(new Date(1_700_000_000_000).toISOString())
    const withUser = new CaptureRecorder({ ...targets, http: 'http://op:pw@host:9022' }, 'x').capture
    expect(withUser.targets.http).toBe('http://***@host:9022')
  })

  it('keeps at most CAPTURE_LIMITS.maxFrames frames and CAPTURE_LIMITS.maxExchanges exchanges, counting the rest', () => {
    const { rec } = recorder()
    for (let i = 0; i < CAPTURE_LIMITS.maxFrames + 3; i++) rec.frame(1, '{"type":4}')
    for (let i = 0; i < CAPTURE_LIMITS.maxExchanges + 2; i++) rec.reply(rec.request('socket', 'm', []), 'x')
    const c = rec.finish([], [])
    expect(c.frames).toHaveLength(CAPTURE_LIMITS.maxFrames)
    expect(c.exchanges).toHaveLength(CAPTURE_LIMITS.maxExchanges)
    expect(c.dropped).toMatchObject({ frames: 3, exchanges: 2 })
  })

  it('keeps the head of a frame past CAPTURE_LIMITS.maxTextChars, marked with its length', () => {
    const { rec } = recorder()
    const big = `{"type":10,"data":"${'a'.repeat(CAPTURE_LIMITS.maxTextChars)} streamKey=zz"}`
    rec.frame(1, big)
    const [f] = rec.finish([], []).frames
    expect(f!.cut).toBe(big.length)
    expect(f!.text.length).toBe(CAPTURE_LIMITS.maxTextChars)
  })

  it('stops keeping texts at CAPTURE_LIMITS.maxTotalChars, counting what it left out', () => {
    const { rec } = recorder()
    const text = `"${'b'.repeat(CAPTURE_LIMITS.maxTextChars - 10)}"`
    const n = Math.ceil(CAPTURE_LIMITS.maxTotalChars / text.length) + 2
    for (let i = 0; i < n; i++) rec.frame(1, text)
    const c = rec.finish([], [])
    const kept = c.frames.reduce((s, f) => s + f.text.length, 0)
    expect(kept).toBeLessThanOrEqual(CAPTURE_LIMITS.maxTotalChars)
    expect(c.frames.length).toBeLessThan(n)
    expect(c.dropped.frames).toBe(n - c.frames.length)
    expect(c.dropped.chars).toBeGreaterThan(0)
  })

  it('keeps a socket reply that was JSON text as text, and one that was an object as an object', () => {
    const { rec } = recorder()
    rec.reply(rec.request('socket', 'scheduleCommand', ['getOutputDevice', {}, {}]), '{"device":"NDI"}')
    rec.reply(rec.request('socket', '_cmp_v1_query', ['actions']), { companion_actions: {} })
    const [text, object] = rec.finish([], []).exchanges
    expect(text!.reply).toBe('{"device":"NDI"}')
    expect(object!.reply).toEqual({ companion_actions: {} })
  })

  it('records a value too deep to write as a marker, never a throw', () => {
    const { rec } = recorder()
    rec.signal(1, 'scheduler', 'onNotify', [JSON.parse(deepJsonText(5000)) as unknown])
    expect(JSON.stringify(rec.finish([], []).signals[0]!.args)).toContain('not kept')
  })
})

describe('parseCapture', () => {
  it("reads back the recorder's capture", () => {
    const { rec } = recorder()
    const c = rec.finish([{ fact: 'socket_reply', verdict: 'ok', value: 'flat-string', seen: 'x' }], [])
    expect(parseCapture(JSON.stringify(c)).facts[0]).toMatchObject({ fact: 'socket_reply', value: 'flat-string' })
  })

  it.each([
    ['not json', 'the file is not JSON'],
    ['[1]', 'not a JSON object'],
    ['{"format":"x"}', 'format'],
    [deepJsonText(1000, '1', 'object'), 'not a JSON object of the capture format'],
    [
      JSON.stringify({
        format: 'panelbridge-probe-capture',
        version: 1,
        started: 'now',
        targets: { http: '', socket: '' },
        facts: [{ fact: 'no_such_fact', verdict: 'ok', seen: '' }],
      }),
      'facts.0.fact',
    ],
  ])('refuses %s with CaptureError', (text, message) => {
    expect(() => parseCapture(text)).toThrow(CaptureError)
    expect(() => parseCapture(text)).toThrow(message)
  })

  it('refuses a text past CAPTURE_LIMITS.maxFileBytes before parsing it', () => {
    expect(() => parseCapture(' '.repeat(CAPTURE_LIMITS.maxFileBytes + 1))).toThrow(/at most/)
  })
})
