import { readFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { setLogSink, type LogRecord } from '../../../src/log.js'
import { encodePng, keyFontPath, KeyRenderer } from '../../../src/surfaces/render/key-renderer.js'
import { KeyImages } from '../../../src/surfaces/web/key-images.js'
import { escapeHtml } from '../../../src/surfaces/web/page.js'
import { parseClientMessage, type ServerMessage } from '../../../src/face/protocol.js'
import { DEFAULT_WEB_HOST, DEFAULT_WEB_PORT, WebSurfaceServer } from '../../../src/surfaces/web/server.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'
import type { Feedback } from '../../../src/face/feedback.js'
import { connect, FakeRegistry, physicalDeck, recordInput, flushTurn, type Client, connectForTest } from './helpers.js'
import { until } from '../../helpers/until.js'

const records: LogRecord[] = []
const previousSink = setLogSink((r) => records.push(r))
afterAll(() => setLogSink(previousSink))

const renderer = new KeyRenderer()
const images = new KeyImages(renderer)

function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, method }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const bytes = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

describe('WebSurface', () => {
  it('describes its key grid row-major, then encoders and the jog wheel', () => {
    const s = new WebSurface({
      id: 'browser',
      rows: 2,
      columns: 3,
      encoders: 2,
      jog: true,
      keySize: { width: 72, height: 72 },
    })
    expect(s.description).toMatchObject({
      id: 'browser',
      driver: 'web',
      model: 'Web surface',
      grid: { rows: 2, columns: 3 },
    })
    expect(s.description.controls.map((c) => c.id)).toEqual([
      'key:0',
      'key:1',
      'key:2',
      'key:3',
      'key:4',
      'key:5',
      'encoder:0',
      'encoder:1',
      'jog',
    ])
    expect(s.description.controls[4]).toEqual({
      id: 'key:4',
      kind: 'key',
      row: 1,
      column: 1,
      capabilities: { image: { width: 72, height: 72 } },
    })
  })

  it('refuses a grid it cannot draw, naming the field', () => {
    expect(() => new WebSurface({ id: 'x', rows: 0, columns: 3 })).toThrow(
      'web surface: rows must be an integer from 1 to 16, got 0',
    )
    expect(() => new WebSurface({ id: 'x', rows: 2, columns: 2.5 })).toThrow('columns must be an integer')
    expect(() => new WebSurface({ id: '', rows: 1, columns: 1 })).toThrow('id is required')
  })

  it('sends a burst of feedback for one key once, with the newest, as a face to paint', async () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 2, images })
    const sent: ServerMessage[] = []
    s.view.on('message', (m) => sent.push(m))
    for (let i = 0; i < 20; i++) s.setFeedback('key:0', { color: '#112233', text: `n${i}` })
    s.setFeedback('key:1', { color: '#00ff00' })
    await flushTurn()
    expect(sent.map((m) => (m.type === 'key' ? `${m.control}=${m.label}` : m.type))).toEqual(['key:0=n19', 'key:1='])
    expect(sent[0]).toEqual({
      type: 'key',
      surface: 'b',
      control: 'key:0',
      label: 'n19',
      face: { color: '#112233', text: 'n19' },
    })
  })

  it('gives each browser holding the same key its own down and up; a browser that goes cancels its press', () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1 })
    const input = recordInput(s)
    const a = {}
    const b = {}
    expect(s.press('key:0', a, 'browser-1')).toBe(true)
    expect(s.press('key:0', b, 'browser-2')).toBe(true)
    expect(s.release('key:0', a, 'browser-1')).toBe(true)
    expect(input.map((e) => `${e.type}:${e.source}`)).toEqual(['down:browser-1', 'down:browser-2', 'up:browser-1'])
    s.releaseAll(b)
    expect(input.map((e) => `${e.surface}/${e.control}:${e.type}:${e.source}`)).toEqual([
      'b/key:0:down:browser-1',
      'b/key:0:down:browser-2',
      'b/key:0:up:browser-1',
      'b/key:0:up:browser-2',
    ])
    expect(input[3]).toMatchObject({ type: 'up', cancel: true })
  })

  it('refuses events a control does not take, and feedback for controls it lacks', async () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, encoders: 1, images })
    const input = recordInput(s)
    expect(s.rotate('key:0', 1)).toBe(false)
    expect(s.press('jog', {})).toBe(false)
    expect(s.press('key:7', {})).toBe(false)
    expect(s.rotate('encoder:0', -3)).toBe(true)
    expect(input).toMatchObject([{ type: 'rotate', surface: 'b', control: 'encoder:0', delta: -3 }])
    records.length = 0
    s.setFeedback('key:9', { color: '#ff0000' })
    s.setFeedback('key:9', { color: '#ff0000' })
    await flushTurn()
    expect(records.filter((r) => r.message.includes('control the web surface lacks'))).toHaveLength(1)
  })

  it('shows encoder feedback as a state, not an image', async () => {
    const s = new WebSurface({ id: 'b', rows: 1, columns: 1, encoders: 1, images })
    const sent: ServerMessage[] = []
    s.view.on('message', (m) => sent.push(m))
    s.setFeedback('encoder:0', { color: '#00ff00', text: 'Vol', image: undefined })
    await flushTurn()
    expect(sent).toEqual([
      { type: 'state', surface: 'b', control: 'encoder:0', state: { color: '#00ff00', text: 'Vol' } },
    ])
  })
})

