/**
 * The simulator plays every fact of an application profile (`config/app-profiles/`, issue 20) that is
 * not the scheduler's own methods and signals: notification forms on `onNotify`, where play state may
 * be read, values as text, the HTTP envelope, method calls by index only, the method order per start,
 * and title ids across an application restart. Against started simulators on loopback port 0, with raw
 * `ws` frames where the shape on the wire is the point.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Agent, fetch } from 'undici'
import WebSocket from 'ws'
import { QWC_MESSAGE as MSG } from '../../../src/api/protocol.js'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'
import { getProfile, type ProfileFacts, type SimProfile } from '../../../src/app-kit/simulator/profile.js'
import { SIM_LIMITS } from '../../../src/app-kit/simulator/limits.js'
import { valuesAsText } from '../../../src/app-kit/simulator/profile-shapes.js'
import { SimulatorState } from '../../../src/app-kit/simulator/state.js'
import type { Json } from './helpers.js'

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'
/** How long and how often `expect.poll` looks. */
const WAIT = { timeout: 3000, interval: 5 }

afterEach(() => {
  vi.useRealTimers()
})

/** The default profile with some facts changed: a profile no file ships, built for one test. */
function variant(changes: Partial<ProfileFacts>): SimProfile {
  const base = getProfile('captivate')
  return { ...base, name: 'test-variant', facts: { ...base.facts, ...changes } }
}

async function sim(profile?: string | SimProfile): Promise<SimulatorHandle> {
  const s = await startSimulator({ animationMs: 20, ...(profile !== undefined ? { profile } : {}) })
  onTestFinished(() => s.close())
  return s
}

/**
 * GET a command over a connection of its own: a kept-alive one would be cut by `restart()` (as by an
 * application that quits), and that is not what these tests are about.
 */
async function get(s: SimulatorHandle, name: string, params: Record<string, string> = {}): Promise<Json> {
  const query = new URLSearchParams(params).toString()
  const dispatcher = new Agent()
  try {
    const res = await fetch(`${s.httpUrl}/api/command/${name}${query ? `?${query}` : ''}`, { dispatcher })
    expect(res.status).toBe(200)
    return await res.json()
  } finally {
    await dispatcher.close()
  }
}

/** A QWebChannel client made of raw frames: what goes over the wire is what the test sees. */
interface RawChannel {
  ws: WebSocket
  /** Every frame received, parsed. */
  frames: Json[]
  /** The scheduler's method and signal indexes from this connection's init. */
  methods: Map<string, number>
  signals: Map<string, number>
  /** Each onNotify argument, parsed. */
  notes: Json[]
  /** Sends an invokeMethod (by index or by name); returns its id. */
  send(method: string | number, args: unknown[]): number
  /** The response to `id` (its `data`), or `undefined` when none came within `ms`. */
  response(id: number, ms?: number): Promise<Json>
  /** scheduleCommand by index; the reply text parsed. */
  command(name: string, params?: Record<string, unknown>): Promise<Record<string, Json>>
}

