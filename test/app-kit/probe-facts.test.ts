/**
 * probe's reading of what it saw (src/app-kit/probe-facts.ts), on hand-made observations: each fact's
 * value, `none` only with evidence and a subscription that covers the event, `unchecked` with the
 * reason otherwise; panelbridge's other assumptions held or differing.
 */
import { describe, expect, it } from 'vitest'
import {
  checkAssumptions,
  classifyNotification,
  observeFacts,
  pngSize,
  type ProbeObservations,
  type ReplySeen,
  type TitlePoll,
} from '../../src/app-kit/probe-facts.js'
import { factVerdicts } from '../../src/app-kit/probe-command.js'
import { iconDataUrl } from '../../src/app-kit/simulator/png.js'
import { getProfile } from '../../src/app-kit/simulator/profile.js'

const ID = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const ID2 = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'

const SCHEDULER_METHODS = ['scheduleCommand', 'notifyClientConnected', 'getValueForKey', '_cmp_v1_query']
const SCHEDULER_SIGNALS = ['onNotify', '_cmp_v1_handleFeedbackChangeEvent']

function indexes(names: string[], from = 0): Map<string, number> {
  return new Map(names.map((n, i) => [n, from + i]))
}

/** Subscriptions as getSubscriptions lists them: the default sender covering `events`. */
function subscriptions(events: string): ReplySeen {
  return {
    transport: 'http',
    command: 'getSubscriptions',
    shape: { encoding: 'string', envelope: 'wrapped' },
    fields: { sender: '', senders: [{ name: '', events, is_default: '1' }] },
  }
}

function poll(t: number, status: string, layer?: Record<string, string>, variables = '[]'): TitlePoll {
  return { t, titles: [{ id: ID, status, variables }], ...(layer ? { layer } : {}) }
}

function obs(over: Partial<ProbeObservations> = {}): ProbeObservations {
  return {
    http: { reached: true },
    socket: { reached: true, scheduler: true },
    replies: [subscriptions('play,control,data,play-data')],
    inits: [
      { methods: indexes(SCHEDULER_METHODS, 8), signals: indexes(SCHEDULER_SIGNALS) },
      { methods: indexes(SCHEDULER_METHODS, 8), signals: indexes(SCHEDULER_SIGNALS) },
    ],
    layerReads: [{}],
    registry: [],
    signals: [],
    polls: [poll(0, 'Off'), poll(1000, 'Off')],
    listened: true,
    ...over,
  }
}

function fact(o: ProbeObservations, name: string): { value?: unknown; others?: unknown[]; seen: string } {
  return observeFacts(o).find((f) => f.fact === name)!
}

function assumption(o: ProbeObservations, name: string): { verdict: string; seen: string } {
  return checkAssumptions(o).find((a) => a.name === name)!
}

describe('classifyNotification', () => {
  it.each([
    [JSON.stringify({ id: ID, play: 'Running' }), 'id-play'],
    [JSON.stringify({ event: 'play', id: ID, play: 'Paused' }), 'event-play'],
    [JSON.stringify({ event: 'data', id: ID, variables: [] }), 'event-data'],
    [JSON.stringify({ data: 'Update' }), 'data-update'],
    [JSON.stringify({ control: 'addTitle' }), 'control-add-title'],
    [JSON.stringify({ control: 'removeTitle' }), 'control-other'],
    [JSON.stringify({ event: 'customMessage', to: 'x' }), 'event-other'],
    [JSON.stringify({ id: ID }), 'unknown'],
    ['[1,2]', 'unknown'],
    ['not json', 'not-json'],
    [{ id: ID, play: 'Off' }, 'id-play'],
    [42, 'unknown'],
  ])('%j is %s', (arg, kind) => {
    expect(classifyNotification(arg)).toBe(kind)
  })
})

describe('the facts announced on onNotify', () => {
  it('take the form that arrived', () => {
    const o = obs({
      signals: [
        { t: 10, signal: 'onNotify', args: [JSON.stringify({ event: 'play', id: ID, play: 'Running' })] },
        { t: 11, signal: 'onNotify', args: [JSON.stringify({ data: 'Update' })] },
      ],
    })
    expect(fact(o, 'play_notification')).toMatchObject({ value: 'event-play' })
    expect(fact(o, 'data_notification')).toMatchObject({ value: 'data-update' })
  })

  it('are `none` when the change showed in the reads and no message came, with a subscription covering it', () => {
    const o = obs({
      polls: [poll(0, 'Off', {}, '[a]'), poll(1000, 'Running', { [ID]: 'running' }, '[b]')],
    })
    expect(fact(o, 'play_notification')).toMatchObject({ value: 'none' })
    expect(fact(o, 'play_notification').seen).toContain(`${ID} went Off → Running`)
    expect(fact(o, 'data_notification')).toMatchObject({ value: 'none' })
  })

  it('stay unchecked when no subscription covers the event (probe does not subscribe)', () => {
    const o = obs({
      replies: [subscriptions('data')],
      polls: [poll(0, 'Off'), poll(1000, 'Running')],
    })
    const play = fact(o, 'play_notification')
    expect(play.value).toBeUndefined()
    expect(play.seen).toContain("no subscription covers 'play' events")
  })

  it('stay unchecked with nothing to see, and say what to do', () => {
    const o = obs()
    expect(fact(o, 'play_notification')).toEqual({
      fact: 'play_notification',
      seen: "nothing to see: play a title in the application (a title's play state did not change) while probe listens",
    })
    expect(fact(o, 'title_added').seen).toContain('add a title')
  })

  it('see a title added from the reads', () => {
    const o = obs({
      polls: [poll(0, 'Off'), { t: 1, titles: [...poll(1, 'Off').titles, { id: ID2, variables: '[]' }] }],
    })
    expect(fact(o, 'title_added')).toMatchObject({ value: 'none' })
    expect(fact(o, 'title_added').seen).toContain(ID2)
  })
})

