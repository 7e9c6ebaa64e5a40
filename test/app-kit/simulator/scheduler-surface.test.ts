/**
 * The simulator's `scheduler` object speaks the whole surface NewBlue's Captivate Companion module (S1)
 * uses (protocol notes 1.3, 2.1, 2.4, 5.9): exactly the methods and signals each profile publishes, the
 * layer state, the image set, the automation registry, feedback states and actions, the legacy XML
 * commands, the signals that follow changes, and the command log for every call on the socket.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { QWebChannelClient, type QwcSignalEvent } from '../../../src/api/qwebchannel.js'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'
import { getProfile, profileNames, schedulerMethods, schedulerSignals } from '../../../src/app-kit/simulator/profile.js'
import { SCHEDULER_CHANNEL } from '../../../src/api/protocol.js'
import { REGISTRY_NAMES } from '../../../src/app-kit/simulator/registry.js'
import { startQWebChannelSimulator } from '../../../src/app-kit/simulator/scheduler.js'
import { SimulatorState } from '../../../src/app-kit/simulator/state.js'
import type { Json } from './helpers.js'

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'
const actor = (titleId: string): string => `${REGISTRY_NAMES.actorPrefix}${titleId}`
const full = (titleId: string, id: string): string => `${actor(titleId)}~${REGISTRY_NAMES.scope}~${id}`

// Titles animate for a second by default (the application's length), so that a Running seen right after a
// call is still there on a busy machine.
const WAIT = { timeout: 5000, interval: 5 }

async function sim(profile = 'captivate', animationMs = 1000): Promise<SimulatorHandle> {
  const s = await startSimulator({ animationMs, profile })
  onTestFinished(() => s.close())
  return s
}

type Client = QWebChannelClient & { signals: QwcSignalEvent[]; call(method: string, ...args: unknown[]): Promise<Json> }

/** A client connected to every signal the scheduler publishes, recording them in order. */
async function client(url: string): Promise<Client> {
  const c = new QWebChannelClient({ url, callTimeoutMs: 3000, connectTimeoutMs: 3000 }) as Client
  onTestFinished(() => c.close())
  c.signals = []
  c.on('signal', (e) => c.signals.push(e))
  await c.connect()
  for (const name of c.published.get('scheduler')!.signals.keys()) {
    if (name !== 'destroyed' && name !== 'objectNameChanged') c.connectSignal('scheduler', name)
  }
  c.call = (method, ...args) => c.invoke('scheduler', method, args)
  // connectToSignal has no reply: a round trip makes sure the server has handled them.
  await c.call('notifyClientConnected', ['test', '1', {}])
  return c
}

function named(c: Client, signal: string): unknown[][] {
  return c.signals.filter((s) => s.signal === signal).map((s) => s.args)
}

/** Width and height of a PNG from its IHDR chunk. */
function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64.replace(/^data:image\/png;base64,/, ''), 'base64')
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

async function http(s: SimulatorHandle, command: string, params: Record<string, string> = {}): Promise<Json> {
  const res = await fetch(`${s.httpUrl}/api/command/${command}?${new URLSearchParams(params).toString()}`)
  return res.json()
}

