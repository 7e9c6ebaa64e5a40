/** The contract's five subscription rules, over HTTP. */
import { describe, expect, it } from 'vitest'
import { APP_ERRORS, SENDER_EVENTS } from '../../../src/api/protocol.js'
import { useTestSim, type Json } from './helpers.js'

const t = useTestSim()

async function sender(name: string): Promise<Json> {
  const r = await t.ok('getSubscriptions', { sender: name })
  expect(r.sender).toBe(name)
  return r.senders[0]
}

describe('subscription rules', () => {
  it('rule 1: subscribe creates an unknown sender, then appends events, inputs and ids (reply {})', async () => {
    expect(await t.raw('subscribe', { sender: 'deck', events: 'play', id: '{a}', requestId: 'r1' })).toEqual({})
    expect(await sender('deck')).toEqual({ name: 'deck', id: '{a}', input: '', events: 'play', is_default: '0' })
    expect(await t.raw('subscribe', { sender: 'deck', events: 'data, play', id: '{b}', input: 'Newsroom' })).toEqual({})
    expect(await sender('deck')).toEqual({
      name: 'deck',
      id: '{a},{b}',
      input: 'Newsroom',
      events: 'play,data',
      is_default: '0',
    })
  })

  it('rule 2: a sender carries several comma-separated inputs, ids and events', async () => {
    await t.raw('subscribe', { sender: 's', events: 'play,data,control', id: '{a},{b}', input: 'Newsroom,Scoreboard' })
    const s = await sender('s')
    expect(s.events.split(',')).toEqual(['play', 'data', 'control'])
    expect(s.id.split(',')).toEqual(['{a}', '{b}'])
    expect(s.input.split(',')).toEqual(['Newsroom', 'Scoreboard'])
  })

  it('rule 3: unSubscribe removes the given parts; a sender left with no events is removed', async () => {
    await t.raw('subscribe', { sender: 's', events: 'play,data', id: '{a},{b}', input: 'Newsroom' })
    const r = await t.ok('unSubscribe', { sender: 's', id: '{a}', events: 'play' })
    expect(r.id).toBe('{a}')
    expect(await sender('s')).toMatchObject({ id: '{b}', input: 'Newsroom', events: 'data' })
    await t.ok('unSubscribe', { sender: 's', events: 'data' })
    expect((await t.ok('getSubscriptions', { sender: 's' })).senders).toEqual([])
    expect((await t.cmd('unSubscribe', { sender: 's', events: 'data' })).error).toBe(APP_ERRORS.invalidParams)
  })

  it('rule 4: the default sender cannot be unsubscribed, and stays', async () => {
    const r = await t.cmd('unSubscribe', { sender: '', events: 'play,data,control,play-data' })
    expect(r.error).toBe(APP_ERRORS.unsubscribeDefault)
    expect((await t.ok('getSubscriptions')).senders[0]).toEqual({
      name: '',
      id: '',
      input: '',
      events: SENDER_EVENTS.defaultSender,
      is_default: '1',
    })
  })

  it('rule 5: getSubscriptions lists every active sender with names, inputs, titles and events', async () => {
    await t.raw('subscribe', { sender: 'a', events: 'play' })
    await t.raw('subscribe', { sender: 'b', events: 'data', input: 'Scoreboard', id: 'all' })
    const all = await t.ok('getSubscriptions', { sender: '' })
    expect(all.senders.map((s: Json) => `${s.name}|${s.input}|${s.id}|${s.events}|${s.is_default}`)).toEqual([
      `|||${SENDER_EVENTS.defaultSender}|1`,
      'a|||play|0',
      'b|Scoreboard|all|data|0',
    ])
  })

  it('a new sender needs at least one event', async () => {
    expect((await t.cmd('subscribe', { sender: 'empty' })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.ok('getSubscriptions', { sender: 'empty' })).senders).toEqual([])
  })
})