async function channel(s: SimulatorHandle): Promise<RawChannel> {
  const ws = new WebSocket(s.wsUrl)
  onTestFinished(() => ws.terminate())
  const frames: Json[] = []
  const notes: Json[] = []
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  let nextId = 100
  const ch: RawChannel = {
    ws,
    frames,
    notes,
    methods: new Map(),
    signals: new Map(),
    send(method, args) {
      const id = nextId++
      ws.send(JSON.stringify({ type: MSG.invokeMethod, object: 'scheduler', method, args, id }))
      return id
    },
    async response(id, ms = 2000) {
      const deadline = Date.now() + ms
      while (Date.now() < deadline) {
        const frame = frames.find((f: Json) => f.type === MSG.response && f.id === id)
        if (frame) return frame.data as unknown
        await new Promise((r) => setTimeout(r, 5))
      }
      return undefined
    },
    async command(name, params = {}) {
      const data = await ch.response(ch.send(ch.methods.get('scheduleCommand')!, [name, params, {}]))
      expect(typeof data).toBe('string')
      return JSON.parse(data as string) as Record<string, Json>
    },
  }
  ws.on('message', (raw: Buffer) => {
    const frame: Json = JSON.parse(raw.toString())
    frames.push(frame)
    if (frame.type === MSG.signal && frame.signal === ch.signals.get('onNotify')) notes.push(JSON.parse(frame.args[0]))
  })
  ws.send(JSON.stringify({ type: MSG.init, id: 1 }))
  await expect.poll(() => frames.length, WAIT).toBeGreaterThan(0)
  const scheduler = frames[0].data.scheduler as { methods: [string, number][]; signals: [string, number][] }
  for (const [n, i] of scheduler.methods) ch.methods.set(n, i)
  for (const [n, i] of scheduler.signals) ch.signals.set(n, i)
  ws.send(JSON.stringify({ type: MSG.idle }))
  ws.send(JSON.stringify({ type: MSG.connectToSignal, object: 'scheduler', signal: ch.signals.get('onNotify') }))
  // connectToSignal has no reply: a round trip makes sure the server has handled it.
  await ch.command('getTime')
  return ch
}

/** Whether any number or boolean is left anywhere in `value`. */
function typedLeaves(value: unknown, path = '$'): string[] {
  if (typeof value === 'number' || typeof value === 'boolean') return [`${path}=${String(value)}`]
  if (Array.isArray(value)) return value.flatMap((v, i) => typedLeaves(v, `${path}[${i}]`))
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => typedLeaves(v, `${path}.${k}`))
  return []
}