describe('parseClientMessage', () => {
  it('accepts down, up and rotate', () => {
    expect(parseClientMessage('{"type":"down","surface":"a","control":"key:1"}', false)).toEqual({
      ok: true,
      message: { type: 'down', surface: 'a', control: 'key:1' },
    })
    expect(
      parseClientMessage(Buffer.from('{"type":"rotate","surface":"a","control":"jog","delta":-2}'), false),
    ).toEqual({
      ok: true,
      message: { type: 'rotate', surface: 'a', control: 'jog', delta: -2 },
    })
  })

  it.each([
    ['{"type":"down"', false, 'not JSON'],
    ['[1,2]', false, 'not an object'],
    ['null', false, 'not an object'],
    ['{"type":"down","surface":"a","control":"key:1"}', true, 'binary frame'],
    ['{"type":"down","surface":"","control":"key:1"}', false, 'bad surface'],
    ['{"type":"down","surface":"a","control":7}', false, 'bad control'],
    ['{"type":"press","surface":"a","control":"key:1"}', false, 'unknown type'],
    ['{"type":"rotate","surface":"a","control":"jog","delta":0.5}', false, 'bad delta'],
    ['{"type":"rotate","surface":"a","control":"jog","delta":0}', false, 'bad delta'],
    ['{"type":"rotate","surface":"a","control":"jog","delta":100000}', false, 'bad delta'],
    ['{"type":"rotate","surface":"a","control":"jog"}', false, 'bad delta'],
    ['x'.repeat(5000), false, 'too long'],
  ])('refuses %s (binary %s): %s', (text, binary, reason) => {
    expect(parseClientMessage(text, binary)).toEqual({ ok: false, reason })
  })
})

describe('escapeHtml', () => {
  it('escapes every character that could open markup or end an attribute', () => {
    expect(escapeHtml(`<img src=x onerror="a('&')">`)).toBe('&lt;img src=x onerror=&quot;a(&#39;&amp;&#39;)&quot;&gt;')
  })
})

