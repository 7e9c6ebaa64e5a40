/**
 * The web surface's continuous controls: the spring-loaded shuttle ring and the faders. The `value`
 * message from a browser (parsed, bounded), the surface's `value` events (only on change, the shuttle
 * with its zone), and the shuttle springing back to centre on release and when its browser goes.
 */
import { afterAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { setLogSink, type LogRecord } from '../../../src/log.js'
import { checkProperty, fc, hostileText } from '../../fuzz/harness.js'
import type { SurfaceEvent, ValueEvent } from '../../../src/surfaces/types.js'
import { KeyImages } from '../../../src/surfaces/web/key-images.js'
import { acceptsEvent, clampValue, parseClientMessage, type ServerMessage } from '../../../src/face/protocol.js'
import { shuttleZone } from '../../../src/face/control-id.js'
import { WebSurfaceServer } from '../../../src/surfaces/web/server.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import { recordInput, flushTurn, type Client, connectForTest } from './helpers.js'

const records: LogRecord[] = []
const previousSink = setLogSink((r) => records.push(r))
afterAll(() => setLogSink(previousSink))

const images = new KeyImages()

/** The value events, without their timestamps. */
function values(input: SurfaceEvent[]): Omit<ValueEvent, 'at'>[] {
  return input.filter((e): e is ValueEvent => e.type === 'value').map(({ at: _at, ...e }) => e)
}

describe('the value message', () => {
  it('parses an absolute value for a control', () => {
    expect(parseClientMessage('{"type":"value","surface":"a","control":"fader:0","value":0.25}', false)).toEqual({
      ok: true,
      message: { type: 'value', surface: 'a', control: 'fader:0', value: 0.25 },
    })
    expect(
      parseClientMessage(Buffer.from('{"type":"value","surface":"a","control":"shuttle","value":-0.5}'), false),
    ).toEqual({ ok: true, message: { type: 'value', surface: 'a', control: 'shuttle', value: -0.5 } })
  })

  it.each([
    ['{"type":"value","surface":"a","control":"shuttle","value":"0.5"}', 'a string'],
    ['{"type":"value","surface":"a","control":"shuttle","value":"NaN"}', 'the text NaN'],
    ['{"type":"value","surface":"a","control":"shuttle","value":null}', 'null'],
    ['{"type":"value","surface":"a","control":"shuttle","value":[0.5]}', 'an array'],
    ['{"type":"value","surface":"a","control":"shuttle","value":true}', 'a boolean'],
    ['{"type":"value","surface":"a","control":"shuttle"}', 'no value'],
    // JSON has no NaN or Infinity; 1e999 is the way to send an infinity.
    ['{"type":"value","surface":"a","control":"shuttle","value":1e999}', 'an infinity'],
    ['{"type":"value","surface":"a","control":"shuttle","value":-1e999}', 'a negative infinity'],
  ])('refuses %s (%s) as a bad value', (text) => {
    expect(parseClientMessage(text, false)).toEqual({ ok: false, reason: 'bad value' })
  })

  it('still checks the surface and control of a value message', () => {
    expect(parseClientMessage('{"type":"value","surface":"","control":"fader:0","value":0}', false)).toEqual({
      ok: false,
      reason: 'bad surface',
    })
    expect(parseClientMessage('{"type":"value","surface":"a","control":null,"value":0}', false)).toEqual({
      ok: false,
      reason: 'bad control',
    })
  })

  it('clamps a value out of range to -1..1, and -0 to 0', () => {
    const parsed = (value: string): unknown => {
      const r = parseClientMessage(`{"type":"value","surface":"a","control":"shuttle","value":${value}}`, false)
      return r.ok && r.message.type === 'value' ? r.message.value : r
    }
    expect(parsed('7')).toBe(1)
    expect(parsed('-1e300')).toBe(-1)
    expect(Object.is(parsed('-0'), 0)).toBe(true)
    expect(parsed('0.999')).toBe(0.999)
  })

  it('fuzz: any value text gives a finite number in -1..1 or a refusal, never a throw', async () => {
    // Text, not values: a deep value would overflow JSON.stringify in the test itself.
    const valueText = fc.oneof(
      hostileText,
      fc.double().map(String),
      fc.double().map((d) => JSON.stringify(d)),
    )
    await checkProperty(
      'web value message',
      fc.property(valueText, (text) => {
        const r = parseClientMessage(`{"type":"value","surface":"a","control":"fader:0","value":${text}}`, false)
        if (!r.ok) {
          expect(['bad value', 'too long', 'not JSON']).toContain(r.reason)
          return
        }
        if (r.message.type !== 'value') throw new Error(`parsed as ${r.message.type}`)
        expect(typeof JSON.parse(text)).toBe('number')
        expect(Number.isFinite(r.message.value) && r.message.value >= -1 && r.message.value <= 1).toBe(true)
      }),
    )
  })

  it('is taken by the shuttle and faders only, each clamped to its own range', () => {
    expect(acceptsEvent('shuttle', 'value')).toBe(true)
    expect(acceptsEvent('fader', 'value')).toBe(true)
    for (const kind of ['key', 'encoder', 'jog'] as const) expect(acceptsEvent(kind, 'value')).toBe(false)
    expect(acceptsEvent('shuttle', 'down')).toBe(false)
    expect(acceptsEvent('fader', 'rotate')).toBe(false)
    expect(clampValue('shuttle', -3)).toBe(-1)
    expect(clampValue('fader', -0.5)).toBe(0)
    expect(clampValue('fader', 2)).toBe(1)
    expect(clampValue('fader', Number.NaN)).toBeUndefined()
    expect(clampValue('key', 0.5)).toBeUndefined()
  })

  it('gives the shuttle zone as round(|value| × 7) with the sign', () => {
    expect([-1, -0.5, -0.07, 0, 0.0714, 0.0715, 0.5, 0.93, 1].map(shuttleZone)).toEqual([-7, -4, 0, 0, 0, 1, 4, 7, 7])
    expect(Object.is(shuttleZone(-0.01), 0)).toBe(true)
  })
})

describe('WebSurface continuous controls', () => {
  it('lists the shuttle and faders after the keys, encoders and jog', () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, jog: true, shuttle: true, faders: 2 })
    expect(s.description.controls.map((c) => `${c.id}=${c.kind}`)).toEqual([
      'key:0=key',
      'jog=jog',
      'shuttle=shuttle',
      'fader:0=fader',
      'fader:1=fader',
    ])
  })

  it('emits a fader value only when it changes, clamped to 0..1', () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, faders: 2 })
    const input = recordInput(s)
    const browser = {}
    expect(s.value('fader:0', 0.5, browser)).toBe(true)
    expect(s.value('fader:0', 0.5, browser)).toBe(true)
    expect(s.value('fader:0', -2, browser)).toBe(true)
    expect(s.value('fader:0', -1, browser)).toBe(true)
    expect(s.value('fader:1', 1.5, browser)).toBe(true)
    expect(values(input)).toEqual([
      { type: 'value', surface: 'b', control: 'fader:0', value: 0.5 },
      { type: 'value', surface: 'b', control: 'fader:0', value: 0 },
      { type: 'value', surface: 'b', control: 'fader:1', value: 1 },
    ])
    expect(input.every((e) => typeof e.at === 'number')).toBe(true)
  })

  it('emits shuttle values with their zone, and 0 when it returns to centre', () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, shuttle: true })
    const input = recordInput(s)
    const browser = {}
    s.value('shuttle', 0, browser) // at rest already: no event
    s.value('shuttle', 0.3, browser)
    s.value('shuttle', 0.7, browser)
    s.value('shuttle', 9, browser)
    s.value('shuttle', -0.5, browser)
    s.value('shuttle', 0, browser)
    expect(values(input)).toEqual([
      { type: 'value', surface: 'b', control: 'shuttle', value: 0.3, raw: 2 },
      { type: 'value', surface: 'b', control: 'shuttle', value: 0.7, raw: 5 },
      { type: 'value', surface: 'b', control: 'shuttle', value: 1, raw: 7 },
      { type: 'value', surface: 'b', control: 'shuttle', value: -0.5, raw: -4 },
      { type: 'value', surface: 'b', control: 'shuttle', value: 0, raw: 0 },
    ])
  })

  it('springs the shuttle back to centre when the browser holding it goes, and only then', () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, shuttle: true, faders: 1 })
    const input = recordInput(s)
    const a = {}
    const b = {}
    s.value('shuttle', 0.6, a)
    s.value('fader:0', 0.8, a)
    s.releaseAll(b) // holds nothing
    expect(values(input).map((e) => `${e.control}=${e.value}`)).toEqual(['shuttle=0.6', 'fader:0=0.8'])
    s.releaseAll(a)
    // The shuttle returns to centre; a fader stays where it was left, as a real one does.
    expect(values(input).map((e) => `${e.control}=${e.value}`)).toEqual(['shuttle=0.6', 'fader:0=0.8', 'shuttle=0'])
    expect(values(input).at(-1)).toEqual({ type: 'value', surface: 'b', control: 'shuttle', value: 0, raw: 0 })
    s.releaseAll(a)
    expect(values(input)).toHaveLength(3)
  })

  it('lets the newest browser to move the shuttle hold it', () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, shuttle: true })
    const input = recordInput(s)
    const a = {}
    const b = {}
    s.value('shuttle', 0.5, a)
    s.value('shuttle', -0.5, b)
    s.releaseAll(a) // no longer holding it: b moved it since
    expect(values(input).map((e) => e.value)).toEqual([0.5, -0.5])
    s.releaseAll(b)
    expect(values(input).map((e) => e.value)).toEqual([0.5, -0.5, 0])
    // Centred by a browser's own release: that browser going later changes nothing.
    s.value('shuttle', 0.2, a)
    s.value('shuttle', 0, a)
    s.releaseAll(a)
    expect(values(input).map((e) => e.value)).toEqual([0.5, -0.5, 0, 0.2, 0])
  })

  it('refuses values for controls that take none, and everything once closed', async () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, encoders: 1, jog: true, shuttle: true, faders: 1 })
    const input = recordInput(s)
    for (const control of ['key:0', 'encoder:0', 'jog', 'fader:9', 'nothing']) {
      expect(s.value(control, 0.5, {})).toBe(false)
    }
    expect(s.value('fader:0', Number.NaN, {})).toBe(false)
    expect(s.press('shuttle', {})).toBe(false)
    expect(s.rotate('fader:0', 1)).toBe(false)
    expect(s.value('fader:0', 0.1, {})).toBe(true)
    await s.close()
    expect(s.value('fader:0', 0.2, {})).toBe(false)
    expect(values(input).map((e) => e.value)).toEqual([0.1])
  })
})