describe('notifications follow the profile (play_notification, data_notification, title_added)', () => {
  /**
   * A variable change and a play change on one title, a title added and one removed; the last is a
   * play change of another title sent as the marker that everything before it has arrived (the socket
   * keeps order), or a variable change when the profile announces no play change.
   */
  async function notesOf(profile: SimProfile): Promise<Json[]> {
    const s = await sim(profile)
    const c = await channel(s)
    await c.command('schedule', { action: 'update', id: LOWER_THIRD, variables: { Name: 'Robin' } })
    await c.command('schedule', { action: 'cutin', id: LOWER_THIRD })
    await c.command('newTitle', { newName: 'Added' })
    await c.command('deleteTitle', { title: 'Added' })
    // The marker is a play change of another title, or its variable change when no play change is
    // announced; either carries the other title's id.
    const marker =
      profile.facts.play_notification !== 'none'
        ? { action: 'cutin', id: SCORE_BUG }
        : { action: 'update', id: SCORE_BUG, variables: { 'Home Team': 'MRK' } }
    expect(profile.facts.play_notification !== 'none' || profile.facts.data_notification === 'event-data').toBe(true)
    await c.command('schedule', marker)
    await expect.poll(() => c.notes.some((n: Json) => n.id === SCORE_BUG), WAIT).toBe(true)
    return c.notes
  }

  it('captivate (default): {event:"data", id, variables}, {id, play}, addTitle, removeTitle', async () => {
    expect(await notesOf(getProfile('captivate'))).toEqual([
      { event: 'data', id: LOWER_THIRD, variables: [{ name: 'Name', value: 'Robin' }] },
      { id: LOWER_THIRD, play: 'Paused' },
      { control: 'addTitle' },
      { control: 'removeTitle', id: expect.stringMatching(/^\{[0-9a-f-]{36}\}$/) },
      { id: SCORE_BUG, play: 'Paused' },
    ])
  })

  it('event-play: {event:"play", id, play}', async () => {
    const notes = await notesOf(variant({ play_notification: 'event-play' }))
    expect(notes[1]).toEqual({ event: 'play', id: LOWER_THIRD, play: 'Paused' })
    expect(notes.at(-1)).toEqual({ event: 'play', id: SCORE_BUG, play: 'Paused' })
  })

  it('titler-live-2021: {data:"Update"} instead of event:"data"; {id, play}; addTitle', async () => {
    expect(await notesOf(getProfile('titler-live-2021'))).toEqual([
      { data: 'Update' },
      { id: LOWER_THIRD, play: 'Paused' },
      { control: 'addTitle' },
      { control: 'removeTitle', id: expect.any(String) },
      { id: SCORE_BUG, play: 'Paused' },
    ])
  })

  it('data_notification none and title_added none: only the play changes', async () => {
    expect(await notesOf(variant({ data_notification: 'none', title_added: 'none' }))).toEqual([
      { id: LOWER_THIRD, play: 'Paused' },
      { id: SCORE_BUG, play: 'Paused' },
    ])
  })

  it('feedback-signal-only: no play message on onNotify, while the HTTP play still works', async () => {
    const profile = getProfile('feedback-signal-only')
    expect(profile.facts.play_notification).toBe('none')
    const notes = await notesOf(profile)
    expect(notes).toEqual([
      { event: 'data', id: LOWER_THIRD, variables: [{ name: 'Name', value: 'Robin' }] },
      { control: 'addTitle' },
      { control: 'removeTitle', id: expect.any(String) },
      { event: 'data', id: SCORE_BUG, variables: [{ name: 'Home Team', value: 'MRK' }] },
    ])
    expect(notes.some((n: Json) => 'play' in n)).toBe(false)

    const s = await sim(profile)
    const c = await channel(s)
    expect((await get(s, 'schedule', { action: 'cutin', id: LOWER_THIRD })).result.error).toBeUndefined()
    expect((await get(s, 'getPlayStatus', { id: LOWER_THIRD })).result.play).toBe('Paused')
    await get(s, 'schedule', { action: 'update', id: LOWER_THIRD, Name: 'After' })
    await expect.poll(() => c.notes.length, WAIT).toBe(1)
    expect(c.notes[0]).toMatchObject({ event: 'data', id: LOWER_THIRD })
  })

  it('state.changes carries every change whatever the profile announces', async () => {
    const s = await sim(variant({ play_notification: 'none', data_notification: 'none', title_added: 'none' }))
    const seen: string[] = []
    s.state.changes.on('play', (t, state) => seen.push(`play ${t.name} ${state}`))
    s.state.changes.on('variables', (t, changed) => seen.push(`variables ${t.name} ${changed.length}`))
    s.state.changes.on('title', (change, t) => seen.push(`title ${change} ${t.name}`))
    const c = await channel(s)
    await c.command('schedule', { action: 'update', id: LOWER_THIRD, variables: { Name: 'Robin' } })
    await c.command('schedule', { action: 'cutin', id: LOWER_THIRD })
    await c.command('newTitle', { newName: 'Added' })
    await c.command('deleteTitle', { title: 'Added' })
    expect(seen).toEqual([
      'variables Lower Third 1',
      'play Lower Third Paused',
      'title added Added',
      'title removed Added',
    ])
    // Nothing went out on onNotify: the next reply would have come after any notification.
    await c.command('getTime')
    expect(c.notes).toEqual([])
  })
})