describe('WebSurfaceServer over a plain WebSocket client', () => {
  let server: WebSurfaceServer
  let desk: WebSurface
  let registry: FakeRegistry
  let url: string

  beforeEach(async () => {
    desk = new WebSurface({ id: 'desk', rows: 2, columns: 2, encoders: 1, jog: true, images })
    registry = new FakeRegistry()
    registry.add(physicalDeck('CL12K1A00042'))
    server = new WebSurfaceServer({ surfaces: [desk], registry, images })
    url = await server.listen({ port: 0 })
    records.length = 0
    // Registered first, so it runs last: after the clients a test connected are closed.
    onTestFinished(async () => {
      await server.close()
      await desk.close()
    })
  })
  async function client(headers?: Record<string, string>): Promise<Client> {
    const c = await connectForTest(url, headers)
    return c
  }

  it('listens on 127.0.0.1 and serves the page with its script and style', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    const page = await get(url)
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.body).toContain('<script src="client.js" defer></script>')
    expect(page.body).toContain('<span class="name">desk</span>')
    expect(page.body).toContain('<span class="name">CL12K1A00042</span>')
    const js = await get(url + 'client.js')
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(js.body).toMatch(/new URL\(["']ws["'], location\.href\)/) // esbuild's bundle prints double quotes
    expect((await get(url + 'style.css')).headers['content-type']).toBe('text/css; charset=utf-8')
    expect((await get(url + 'nothing-here')).status).toBe(404)
    expect((await get(url + 'ws')).status).toBe(426)
  })

  it('serves the key font the page paints with: the very file the daemon registers with Skia', async () => {
    const page = await get(url)
    expect(page.headers['content-security-policy']).toContain("font-src 'self'")
    const font = await get(url + 'key-font.ttf')
    expect(font.status).toBe(200)
    expect(font.headers['content-type']).toBe('font/ttf')
    expect(font.bytes.equals(readFileSync(keyFontPath()))).toBe(true)
    const head = await get(url + 'key-font.ttf', {}, 'HEAD')
    expect({ status: head.status, length: head.headers['content-length'], bytes: head.bytes.length }).toEqual({
      status: 200,
      length: String(font.bytes.length),
      bytes: 0,
    })
  })

  it('escapes surface names in the page', async () => {
    const evil = new WebSurface({ id: '<script>alert("x")</script>', rows: 1, columns: 1, images })
    server.addSurface(evil)
    const page = await get(url)
    expect(page.body).not.toContain('<script>alert')
    expect(page.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    await evil.close()
  })

  it('refuses requests for a foreign host name and WebSockets from a foreign origin', async () => {
    expect((await get(url, { host: 'evil.example:8088' })).status).toBe(403)
    expect((await get(url, { host: 'localhost' })).status).toBe(200)
    const refused = new WebSocket(url.replace('http:', 'ws:') + 'ws', { headers: { origin: 'http://evil.example' } })
    const status = await new Promise<number>((resolve) => {
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
      refused.on('open', () => resolve(101))
      refused.on('error', () => undefined)
    })
    expect(status).toBe(403)
    const sameOrigin = await client({ origin: url.replace(/\/$/, '') })
    await sameOrigin.waitFor('hello')
  })

  it('sends a browser that connects late the whole current state at once', async () => {
    desk.setFeedback('key:3', { color: '#ff0000', text: 'LIVE' })
    desk.setFeedback('encoder:0', { color: '#00ff00', text: 'Vol' })
    desk.setBrightness(40)
    registry.feedback('CL12K1A00042', 'key:1', { color: '#0000ff', text: 'HW' })
    await flushTurn()
    const c = await client()
    const key = await c.waitFor('key', (m) => m.surface === 'desk')
    await c.waitFor('key', (m) => m.surface === 'CL12K1A00042')
    await c.waitFor('brightness')
    expect(c.messages[0]).toEqual({ type: 'hello', version: 2 })
    const surfaces = c.messages.flatMap((m) => (m.type === 'surface' ? [[m.surface.id, m.surface.mode]] : []))
    expect(surfaces).toEqual([
      ['desk', 'interactive'],
      ['CL12K1A00042', 'mirror'],
    ])
    // The face the page paints with the hardware's key layout.
    expect(key).toEqual({
      type: 'key',
      surface: 'desk',
      control: 'key:3',
      label: 'LIVE',
      face: { color: '#ff0000', text: 'LIVE' },
    })
    const mirrored = c.messages.find((m) => m.type === 'key' && m.surface === 'CL12K1A00042')
    expect(mirrored).toMatchObject({ control: 'key:1', face: { color: '#0000ff', text: 'HW' } })
    expect(c.messages).toContainEqual({
      type: 'state',
      surface: 'desk',
      control: 'encoder:0',
      state: { color: '#00ff00', text: 'Vol' },
    })
    expect(c.messages).toContainEqual({ type: 'brightness', surface: 'desk', percent: 40 })
  })

  it('pushes live feedback to every browser', async () => {
    const a = await client()
    const b = await client()
    await a.waitFor('surface')
    desk.setFeedback('key:0', { color: '#123456', text: 'A' })
    await a.waitFor('key', (m) => m.control === 'key:0' && m.label === 'A')
    await b.waitFor('key', (m) => m.control === 'key:0' && m.label === 'A')
  })

  it('turns browser messages into the surface events of the web surface', async () => {
    const input = recordInput(desk)
    const c = await client()
    await c.waitFor('hello')
    c.send({ type: 'down', surface: 'desk', control: 'key:2' })
    c.send({ type: 'up', surface: 'desk', control: 'key:2' })
    c.send({ type: 'rotate', surface: 'desk', control: 'jog', delta: -4 })
    c.send({ type: 'rotate', surface: 'desk', control: 'encoder:0', delta: 2 })
    c.send({ type: 'down', surface: 'desk', control: 'encoder:0' })
    await expect.poll(() => input.length).toBe(5)
    expect(input.map(({ at: _at, ...e }) => e)).toEqual([
      { type: 'down', surface: 'desk', control: 'key:2', source: 'browser-1' },
      { type: 'up', surface: 'desk', control: 'key:2', source: 'browser-1' },
      { type: 'rotate', surface: 'desk', control: 'jog', delta: -4 },
      { type: 'rotate', surface: 'desk', control: 'encoder:0', delta: 2 },
      { type: 'down', surface: 'desk', control: 'encoder:0', source: 'browser-1' },
    ])
    expect(typeof input[0]!.at).toBe('number')
    // A browser that goes away with a control held cancels its press: no stuck key, and nothing fires.
    await c.close()
    await expect.poll(() => input.at(-1)).toMatchObject({ type: 'up', control: 'encoder:0', cancel: true })
  })

  it('ignores malformed and refused messages, logs each kind once, and keeps the connection', async () => {
    const input = recordInput(desk)
    const c = await client()
    await c.waitFor('hello')
    c.send('not json')
    c.send('not json either')
    c.ws.send(Buffer.from([1, 2, 3]))
    c.send({ type: 'explode', surface: 'desk', control: 'key:0' })
    c.send({ type: 'down', surface: 'desk', control: 'key:99' })
    c.send({ type: 'rotate', surface: 'desk', control: 'key:0', delta: 1 })
    c.send({ type: 'down', surface: 'CL12K1A00042', control: 'key:0' })
    c.send({ type: 'down', surface: 'nobody', control: 'key:0' })
    c.send({ type: 'rotate', surface: 'desk', control: 'jog', delta: 1.5 })
    // A valid message after the garbage still works; it also marks that everything before was handled.
    c.send({ type: 'down', surface: 'desk', control: 'key:1' })
    await expect.poll(() => input.length).toBe(1)
    expect(input[0]).toMatchObject({ type: 'down', control: 'key:1' })
    expect(c.ws.readyState).toBe(WebSocket.OPEN)
    const warnings = records.filter((r) => r.scope === 'surfaces/web').map((r) => r.fields?.reason ?? r.message)
    expect(warnings).toEqual([
      'not JSON',
      'binary frame',
      'unknown type',
      'ignored input for a control that does not take it',
      'read-only mirror',
      'unknown surface',
      'bad delta',
    ])
  })

  it('refuses every input on a read-only viewer’s socket (ws?view=1), whatever it sends; others still press', async () => {
    const input = recordInput(desk)
    const viewer = new WebSocket(url.replace('http:', 'ws:') + 'ws?view=1')
    const welcome = new Promise<ServerMessage>((resolve) =>
      viewer.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')) as ServerMessage)),
    )
    await new Promise((resolve, reject) => {
      viewer.once('open', resolve)
      viewer.once('error', reject)
    })
    // A viewer still sees the surfaces.
    expect(await welcome).toMatchObject({ type: 'hello' })
    for (const m of [
      { type: 'down', surface: 'desk', control: 'key:0' },
      { type: 'up', surface: 'desk', control: 'key:0' },
      { type: 'rotate', surface: 'desk', control: 'jog', delta: 3 },
    ]) {
      viewer.send(JSON.stringify(m))
    }
    await expect.poll(() => records.filter((r) => r.message === 'ignored input from a read-only viewer').length).toBe(1)
    // The rotate came after the refused down; a malformed frame after it marks the end: frames are handled in
    // order, so once that one is logged the rotate was handled too, and nothing got through.
    viewer.send('{')
    await until('the marker frame handled', () =>
      records.some((r) => r.message === 'ignored a malformed message from a browser'),
    )
    expect(input).toEqual([])
    const c = await client()
    c.send({ type: 'down', surface: 'desk', control: 'key:1' })
    await expect.poll(() => input.length).toBe(1)
    expect(input[0]).toMatchObject({ type: 'down', control: 'key:1' })
    viewer.close()
  })

  it('closes a browser that sends an oversized frame, without harm to others', async () => {
    const a = await client()
    const b = await client()
    await a.waitFor('hello')
    const closed = new Promise<number>((resolve) => a.ws.once('close', (code) => resolve(code)))
    a.ws.send('x'.repeat(100_000))
    expect(await closed).toBe(1009)
    desk.setFeedback('key:0', { color: '#ff00ff' })
    await b.waitFor('key', (m) => m.control === 'key:0')
  })

  it('mirrors the registry: surfaces added and removed, feedback as key faces', async () => {
    const c = await client()
    await c.waitFor('surface', (m) => m.surface.id === 'CL12K1A00042')
    registry.add(physicalDeck('SERIAL2', 96))
    const added = await c.waitFor('surface', (m) => m.surface.id === 'SERIAL2')
    expect(added.surface).toMatchObject({ mode: 'mirror', driver: 'streamdeck', grid: { rows: 2, columns: 2 } })
    expect(added.surface.controls[0]).toEqual({
      id: 'key:0',
      kind: 'key',
      widget: 'key',
      row: 0,
      column: 0,
      image: { width: 96, height: 96 },
    })
    registry.feedback('SERIAL2', 'key:2', { color: '#00ff00', text: 'ON' })
    registry.feedback('SERIAL2', 'button:0', { led: 'on' })
    const key = await c.waitFor('key', (m) => m.surface === 'SERIAL2')
    expect(key).toMatchObject({ control: 'key:2', label: 'ON', face: { color: '#00ff00', text: 'ON' } })
    await c.waitFor('state', (m) => m.surface === 'SERIAL2' && m.state.led === 'on')
    registry.remove('SERIAL2')
    await c.waitFor('removed', (m) => m.surface === 'SERIAL2')
    expect(server.list().map((s) => s.id)).toEqual(['desk', 'CL12K1A00042'])
  })

  it('does not mirror its own web surface when the registry lists it too', () => {
    registry.add(desk.description)
    expect(server.list()).toEqual([
      { id: 'desk', model: 'Web surface', mode: 'interactive' },
      { id: 'CL12K1A00042', model: 'Stream Deck test', mode: 'mirror' },
    ])
  })

  it('drops a web surface from the page when it closes', async () => {
    const extra = new WebSurface({ id: 'extra', rows: 1, columns: 1, images })
    server.addSurface(extra)
    const c = await client()
    await c.waitFor('surface', (m) => m.surface.id === 'extra')
    await extra.close()
    await c.waitFor('removed', (m) => m.surface === 'extra')
    expect(server.list().map((s) => s.id)).not.toContain('extra')
    expect(() => server.addSurface(desk)).toThrow('a surface named "desk" is already served')
  })

  it('closes every browser on close(), idempotently', async () => {
    const c = await client()
    await c.waitFor('hello')
    const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)))
    await server.close()
    await server.close()
    expect(await closed).toBe(1001)
    expect(registry.events.listenerCount('feedback')).toBe(0)
    expect(desk.view.listenerCount('message')).toBe(0)
  })
})