describe('continuous controls over the WebSocket', () => {
  let desk: WebSurface
  let server: WebSurfaceServer
  let url: string

  beforeEach(async () => {
    desk = new WebSurface({ id: 'desk', rows: 1, columns: 2, jog: true, shuttle: true, faders: 2, images })
    server = new WebSurfaceServer({ surfaces: [desk], images })
    url = await server.listen({ port: 0 })
    records.length = 0
    // Registered first, so it runs last: after the clients a test connected are closed.
    onTestFinished(async () => {
      await server.close()
      await desk.close()
    })
  })
  async function client(): Promise<Client> {
    const c = await connectForTest(url)
    await c.waitFor('hello')
    return c
  }

  it('turns value messages into value events, and springs the shuttle back when the browser goes', async () => {
    const input = recordInput(desk)
    const c = await client()
    c.send({ type: 'value', surface: 'desk', control: 'fader:1', value: 0.75 })
    c.send({ type: 'value', surface: 'desk', control: 'shuttle', value: 0.4 })
    c.send({ type: 'value', surface: 'desk', control: 'shuttle', value: 0.9 })
    await expect.poll(() => values(input).length).toBe(3)
    expect(values(input)).toEqual([
      { type: 'value', surface: 'desk', control: 'fader:1', value: 0.75 },
      { type: 'value', surface: 'desk', control: 'shuttle', value: 0.4, raw: 3 },
      { type: 'value', surface: 'desk', control: 'shuttle', value: 0.9, raw: 6 },
    ])
    // The browser goes with the ring held: it springs back, and the engine hears the stop.
    await c.close()
    await expect.poll(() => values(input).length).toBe(4)
    expect(values(input)[3]).toEqual({ type: 'value', surface: 'desk', control: 'shuttle', value: 0, raw: 0 })
  })

  it('springs the shuttle back when the server stops serving the surface', async () => {
    const input = recordInput(desk)
    const c = await client()
    c.send({ type: 'value', surface: 'desk', control: 'shuttle', value: -0.3 })
    await expect.poll(() => values(input).length).toBe(1)
    server.removeSurface('desk')
    expect(values(input).map((e) => e.value)).toEqual([-0.3, 0])
  })

  it('ignores bad values and values for controls that take none, logging each kind once', async () => {
    const input = recordInput(desk)
    const c = await client()
    c.send({ type: 'value', surface: 'desk', control: 'fader:0', value: 'half' })
    c.send({ type: 'value', surface: 'desk', control: 'fader:0', value: 'half' })
    c.send({ type: 'value', surface: 'desk', control: 'jog', value: 0.5 })
    c.send({ type: 'value', surface: 'desk', control: 'key:0', value: 0.5 })
    // Out of range is no error: it is clamped.
    c.send({ type: 'value', surface: 'desk', control: 'fader:0', value: -5 })
    c.send({ type: 'value', surface: 'desk', control: 'fader:0', value: 3 })
    await expect.poll(() => values(input).length).toBe(2)
    expect(values(input).map((e) => e.value)).toEqual([0, 1])
    await flushTurn()
    const warnings = records.filter((r) => r.scope === 'surfaces/web').map((r) => r.fields?.reason ?? r.message)
    expect(warnings).toEqual(['bad value', 'ignored input for a control that does not take it'])
    expect(input.every((e) => e.type === 'value')).toBe(true)
  })

  it('sends fader feedback to the browser as a state with the value', async () => {
    const c = await client()
    desk.setFeedback('fader:0', { text: 'Speed', detail: '1.0×', value: 0.25 })
    const state = await c.waitFor('state', (m: Extract<ServerMessage, { type: 'state' }>) => m.control === 'fader:0')
    expect(state.state).toEqual({ text: 'Speed', detail: '1.0×', value: 0.25 })
  })
})