describe('title_status: layer-state-only', () => {
  const readers: [string, Record<string, string>, (r: Json) => unknown[]][] = [
    ['getTitleControlInfo', { icon: '0' }, (r) => r.titles as unknown[]],
    ['getPlayStatus', { id: LOWER_THIRD }, (r) => [r as unknown]],
    ['getTitlesPlayStatus', {}, (r) => r.titles as unknown[]],
    ['getInputsPlayStatus', {}, (r) => r.inputs as unknown[]],
    ['readTitle', { channel: '-1' }, (r) => (r.titles as Json[]).map((t: Json) => t.running as unknown)],
  ]
  const field: Record<string, string> = {
    getTitleControlInfo: 'status',
    getPlayStatus: 'play',
    getTitlesPlayStatus: 'play',
    getInputsPlayStatus: 'play',
    readTitle: 'playState',
  }

  it.each(readers)('%s carries no play state, over HTTP and the socket', async (name, params, items) => {
    const s = await sim('strict-unknowns')
    const c = await channel(s)
    await get(s, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    const overHttp = (await get(s, name, params)).result
    const overWs = await c.command(name, params)
    for (const reply of [overHttp, overWs]) {
      expect(reply.error).toBeUndefined()
      const list = items(reply)
      expect(list.length).toBeGreaterThan(0)
      for (const item of list) expect(item).not.toHaveProperty(field[name]!)
    }
  })

  it.each(readers)('%s carries it in captivate', async (name, params, items) => {
    const s = await sim('captivate')
    await get(s, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    const list = items((await get(s, name, params)).result)
    for (const item of list) expect(item).toHaveProperty(field[name]!)
    expect(list.map((i: Json) => i[field[name]!] as unknown)).toContain('Paused')
  })

  it('the rest of the reply is untouched (ids, names, variables, running.time)', async () => {
    const s = await sim(variant({ title_status: 'layer-state-only' }))
    const info = (await get(s, 'getTitleControlInfo', { icon: '0' })).result
    expect(info.titles.at(-1)).toMatchObject({ id: LOWER_THIRD, name: 'Lower Third', image: '' })
    expect(info.titles.at(-1).variables.length).toBeGreaterThan(0)
    expect((await get(s, 'readTitle', { title: 'Lower Third' })).result.titles[0].running).toEqual({ time: '0' })
    expect((await get(s, 'getPlayStatus', { id: LOWER_THIRD })).result).toMatchObject({ id: LOWER_THIRD })
  })
})

describe('values: strings', () => {
  const commands: [string, Record<string, string>][] = [
    ['getTitleControlInfo', { icon: '0' }],
    ['readTitle', { channel: '-1' }],
    ['getTimelineDuration', { id: LOWER_THIRD }],
    ['getVideoFormat', {}],
    ['replay_get_play_info', {}],
    ['replay_get_settings', {}],
    ['replay_is_trial_mode', {}],
    ['getStreamHostServer', {}],
    ['getInputsPlayStatus', {}],
    ['noSuchCommand', {}],
  ]

  it('strict-unknowns: no number or boolean anywhere in a reply, over HTTP and in the socket text', async () => {
    const s = await sim('strict-unknowns')
    const c = await channel(s)
    for (const [name, params] of commands) {
      const body = await get(s, name, params)
      expect(typedLeaves(body), name).toEqual([])
      expect(body.result.success).toBe('true')
      const id = c.send(c.methods.get('scheduleCommand')!, [name, params, {}])
      const text = (await c.response(id)) as string
      expect(typeof text).toBe('string')
      expect(typedLeaves(JSON.parse(text)), name).toEqual([])
    }
    expect((await get(s, 'getTimelineDuration', { id: LOWER_THIRD })).result.duration).toMatch(/^\d+(\.\d+)?$/)
    expect((await c.command('replay_is_trial_mode')).success).toBe('true')
    // A bad POST body is a reply too.
    const bad = await fetch(`${s.httpUrl}/api`, { method: 'POST', body: '[1]' })
    expect(typedLeaves(await bad.json())).toEqual([])
  })

  it('captivate keeps the contract types (success is a boolean, numbers stay numbers)', async () => {
    const s = await sim('captivate')
    const r = (await get(s, 'getTimelineDuration', { id: LOWER_THIRD })).result
    expect(r.success).toBe(true)
    expect(typeof r.duration).toBe('number')
  })

  it('turns 1.5 into "1.5" and true into "true", recursively, and stops at its depth bound', () => {
    expect(valuesAsText({ a: 1.5, b: [true, { c: 0 }], d: 'x', e: null })).toEqual({
      a: '1.5',
      b: ['true', { c: '0' }],
      d: 'x',
      e: null,
    })
    let deep: unknown = 7
    for (let i = 0; i < SIM_LIMITS.maxShapeDepth + 5; i++) deep = [deep]
    let out = valuesAsText(deep)
    for (let i = 0; i < SIM_LIMITS.maxShapeDepth; i++) out = (out as unknown[])[0]
    // Past the bound the value is passed on as it is: the 7 is still a number.
    expect(typedLeaves(out)).toEqual(['$[0][0][0][0][0]=7'])
  })
})

describe('http_reply', () => {
  it('flat: HTTP answers the result fields at the top level, errors and bad bodies included', async () => {
    const s = await sim(variant({ http_reply: 'flat' }))
    const body = await get(s, 'getAllVideoIns', { requestId: 'r1' })
    expect(body).not.toHaveProperty('result')
    expect(body).toMatchObject({ command: 'getAllVideoIns', reply: 'getAllVideoIns', success: true, requestId: 'r1' })
    expect(body.videoIns).toContain('Camera 1')
    expect(await get(s, 'noSuchCommand')).toMatchObject({ command: 'noSuchCommand', error: 'unknown command' })
    const bad = await fetch(`${s.httpUrl}/api`, { method: 'POST', body: 'not json' })
    expect(await bad.json()).toMatchObject({ command: '', error: 'bad request' })
    // The bare `{}` stays bare.
    expect(await get(s, 'subscribe', { sender: 'x', events: 'play' })).toEqual({})
  })

  it('wrapped (every shipped profile): {result: {...}}', async () => {
    const s = await sim('strict-unknowns')
    expect(await get(s, 'getOutputDevice')).toMatchObject({ result: { command: 'getOutputDevice' } })
  })
})

describe('method_calls and method_order', () => {
  it('strict-unknowns: a call by name gets no reply, the same call by index does', async () => {
    const s = await sim('strict-unknowns')
    const c = await channel(s)
    const byName = c.send('scheduleCommand', ['getTime', {}, {}])
    const byIndex = c.send(c.methods.get('scheduleCommand')!, ['getTime', {}, {}])
    // Frames are handled in order: an answer to the call by name would have come before this one.
    expect(JSON.parse((await c.response(byIndex)) as string)).toMatchObject({ command: 'getTime' })
    expect(await c.response(byName, 150)).toBeUndefined()
    expect(s.ws.clientCount).toBe(1)
  })

  it('captivate answers a call by name', async () => {
    const s = await sim('captivate')
    const c = await channel(s)
    const data = await c.response(c.send('scheduleCommand', ['getTime', {}, {}]))
    expect(JSON.parse(data as string)).toMatchObject({ command: 'getTime' })
  })

  it('strict-unknowns: the indexes change with every restart(); captivate keeps them', async () => {
    const shuffled = await sim('strict-unknowns')
    const fixed = await sim('captivate')
    const layouts = async (s: SimulatorHandle): Promise<string[]> => {
      const out = [JSON.stringify(s.ws.layout('scheduler'))]
      for (let i = 0; i < 2; i++) {
        await s.restart()
        out.push(JSON.stringify(s.ws.layout('scheduler')))
      }
      return out
    }
    const [a, b, c] = await layouts(shuffled)
    expect(a).not.toBe(b)
    expect(b).not.toBe(c)
    // What a client reads from init after the restart is the new layout, and calls by it work.
    const ch = await channel(shuffled)
    expect([...ch.methods]).toEqual(JSON.parse(c!).methods)
    expect((await ch.command('getTime')).command).toBe('getTime')
    expect(new Set(await layouts(fixed)).size).toBe(1)
  })
})

describe('restart() and title_ids_on_restart', () => {
  it('drops every socket, answers again on the same ports; strict-unknowns gives every title a new id', async () => {
    const s = await sim('strict-unknowns')
    const before = (await get(s, 'getTitleControlInfo', { icon: '0' })).result.titles as Json[]
    const c = await channel(s)
    const closed = new Promise((r) => c.ws.once('close', r))
    await get(s, 'schedule', { action: 'update', id: LOWER_THIRD, Name: 'Kept' })
    const { httpUrl, wsUrl } = s
    await s.restart()
    await closed
    expect([s.httpUrl, s.wsUrl]).toEqual([httpUrl, wsUrl])
    const after = (await get(s, 'getTitleControlInfo', { icon: '0' })).result.titles as Json[]
    expect(after.map((t) => t.name as unknown)).toEqual(before.map((t) => t.name as unknown))
    for (const [i, t] of after.entries()) {
      expect(t.id).toMatch(/^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$/)
      expect(t.id).not.toBe(before[i].id)
      expect(t.variables).toEqual(before[i].id === LOWER_THIRD ? expect.anything() : before[i].variables)
    }
    const lower = after.find((t) => t.name === 'Lower Third')
    expect(lower.variables).toContainEqual({ variable: 'Name', value: 'Kept', type: 'text' })
    // The old id is gone; the new one answers, over a new socket too.
    expect((await get(s, 'getPlayStatus', { id: LOWER_THIRD })).result.error).toBeDefined()
    const c2 = await channel(s)
    expect((await c2.command('getPlayStatus', { id: lower.id })).id).toBe(lower.id)
  })

  it('captivate keeps the ids; every profile comes back with nothing on air and the default subscriptions', async () => {
    const s = await sim('captivate')
    await get(s, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    await get(s, 'subscribe', { sender: 'deck', events: 'play' })
    await s.restart()
    expect(s.state.titles.map((t) => t.id)).toContain(LOWER_THIRD)
    expect((await get(s, 'getPlayStatus', { id: LOWER_THIRD })).result.play).toBe('Off')
    expect((await get(s, 'getSubscriptions')).result.senders.map((x: Json) => x.name as unknown)).toEqual([''])
    // Notifications flow again to a client that comes back.
    const c = await channel(s)
    await get(s, 'schedule', { action: 'cutin', id: LOWER_THIRD })
    await expect.poll(() => c.notes.slice() as unknown[], WAIT).toEqual([{ id: LOWER_THIRD, play: 'Paused' }])
  })

  it('refuses after close', async () => {
    const s = await startSimulator()
    await s.close()
    await expect(s.restart()).rejects.toThrow(/closed/)
  })

  it('animations pending at the restart are dropped; changes announce the new ids (fake timers)', () => {
    vi.useFakeTimers()
    const state = new SimulatorState({
      dataDir: '/nonexistent',
      animationMs: 100,
      profile: getProfile('strict-unknowns'),
    })
    onTestFinished(() => state.close())
    const lower = state.titleById(LOWER_THIRD)!
    state.applyAction(lower, 'animateIn', new Map())
    expect(lower.playState).toBe('Running')
    const seen: string[] = []
    state.changes.on('play', (t, p) => seen.push(`play ${t.id} ${p}`))
    state.changes.on('title', (change, t) => seen.push(`${change} ${t.id}`))
    state.restarted()
    const fresh = lower.id
    expect(fresh).not.toBe(LOWER_THIRD)
    expect(lower.playState).toBe('Off')
    expect(seen.slice(0, 1)).toEqual([`play ${LOWER_THIRD} Off`])
    expect(seen).toContain(`removed ${LOWER_THIRD}`)
    expect(seen.indexOf(`added ${fresh}`)).toBe(seen.indexOf(`removed ${LOWER_THIRD}`) + 1)
    seen.length = 0
    vi.advanceTimersByTime(1000)
    // The Paused the animation was due to set never comes, under either id.
    expect(lower.playState).toBe('Off')
    expect(seen).toEqual([])
    // New animations run on the new id.
    state.applyAction(lower, 'animateIn', new Map())
    vi.advanceTimersByTime(100)
    expect(lower.playState).toBe('Paused')
  })
})