describe('WebSurfaceServer draws only pre-rendered images, and only while a browser looks', () => {
  /** KeyImages over the real renderer, counting the keys it draws. */
  function countingImages(): { images: KeyImages; drawn: string[] } {
    const drawn: string[] = []
    const counting = {
      render(feedback: Parameters<KeyRenderer['render']>[0], size: Parameters<KeyRenderer['render']>[1]) {
        drawn.push(feedback.text ?? '')
        return renderer.render(feedback, size)
      },
    }
    return { images: new KeyImages(counting), drawn }
  }
  /** A watched surface fed after the others: its message proves the turn that would have drawn them ran. */
  async function turnPassed(): Promise<void> {
    const probe = new WebSurface({ id: 'probe', rows: 1, columns: 1, images })
    const seen = new Promise<void>((resolve) => probe.view.on('message', () => resolve()))
    probe.setFeedback('key:0', { text: 'probe' })
    await seen
    await probe.close()
  }

  /** A feedback whose key the daemon draws: it carries a pre-rendered image (2×2, red). */
  const pictured = (text: string, color?: string): Feedback => ({
    ...(color ? { color } : {}),
    text,
    image: { width: 2, height: 2, rgba: new Uint8Array(16).map((_, i) => (i % 4 === 0 || i % 4 === 3 ? 255 : 0)) },
  })

  it('draws no pixels for a key face; a feedback with an image is drawn once, as a PNG of the whole key', async () => {
    const { images: counted, drawn } = countingImages()
    const desk = new WebSurface({ id: 'desk', rows: 1, columns: 2, images: counted })
    const server = new WebSurfaceServer({ surfaces: [desk], images: counted })
    const c = await connect(await server.listen({ port: 0 }))
    try {
      await c.waitFor('surface', (m) => m.surface.id === 'desk')
      desk.setFeedback('key:0', { color: '#112233', text: 'face', detail: 'd', value: 0.5, badge: 'stale' })
      const face = await c.waitFor('key', (m) => m.control === 'key:0')
      expect(face).toEqual({
        type: 'key',
        surface: 'desk',
        control: 'key:0',
        label: 'face (d)',
        face: { color: '#112233', text: 'face', detail: 'd', value: 0.5, badge: 'stale' },
      })
      desk.setFeedback('key:1', { ...pictured('pic'), detail: 'live' })
      const shown = await c.waitFor('key', (m) => m.control === 'key:1')
      expect(drawn).toEqual(['pic'])
      const png = encodePng(renderer.render({ ...pictured('pic'), detail: 'live' }, { width: 96, height: 96 }))
      expect(shown.image).toBe('data:image/png;base64,' + png.toString('base64'))
      expect(shown.face).toEqual({ text: 'pic', detail: 'live' })
    } finally {
      await c.close()
      await server.close()
      await desk.close()
    }
  })

  it('keeps the newest feedback undrawn with no browser, draws it for the first one, and stops when the last goes', async () => {
    const { images: counted, drawn } = countingImages()
    const desk = new WebSurface({ id: 'desk', rows: 1, columns: 2, images: counted })
    const registry = new FakeRegistry()
    registry.add(physicalDeck('DECK1'))
    const server = new WebSurfaceServer({ surfaces: [desk], registry, images: counted })
    const url = await server.listen({ port: 0 })
    try {
      for (let i = 0; i < 20; i++) desk.setFeedback('key:0', pictured(`n${i}`, '#112233'))
      registry.feedback('DECK1', 'key:1', pictured('mirror', '#00ff00'))
      await turnPassed()
      expect(drawn).toEqual([])

      const c = await connect(url)
      const own = await c.waitFor('key', (m) => m.surface === 'desk')
      const mirrored = await c.waitFor('key', (m) => m.surface === 'DECK1')
      expect([own.label, mirrored.label]).toEqual(['n19', 'mirror'])
      // The surface messages come before their keys, so the page knows where to draw them.
      const order = c.messages.map((m) =>
        m.type === 'surface' ? `surface:${m.surface.id}` : m.type === 'key' ? `key:${m.surface}` : m.type,
      )
      expect(order.indexOf('surface:desk')).toBeLessThan(order.indexOf('key:desk'))
      expect(order.indexOf('surface:DECK1')).toBeLessThan(order.indexOf('key:DECK1'))
      expect(drawn.sort()).toEqual(['mirror', 'n19'])

      desk.setFeedback('key:1', pictured('live'))
      await c.waitFor('key', (m) => m.label === 'live')
      expect(drawn).toContain('live')

      await c.close()
      await vi.waitFor(() => expect(server.browsers).toBe(0))
      const before = drawn.length
      desk.setFeedback('key:1', pictured('unseen'))
      registry.feedback('DECK1', 'key:1', pictured('unseen mirror'))
      await turnPassed()
      expect(drawn).toHaveLength(before)

      const again = await connect(url)
      await again.waitFor('key', (m) => m.label === 'unseen')
      await again.waitFor('key', (m) => m.label === 'unseen mirror')
      await again.close()
    } finally {
      await server.close()
      await desk.close()
    }
  })
})