describe('scheduler surface', () => {
  describe('what each profile publishes', () => {
    for (const name of profileNames()) {
      it(`${name}: exactly schedulerMethods and schedulerSignals of its facts`, async () => {
        const s = await sim(name)
        const c = await client(s.wsUrl)
        const info = c.published.get('scheduler')!
        const facts = getProfile(name).facts
        expect(new Set([...info.methods.keys()].filter((m) => m !== 'deleteLater'))).toEqual(
          new Set(schedulerMethods(facts)),
        )
        expect(new Set([...info.signals.keys()].filter((m) => m !== 'destroyed' && m !== 'objectNameChanged'))).toEqual(
          new Set(schedulerSignals(facts)),
        )
      })
    }
  })

  it('getValueForKey: the layer state of titles on air, lowercase, as an object; other keys null', async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    expect(await c.call('getValueForKey', SCHEDULER_CHANNEL.layerStateKey)).toEqual({})
    await c.call('scheduleAction', 'cutin', '', LOWER_THIRD, {})
    await c.call('scheduleAction', 'animateIn', '', SCORE_BUG, {})
    expect(await c.call('getValueForKey', SCHEDULER_CHANNEL.layerStateKey)).toEqual({
      [LOWER_THIRD]: { playState: 'paused' },
      [SCORE_BUG]: { playState: 'running' },
    })
    expect(await c.call('getValueForKey', 'newblue.no.such.key')).toBeNull()
  })

  it('getImageSet: the overlays S1 composites, as 72×72 PNGs, with or without the data: prefix', async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    const bare = (await c.call('getImageSet', REGISTRY_NAMES.imageSet, false)) as Record<string, string>
    expect(Object.keys(bare).sort()).toEqual(['play_layer', 'play_layer_red'])
    for (const data of Object.values(bare)) {
      expect(data.startsWith('data:')).toBe(false)
      expect(pngSize(data)).toEqual({ width: 72, height: 72 })
    }
    const prefixed = (await c.call('getImageSet', REGISTRY_NAMES.imageSet, true)) as Record<string, string>
    expect(prefixed.play_layer).toBe(`data:image/png;base64,${bare.play_layer}`)
    expect(await c.call('getImageSet', 'no.such.set', false)).toEqual({})
  })

  describe('_cmp_v1_query: the registry generated from the titles', () => {
    it('per title six actions, three feedbacks (one boolean), one v2 preset, in the shapes S1 reads', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      const titles = s.state.titles
      const { companion_actions: actions } = await c.call('_cmp_v1_query', 'actions')
      const { companion_feedbacks: feedbacks } = await c.call('_cmp_v1_query', 'feedbacks')
      const { companion_presets: presets } = await c.call('_cmp_v1_query', 'presets')
      expect(actions).toHaveLength(titles.length * 6)
      expect(feedbacks).toHaveLength(titles.length * 3)
      expect(presets).toHaveLength(titles.length)
      for (const a of actions) {
        expect(a.target.split('~')).toHaveLength(3)
        expect(typeof a.name).toBe('string')
        expect(Array.isArray(a.options)).toBe(true)
      }
      const play = actions.find((a: Json) => a.target === full(LOWER_THIRD, REGISTRY_NAMES.actions.play))
      expect(play.options[0]).toMatchObject({ id: 'command', type: 'dropdown', default: 'auto' })
      expect(play.options[0].choices.map((x: Json) => String(x.id))).toEqual([
        'auto',
        'autoin',
        'autoout',
        'take',
        'inout',
      ])
      // lib/feedbacks.js 33: `.boolean.` makes a feedback boolean; one per title.
      const booleans = feedbacks.filter((f: Json) => /\.boolean\./.test(f.id))
      expect(booleans.map((f: Json) => String(f.id)).sort()).toEqual(
        titles.map((t) => full(t.id, REGISTRY_NAMES.feedbacks.onAir)).sort(),
      )
      for (const f of feedbacks) expect(typeof f.label).toBe('string')
      const ids = new Set(feedbacks.map((f: Json) => String(f.id)))
      const targets = new Set(actions.map((a: Json) => String(a.target)))
      for (const p of presets) {
        expect(typeof p.label).toBe('string')
        expect(typeof p.category).toBe('string')
        expect(pngSize(p.bank.png64)).toEqual({ width: 72, height: 72 })
        for (const a of p.actions) expect(targets.has(a.action)).toBe(true)
        for (const f of p.feedbacks) expect(ids.has(f.type)).toBe(true)
      }
    })

    it('lastUpdateTime moves when a title is added; an unknown kind is an empty object', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      const before = (await c.call('_cmp_v1_query', 'lastUpdateTime')).companion_lastUpdateTime as string
      expect(new Date(before).toISOString()).toBe(before)
      await new Promise((r) => setTimeout(r, 5))
      await http(s, 'newTitle')
      const after = (await c.call('_cmp_v1_query', 'lastUpdateTime')).companion_lastUpdateTime as string
      expect(after > before).toBe(true)
      const { companion_actions: actions } = await c.call('_cmp_v1_query', 'actions')
      expect(actions).toHaveLength(s.state.titles.length * 6)
      expect(await c.call('_cmp_v1_query', 'nothing')).toEqual({})
    })
  })

  describe('_cmp_v1_queryFeedbackState', () => {
    it('answers JSON text of the state; the feedback id with or without its scope', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      expect(await c.call('_cmp_v1_queryFeedbackState', actor(LOWER_THIRD), 'no.such.feedback', {})).toEqual({})
      expect(
        await c.call('_cmp_v1_queryFeedbackState', actor(LOWER_THIRD), REGISTRY_NAMES.feedbacks.onAir, {}),
      ).toEqual({
        value: false,
      })
      await c.call('scheduleAction', 'cutin', '', LOWER_THIRD, {})
      for (const id of [REGISTRY_NAMES.feedbacks.onAir, `${REGISTRY_NAMES.scope}~${REGISTRY_NAMES.feedbacks.onAir}`]) {
        expect(await c.call('_cmp_v1_queryFeedbackState', actor(LOWER_THIRD), id, {})).toEqual({ value: true })
      }
      const play = await c.call(
        '_cmp_v1_queryFeedbackState',
        actor(LOWER_THIRD),
        REGISTRY_NAMES.feedbacks.playState,
        {},
      )
      expect(play).toMatchObject({ text: 'Lower Third', overlayQueryKey: LOWER_THIRD, overlayImageName: 'play_layer' })
      expect(pngSize(play.png64)).toEqual({ width: 72, height: 72 })
      expect(
        await c.call('_cmp_v1_queryFeedbackState', actor(LOWER_THIRD), REGISTRY_NAMES.feedbacks.variable, {
          variable: 'Name',
        }),
      ).toEqual({ text: 'Alex Morgan' })
      expect(await c.call('_cmp_v1_queryFeedbackState', actor('{nope}'), REGISTRY_NAMES.feedbacks.onAir, {})).toEqual(
        {},
      )
    })

    it('the reply on the wire is a JSON string', async () => {
      const s = await sim()
      const { default: WebSocket } = await import('ws')
      const ws = new WebSocket(s.wsUrl)
      onTestFinished(() => ws.terminate())
      await new Promise((r) => ws.once('open', r))
      const frames: Json[] = []
      ws.on('message', (raw: Buffer) => frames.push(JSON.parse(raw.toString())))
      ws.send(JSON.stringify({ type: 3, id: 1 }))
      await expect.poll(() => frames.length, WAIT).toBe(1)
      const methods = frames[0].data.scheduler.methods as [string, number][]
      const index = methods.find(([n]) => n === '_cmp_v1_queryFeedbackState')![1]
      ws.send(
        JSON.stringify({
          type: 6,
          object: 'scheduler',
          method: index,
          args: [actor(LOWER_THIRD), REGISTRY_NAMES.feedbacks.onAir, {}],
          id: 2,
        }),
      )
      await expect.poll(() => frames.length, WAIT).toBe(2)
      expect(frames[1].data).toBe('{"value":false}')
    })
  })

  describe('_cmp_v1_performAction runs the same handlers as schedule', () => {
    it("S1's play commands: take cuts in then out; autoin animates in then cuts out; update sets a variable", async () => {
      // Animations long enough that the Running between the call and its reply is still there on a busy machine.
      const s = await sim('captivate', 500)
      const c = await client(s.wsUrl)
      const title = s.state.titles.find((t) => t.id === LOWER_THIRD)!
      const playTarget = full(LOWER_THIRD, REGISTRY_NAMES.actions.play)
      await c.call('_cmp_v1_performAction', playTarget, { command: 'take' })
      expect(title.playState).toBe('Paused')
      await c.call('_cmp_v1_performAction', playTarget, { command: 'take' })
      expect(title.playState).toBe('Off')
      await c.call('_cmp_v1_performAction', playTarget, { command: 'autoin' })
      expect(title.playState).toBe('Running')
      await expect.poll(() => title.playState, WAIT).toBe('Paused')
      await c.call('_cmp_v1_performAction', playTarget, { command: 'autoin' })
      expect(title.playState).toBe('Off')
      await c.call('_cmp_v1_performAction', full(LOWER_THIRD, REGISTRY_NAMES.actions.updateVariable), {
        variable: 'Name',
        value: 'Robin',
        action: 'still',
      })
      expect(title.variables.find((v) => v.name === 'Name')!.value).toBe('Robin')
      await c.call('_cmp_v1_performAction', full(LOWER_THIRD, REGISTRY_NAMES.actions.cutIn), {})
      expect(title.playState).toBe('Paused')
      await c.call('_cmp_v1_performAction', full(LOWER_THIRD, REGISTRY_NAMES.actions.animateOut), {})
      expect(title.playState).toBe('Running')
      await expect.poll(() => title.playState, WAIT).toBe('Off')
    })

    it('every command S1 offers does what its label says, off air and on air', async () => {
      const s = await sim('captivate', 0)
      const c = await client(s.wsUrl)
      const title = s.state.titles.find((t) => t.id === SCORE_BUG)!
      const target = full(SCORE_BUG, REGISTRY_NAMES.actions.play)
      for (const command of Object.keys(REGISTRY_NAMES.playCommands)) {
        await c.call('_cmp_v1_performAction', target, { command })
        await expect.poll(() => title.playState, WAIT).toBe('Paused')
        await c.call('_cmp_v1_performAction', target, { command })
        await expect.poll(() => title.playState, WAIT).toBe('Off')
      }
    })

    it('an unknown target or command answers an error and changes nothing', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      expect(await c.call('_cmp_v1_performAction', 'no~such~target', {})).toMatchObject({
        error: 'unknown action target',
      })
      expect(
        await c.call('_cmp_v1_performAction', full(LOWER_THIRD, REGISTRY_NAMES.actions.play), { command: '__proto__' }),
      ).toMatchObject({ error: 'unknown play command' })
      expect(s.state.titles.every((t) => t.playState === 'Off')).toBe(true)
    })
  })

  describe('scheduleCommandXml: the legacy XML command set', () => {
    it('schedule with a legacy action and <data> variables takes a title to air and answers newblue_ext', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      const reply = await c.call(
        'scheduleCommandXml',
        `<newblue_ext command="schedule" action="update+animatein+override" id="${LOWER_THIRD}" queue="${LOWER_THIRD}"><data><variable name="Name" value="Sam &amp; Co"/></data></newblue_ext>`,
      )
      expect(reply).toBe('<newblue_ext command="schedule" reply="schedule" success="1"/>')
      const title = s.state.titles.find((t) => t.id === LOWER_THIRD)!
      expect(title.playState).toBe('Running')
      expect(title.variables.find((v) => v.name === 'Name')!.value).toBe('Sam & Co')
      // newCommandXML carries the command as it ran.
      await expect.poll(() => named(c, 'newCommandXML').length, WAIT).toBe(1)
      expect(named(c, 'newCommandXML')[0]![0]).toContain('command="schedule" action="animateIn"')
    })

    it('readTitle answers in the form the 2019 module parsed (title elements, running playState, variables)', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      // Unquoted and single-quoted attributes, as the 2019 module sent them (S2 4f39275).
      const xml = (await c.call('scheduleCommandXml', "<newblue_ext command='readTitle' channel=0 />")) as string
      expect(xml.startsWith('<newblue_ext command="readTitle" reply="readTitle" success="1">')).toBe(true)
      const titles = [...xml.matchAll(/<title [^>]*name="([^"]*)"[^>]*><running playState="(\w+)"/g)]
      expect(titles.map((m) => m[1])).toEqual(s.state.channelTitles(0).map((t) => t.name))
      expect(xml).toContain('<variables><variable name="Name" value="Alex Morgan"')
      // A read is not announced: a client re-reading on newCommandXML would loop.
      await c.call('notifyClientConnected', 'x', '1', {})
      expect(named(c, 'newCommandXML')).toEqual([])
    })

    it('a failing command keeps the dispatcher error; unreadable or unbounded XML is an error reply, never a throw', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      expect(await c.call('scheduleCommandXml', '<newblue_ext command="noSuch"/>')).toBe(
        '<newblue_ext command="noSuch" reply="noSuch" success="1" error="unknown command"/>',
      )
      const bad = [
        'not xml',
        '<newblue_ext command="getTime">',
        '<other command="getTime"/>',
        '<newblue_ext/>',
        '<!DOCTYPE x [<!ENTITY a "aaaa">]><newblue_ext command="getTime"/>',
        '<newblue_ext command="getTime" a="&a;"/>',
        `<newblue_ext command="getTime" x="${'y'.repeat(70_000)}"/>`,
        '<newblue_ext command="schedule"><a><b><c/></b></a></newblue_ext>',
        '<newblue_ext command="getTime" a="1" a="2"/>',
        42,
        null,
      ]
      for (const xml of bad) {
        const reply = (await c.call('scheduleCommandXml', xml)) as string
        expect(reply).toMatch(/^<newblue_ext command="" reply="" success="0" error="invalid xml: [^"]+"\/>$/)
      }
      expect(s.state.titles.every((t) => t.playState === 'Off')).toBe(true)
      // Nothing ran: nothing is announced (a signal would have come before the last reply).
      expect(named(c, 'newCommandXML')).toEqual([])
    })
  })

  describe('signals that follow changes', () => {
    it('with-state: a play change over HTTP sends each play feedback its new state, as the query answers', async () => {
      const s = await sim('captivate')
      const c = await client(s.wsUrl)
      await http(s, 'schedule', { action: 'cutin', id: LOWER_THIRD })
      await expect.poll(() => named(c, '_cmp_v1_handleFeedbackChangeEvent').length, WAIT).toBe(2)
      const events = named(c, '_cmp_v1_handleFeedbackChangeEvent')
      expect(events).toContainEqual([
        actor(LOWER_THIRD),
        `${REGISTRY_NAMES.scope}~${REGISTRY_NAMES.feedbacks.onAir}`,
        {},
        { value: true },
      ])
      const play = events.find((e) => e[1] === `${REGISTRY_NAMES.scope}~${REGISTRY_NAMES.feedbacks.playState}`)!
      expect(play[3]).toEqual(
        await c.call('_cmp_v1_queryFeedbackState', actor(LOWER_THIRD), REGISTRY_NAMES.feedbacks.playState, {}),
      )
      // `${actorId}~${feedbackId}` is the definition's id (captivate.js 444, 470).
      const { companion_feedbacks: feedbacks } = await c.call('_cmp_v1_query', 'feedbacks')
      for (const e of events)
        expect(feedbacks.map((f: Json) => String(f.id))).toContain(`${e[0] as string}~${e[1] as string}`)
    })

    it('empty-state (strict-unknowns) sends {}; mixed (feedback-signal-only) alternates state and {}; none sends nothing', async () => {
      const strict = await sim('strict-unknowns')
      const a = await client(strict.wsUrl)
      await http(strict, 'schedule', { action: 'cutin', id: LOWER_THIRD })
      await expect.poll(() => named(a, '_cmp_v1_handleFeedbackChangeEvent').length, WAIT).toBe(2)
      for (const e of named(a, '_cmp_v1_handleFeedbackChangeEvent')) expect(e[3]).toEqual({})

      const mixed = await sim('feedback-signal-only')
      const b = await client(mixed.wsUrl)
      const onAir = `${REGISTRY_NAMES.scope}~${REGISTRY_NAMES.feedbacks.onAir}`
      await http(mixed, 'schedule', { action: 'cutin', id: LOWER_THIRD })
      await http(mixed, 'schedule', { action: 'cutout', id: LOWER_THIRD })
      await http(mixed, 'schedule', { action: 'cutin', id: LOWER_THIRD })
      await expect.poll(() => named(b, '_cmp_v1_handleFeedbackChangeEvent').length, WAIT).toBe(6)
      expect(
        named(b, '_cmp_v1_handleFeedbackChangeEvent')
          .filter((e) => e[1] === onAir)
          .map((e) => e[3]),
      ).toEqual([{ value: true }, {}, { value: true }])

      const old = await sim('titler-live-2021')
      const d = await client(old.wsUrl)
      await http(old, 'schedule', { action: 'cutin', id: LOWER_THIRD })
      // The play notification on onNotify comes after the change: no feedback signal can follow it.
      await expect.poll(() => named(d, 'onNotify').length, WAIT).toBe(1)
      expect(d.signals.map((x) => x.signal)).toEqual(['onNotify'])
    })

    it('a variable change: the variable feedback with the options it holds, and variablesChanged per input', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      await c.call('scheduleAction', 'update', '', LOWER_THIRD, { Name: 'Robin' })
      await expect.poll(() => named(c, 'variablesChanged').length, WAIT).toBe(1)
      expect(named(c, 'variablesChanged')[0]).toEqual(['Newsroom', { Name: 'Robin' }])
      expect(named(c, '_cmp_v1_handleFeedbackChangeEvent')).toEqual([
        [
          actor(LOWER_THIRD),
          `${REGISTRY_NAMES.scope}~${REGISTRY_NAMES.feedbacks.variable}`,
          { variable: 'Name' },
          { text: 'Robin' },
        ],
      ])
    })

    it('a title added or removed: _cmp_v1_handleActorRegistryChangeEvent with its actor', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      await http(s, 'newTitle')
      const added = s.state.titles.at(-1)!
      await expect.poll(() => named(c, '_cmp_v1_handleActorRegistryChangeEvent').length, WAIT).toBe(3)
      expect(named(c, '_cmp_v1_handleActorRegistryChangeEvent')).toEqual([
        ['actions', actor(added.id)],
        ['feedbacks', actor(added.id)],
        ['presets', actor(added.id)],
      ])
      await http(s, 'deleteTitle', { id: added.id })
      await expect.poll(() => named(c, '_cmp_v1_handleActorRegistryChangeEvent').length, WAIT).toBe(4)
      expect(named(c, '_cmp_v1_handleActorRegistryChangeEvent')[3]).toEqual(['actorDelete', actor(added.id)])
    })

    it('messageIn goes to every client connected to it (the handle sends it)', async () => {
      const state = new SimulatorState({ dataDir: '/nonexistent-not-written' })
      onTestFinished(() => state.close())
      const q = await startQWebChannelSimulator({ backend: state, port: 0, host: '127.0.0.1' })
      onTestFinished(() => q.close())
      const c = await client(q.url)
      expect(q.message('captivate', 'companion-module', '{"reload":true}')).toBe(1)
      await expect
        .poll(() => named(c, 'messageIn'), WAIT)
        .toEqual([['captivate', 'companion-module', '{"reload":true}']])
    })
  })

  it('the command log sees every call on the socket, with transport qwebchannel', async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    s.http.reset()
    await c.call('getValueForKey', SCHEDULER_CHANNEL.layerStateKey)
    await c.call('getImageSet', REGISTRY_NAMES.imageSet, false)
    await c.call('_cmp_v1_query', 'actions')
    await c.call('_cmp_v1_queryFeedbackState', actor(LOWER_THIRD), REGISTRY_NAMES.feedbacks.onAir, {})
    await c.call('_cmp_v1_performAction', full(LOWER_THIRD, REGISTRY_NAMES.actions.cutIn), {})
    await c.call('scheduleCommandXml', '<newblue_ext command="getTime"/>')
    await c.call('scheduleCommandXml', 'garbage')
    await c.call('scheduleCommand', 'getTime', {}, {})
    await c.call('scheduleAction', 'cutout', '', LOWER_THIRD, {})
    await c.call('notifyClientConnected', 'com.example', '2.0', {})
    expect(s.http.log.map((e) => [e.name, e.transport])).toEqual([
      ['getValueForKey', 'qwebchannel'],
      ['getImageSet', 'qwebchannel'],
      ['_cmp_v1_query', 'qwebchannel'],
      ['_cmp_v1_queryFeedbackState', 'qwebchannel'],
      ['_cmp_v1_performAction', 'qwebchannel'],
      ['scheduleCommandXml', 'qwebchannel'],
      ['scheduleCommandXml', 'qwebchannel'],
      ['getTime', 'qwebchannel'],
      ['scheduleAction', 'qwebchannel'],
      ['notifyClientConnected', 'qwebchannel'],
    ])
    expect(s.http.commands('_cmp_v1_performAction')[0]!.parameters).toEqual({
      target: full(LOWER_THIRD, REGISTRY_NAMES.actions.cutIn),
      options: {},
    })
    expect(s.http.commands('scheduleCommandXml').map((e) => e.parameters)).toEqual([
      { command: 'getTime' },
      { xml: 'garbage' },
    ])
  })

  it('getTitleControlInfo with icon: 1 carries each thumbnail as a PNG data URL of exactly the size asked', async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    for (const [width, height] of [
      [72, 72],
      [40, 30],
    ] as const) {
      const reply = await c.call('scheduleCommand', 'getTitleControlInfo', { icon: 1, width, height }, {})
      expect(reply.titles).toHaveLength(s.state.titles.length)
      for (const t of reply.titles) {
        expect(t.image.startsWith('data:image/png;base64,')).toBe(true)
        expect(pngSize(t.image)).toEqual({ width, height })
      }
    }
    // Sides are bounded: an icon too big to draw is refused, not drawn.
    expect(
      await c.call('scheduleCommand', 'getTitleControlInfo', { icon: 1, width: 100_000, height: 72 }, {}),
    ).toMatchObject({ error: 'invalid params' })
  })
})