describe('the other facts', () => {
  it('socket_reply: the most frequent shape, the others kept; the verdict differs when any differs', () => {
    const reply = (envelope: 'flat' | 'wrapped', encoding: 'string' | 'object'): ReplySeen => ({
      transport: 'socket',
      command: 'getOutputDevice',
      shape: { envelope, encoding },
      fields: { device: 'NDI' },
    })
    const o = obs({ replies: [reply('flat', 'string'), reply('flat', 'string'), reply('wrapped', 'object')] })
    const f = fact(o, 'socket_reply')
    expect(f).toMatchObject({ value: 'flat-string', others: ['wrapped-object'] })
    const verdict = factVerdicts(observeFacts(o), getProfile('captivate')).find((v) => v.fact === 'socket_reply')!
    expect(verdict.verdict).toBe('differs')
    expect(verdict.seen).toContain('flat-string and wrapped-object')
  })

  it('title_status: layer-state-only when the status does not follow a play the layer state shows', () => {
    const o = obs({ polls: [poll(0, 'Off', {}), poll(1000, 'Off', { [ID]: 'running' })] })
    expect(fact(o, 'title_status')).toMatchObject({ value: 'layer-state-only' })
    const none = obs({ polls: [{ t: 0, titles: [{ id: ID, variables: '[]' }] }] })
    expect(fact(none, 'title_status')).toMatchObject({ value: 'layer-state-only' })
    expect(fact(obs(), 'title_status')).toMatchObject({ value: 'in-title-list' })
  })

  it('layer_state: an object from getValueForKey; false when it is not published or answers no object', () => {
    expect(fact(obs({ layerReads: [{ [ID]: { playState: 'running' } }] }), 'layer_state').value).toBe(true)
    expect(fact(obs({ layerReads: [''] }), 'layer_state').value).toBe(false)
    const unpublished = obs({
      inits: [{ methods: indexes(['scheduleCommand']), signals: indexes(['onNotify']) }],
    })
    expect(fact(unpublished, 'layer_state')).toMatchObject({ value: false, seen: 'getValueForKey is not published' })
    expect(fact(obs({ socket: { reached: false, scheduler: false } }), 'layer_state').value).toBeUndefined()
  })

  it('feedback_signal: with a state, empty (an empty object as JSON text too), mixed, silent', () => {
    const fb = (state: unknown): { t: number; signal: string; args: unknown[] } => ({
      t: 1,
      signal: '_cmp_v1_handleFeedbackChangeEvent',
      args: ['actor', 'feedback', {}, state],
    })
    expect(fact(obs({ signals: [fb({ value: true })] }), 'feedback_signal').value).toBe('with-state')
    expect(fact(obs({ signals: [fb('{}'), fb(null)] }), 'feedback_signal').value).toBe('empty-state')
    expect(fact(obs({ signals: [fb('{"text":"x"}'), fb({})] }), 'feedback_signal').value).toBe('mixed')
    const silent = obs({ polls: [poll(0, 'Off'), poll(1, 'Paused')] })
    expect(fact(silent, 'feedback_signal')).toMatchObject({ value: 'none' })
    expect(fact(obs(), 'feedback_signal').value).toBeUndefined()
  })

  it('values: numbers sent as text make `strings`; flags and strings say nothing', () => {
    const info = (frameRate: unknown): ReplySeen => ({
      transport: 'socket',
      command: 'replay_get_play_info',
      shape: { envelope: 'flat', encoding: 'string' },
      fields: { frameRate, replayDuration: 20 },
    })
    expect(fact(obs({ replies: [info('29.97')] }), 'values')).toMatchObject({ value: 'strings' })
    expect(fact(obs({ replies: [info(29.97)] }), 'values')).toMatchObject({ value: 'contract-types' })
    expect(fact(obs({ replies: [subscriptions('play')] }), 'values').value).toBeUndefined()
  })

  it('method_order: shuffled when two connections give other indexes; unchecked when they agree', () => {
    const shuffled = obs({
      inits: [
        { methods: indexes(SCHEDULER_METHODS, 8), signals: indexes(SCHEDULER_SIGNALS) },
        { methods: indexes([...SCHEDULER_METHODS].reverse(), 8), signals: indexes(SCHEDULER_SIGNALS) },
      ],
    })
    expect(fact(shuffled, 'method_order')).toMatchObject({ value: 'shuffled-per-start' })
    expect(fact(obs(), 'method_order').value).toBeUndefined()
    expect(fact(obs(), 'method_calls').value).toBeUndefined()
    expect(fact(obs(), 'title_ids_on_restart').value).toBeUndefined()
  })
})