describe('WebSurfaceServer lifecycle', () => {
  it('defaults to 127.0.0.1:8088, the port panelbridge owns', () => {
    expect(DEFAULT_WEB_HOST).toBe('127.0.0.1')
    expect(DEFAULT_WEB_PORT).toBe(8088)
  })

  it('reports a port in use and can listen again afterwards', async () => {
    const first = new WebSurfaceServer({ images })
    const taken = Number(new URL(await first.listen({ port: 0 })).port)
    const second = new WebSurfaceServer({ images })
    await expect(second.listen({ port: taken })).rejects.toMatchObject({ code: 'EADDRINUSE' })
    expect(await second.listen({ port: 0 })).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    await Promise.all([first.close(), second.close()])
  })

  it('drops a browser that stops answering pings and releases what it held', async () => {
    const desk = new WebSurface({ id: 'desk', rows: 1, columns: 1, images })
    const input = recordInput(desk)
    const server = new WebSurfaceServer({ surfaces: [desk], images, heartbeatMs: 40 })
    const url = await server.listen({ port: 0 })
    const mute = new WebSocket(url.replace('http:', 'ws:') + 'ws', { autoPong: false })
    await new Promise((resolve) => mute.once('open', resolve))
    const closed = new Promise<number>((resolve) => mute.once('close', (code) => resolve(code)))
    mute.send(JSON.stringify({ type: 'down', surface: 'desk', control: 'key:0' }))
    expect(await closed).toBe(1006) // terminated, not closed politely
    await expect.poll(() => input.map((e) => e.type)).toEqual(['down', 'up'])
    await server.close()
    await desk.close()
  })
})