describe("panelbridge's other assumptions", () => {
  const titles = (image: string, status: unknown = 'Off'): ReplySeen => ({
    transport: 'http',
    command: 'getTitleControlInfo',
    shape: { encoding: 'string', envelope: 'wrapped' },
    requestId: 'r1',
    fields: {
      requestId: 'r1',
      titles: [{ id: ID, name: 'Lower Third', status, image, variables: [{ variable: 'Name', value: 'A' }] }],
    },
  })

  it('the requestId echo: held, missing, or another one', () => {
    expect(assumption(obs({ replies: [titles('')] }), 'request-id-echo-http').verdict).toBe('held')
    const missing = titles('')
    delete missing.fields!.requestId
    expect(assumption(obs({ replies: [missing] }), 'request-id-echo-http').seen).toContain('not echoed')
    const other = titles('')
    other.fields!.requestId = 'r2'
    expect(assumption(obs({ replies: [other] }), 'request-id-echo-http')).toMatchObject({ verdict: 'differs' })
    expect(assumption(obs({ replies: [] }), 'request-id-echo-socket').verdict).toBe('unchecked')
  })

  it('an error beside success true is held (panelbridge reads the error)', () => {
    const failed: ReplySeen = {
      transport: 'http',
      command: 'getOutputDevice',
      shape: { encoding: 'string', envelope: 'wrapped' },
      fields: { success: true, error: 'no device' },
      error: 'no device',
    }
    expect(assumption(obs({ replies: [failed] }), 'error-beside-success').verdict).toBe('held')
    expect(assumption(obs(), 'error-beside-success').verdict).toBe('unchecked')
  })

  it('icons: 72×72 PNG data URLs held, another size or no PNG differs', () => {
    expect(assumption(obs({ replies: [titles(iconDataUrl(72, 72, '#123456'))] }), 'title-icons').verdict).toBe('held')
    const small = assumption(obs({ replies: [titles(iconDataUrl(96, 54, '#123456'))] }), 'title-icons')
    expect(small).toMatchObject({ verdict: 'differs' })
    expect(small.seen).toContain('96×54 PNG')
    expect(pngSize('data:image/jpeg;base64,AAAA')).toBeUndefined()
    expect(pngSize(`data:image/png;base64,${Buffer.from('not a png at all, not at all').toString('base64')}`)).toBe(
      undefined,
    )
  })

  it('play states outside the known vocabulary differ; braced ids held', () => {
    const o = obs({ replies: [titles('', 'Cued')] })
    expect(assumption(o, 'play-states')).toMatchObject({ verdict: 'differs' })
    expect(assumption(o, 'play-states').seen).toContain('Cued')
    expect(assumption(o, 'braced-title-ids').verdict).toBe('held')
  })

  it('notifyClientConnected: JSON text with its six fields held, an object differs', () => {
    const info = { buildDate: 'a', buildTime: 'b', host: 'c', platform: 'd', sku: 'e', version: 'f' }
    expect(assumption(obs({ clientInfo: JSON.stringify(info) }), 'client-info').verdict).toBe('held')
    const asObject = assumption(obs({ clientInfo: info }), 'client-info')
    expect(asObject).toMatchObject({ verdict: 'differs' })
    expect(asObject.seen).toContain('an object')
    expect(assumption(obs({ clientInfo: '{"host":"x"}' }), 'client-info').seen).toContain('without buildDate')
  })

  it('notification forms: unknown forms and objects in place of JSON text differ', () => {
    const o = obs({
      signals: [
        { t: 1, signal: 'onNotify', args: [JSON.stringify({ id: ID, play: 'Running' })] },
        { t: 2, signal: 'onNotify', args: [{ id: ID, play: 'Off' }] },
        { t: 3, signal: 'onNotify', args: ['{"weird":1}'] },
      ],
    })
    expect(assumption(o, 'broadcast-notifications').verdict).toBe('held')
    const forms = assumption(o, 'notification-forms')
    expect(forms.verdict).toBe('differs')
    expect(forms.seen).toContain('not as one JSON text argument')
    expect(forms.seen).toContain('unknown ×1')
  })

  it('the registry: companion_<kind> in each answer, as text or object', () => {
    const good = obs({
      registry: [
        { kind: 'actions', reply: { companion_actions: {} } },
        { kind: 'presets', reply: '{"companion_presets":[]}' },
      ],
    })
    expect(assumption(good, 'registry-shape').verdict).toBe('held')
    const bad = obs({ registry: [{ kind: 'feedbacks', reply: { feedbacks: [] } }] })
    expect(assumption(bad, 'registry-shape')).toMatchObject({ verdict: 'differs' })
  })
})