describe('WebSurfaceServer mounted in another server', () => {
  let http: Server
  let web: WebSurfaceServer
  let base: string
  beforeEach(async () => {
    web = new WebSurfaceServer({ basePath: '/surfaces/', images })
    web.addSurface(new WebSurface({ id: 'desk', rows: 1, columns: 1, images }))
    http = createServer((req, res) => {
      if (!web.handleRequest(req, res)) res.writeHead(418).end('daemon')
    })
    http.on('upgrade', (req, socket, head: Buffer) => {
      if (!web.handleUpgrade(req, socket, head)) socket.destroy()
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  })
  afterEach(async () => {
    await web.close()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  })

  it('answers only under its path prefix', async () => {
    expect(web.basePath).toBe('/surfaces')
    expect((await get(base + '/status')).status).toBe(418)
    expect((await get(base + '/surfacesX')).status).toBe(418)
    const redirect = await get(base + '/surfaces')
    expect(redirect.status).toBe(301)
    expect(redirect.headers.location).toBe('/surfaces/')
    expect((await get(base + '/surfaces/')).body).toContain('<span class="name">desk</span>')
    expect((await get(base + '/surfaces/other')).status).toBe(404)
    const c = await connect(base + '/surfaces/')
    await c.waitFor('surface', (m) => m.surface.id === 'desk')
    await c.close()
    const wrong = new WebSocket(base.replace('http:', 'ws:') + '/elsewhere')
    await new Promise<void>((resolve) => wrong.on('error', () => resolve()))
  })
})
