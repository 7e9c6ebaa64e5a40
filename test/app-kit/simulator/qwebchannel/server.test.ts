/**
 * The simulator's QWebChannel server with the scheduler it publishes, through the real client: the
 * session, commands, notifications and the client info. Hostile clients are in bounds.test.ts.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { QWebChannelClient, QWebChannelError } from '../../../../src/api/qwebchannel.js'
import { getProfile } from '../../../../src/app-kit/simulator/profile.js'
import { startSimulator, type SimulatorHandle } from '../../../../src/app-kit/simulator/index.js'
import { openJsonSocket } from '../../../helpers/json-socket.js'
import { simulatorForTest } from '../helpers.js'

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const BREAKING = '{5e8d2f6a-4b3c-4d1e-a9f0-7c8b9a0d1e03}'

const sim = (): Promise<SimulatorHandle> => simulatorForTest(30)

async function client(url: string, callTimeoutMs = 2000): Promise<QWebChannelClient & { notes: unknown[] }> {
  const c = new QWebChannelClient({ url, callTimeoutMs, connectTimeoutMs: 2000 }) as QWebChannelClient & {
    notes: unknown[]
  }
  onTestFinished(() => c.close())
  c.notes = []
  c.on('signal', (e) => {
    if (e.signal === 'onNotify') c.notes.push(JSON.parse(e.args[0] as string))
  })
  await c.connect()
  c.connectSignal('scheduler', 'onNotify')
  // connectToSignal has no reply: a round trip makes sure the server has handled it.
  await c.invoke('scheduler', 'notifyClientConnected', ['test', '1', {}])
  return c
}

/** How long and how often `expect.poll` looks. */
const WAIT = { timeout: 3000, interval: 5 }

describe('simulator QWebChannel server', () => {
  it('publishes the scheduler with its methods and the onNotify signal', async () => {
    const s = await sim()
    expect(s.wsUrl).toBe(`ws://127.0.0.1:${s.wsPort}`)
    const c = await client(s.wsUrl)
    const info = c.published.get('scheduler')!
    for (const m of ['scheduleCommand', 'scheduleAction', 'notifyClientConnected'])
      expect(info.methods.has(m)).toBe(true)
    expect(info.signals.has('onNotify')).toBe(true)
    expect(info.properties[0]).toEqual([
      0,
      'objectName',
      ['objectNameChanged', info.signals.get('objectNameChanged')],
      'scheduler',
    ])
  })

  it("scheduleCommand answers the HTTP reply's fields flat, without result (protocol notes 1.3, S1)", async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    const overWs = await c.invoke('scheduler', 'scheduleCommand', ['getTitleControlInfo', { icon: '0' }, {}])
    const overHttp = (await (await fetch(`${s.httpUrl}/api/command/getTitleControlInfo?icon=0`)).json()) as {
      result: unknown
    }
    expect(overWs).toEqual(overHttp.result)
    expect((overWs as { titles: unknown[] }).titles).toHaveLength(s.state.titles.length)
    expect(await c.invoke('scheduler', 'scheduleCommand', ['noSuchCommand', {}, {}])).toMatchObject({
      error: 'unknown command',
    })
  })

  it('the default profile answers scheduleCommand over the socket with a flat JSON string, nothing else', async () => {
    const s = await sim()
    const { ws, messages: frames } = await openJsonSocket<Record<string, unknown>>(s.wsUrl)
    onTestFinished(() => ws.terminate())
    ws.send(JSON.stringify({ type: 3, id: 1 }))
    await expect.poll(() => frames.length, WAIT).toBe(1)
    const methods = (frames[0]!.data as { scheduler: { methods: [string, number][] } }).scheduler.methods
    const index = methods.find(([n]) => n === 'scheduleCommand')![1]
    const calls: [string, unknown][] = [
      ['getTitleControlInfo', { icon: 0 }],
      ['getOutputDevice', {}],
      ['subscribe', { sender: 'x', events: 'play' }],
      ['noSuchCommand', {}],
    ]
    calls.forEach(([command, params], i) =>
      ws.send(JSON.stringify({ type: 6, object: 'scheduler', method: index, args: [command, params, {}], id: 10 + i })),
    )
    await expect.poll(() => frames.length, WAIT).toBe(1 + calls.length)
    for (const frame of frames.slice(1)) {
      expect(typeof frame.data).toBe('string')
      const parsed = JSON.parse(frame.data as string) as Record<string, unknown>
      expect(parsed).not.toHaveProperty('result')
    }
    expect(JSON.parse(frames[1]!.data as string)).toMatchObject({ command: 'getTitleControlInfo', success: true })
    expect(JSON.parse(frames[2]!.data as string)).toMatchObject({ command: 'getOutputDevice', device: 'NDI' })
    expect(JSON.parse(frames[4]!.data as string)).toMatchObject({ error: 'unknown command' })
  })

  it('notifyClientConnected answers with the application info as JSON text', async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    expect(await c.invoke('scheduler', 'notifyClientConnected', ['com.example', '2.0', {}])).toEqual(
      getProfile().clientInfo,
    )
    expect(s.wsAnnouncements.at(-1)).toEqual({ appId: 'com.example', version: '2.0' })
  })

  it('scheduleAction plays a title and sends each notification once to every client', async () => {
    const s = await sim()
    const a = await client(s.wsUrl)
    const b = await client(s.wsUrl)
    await a.invoke('scheduler', 'scheduleAction', ['cutin', '', LOWER_THIRD, {}])
    expect(s.state.titles.find((t) => t.id === LOWER_THIRD)?.playState).toBe('Paused')
    // A second notification is the positive signal: a duplicate of the first would have come before it.
    await a.invoke('scheduler', 'scheduleAction', ['cutout', '', LOWER_THIRD, {}])
    const both = [
      { id: LOWER_THIRD, play: 'Paused' },
      { id: LOWER_THIRD, play: 'Off' },
    ]
    await expect.poll(() => a.notes, WAIT).toEqual(both)
    await expect.poll(() => b.notes, WAIT).toEqual(both)
  })

  it('scheduleAction with variables sends a data notification; by input it reaches every title of the input', async () => {
    const s = await sim()
    const c = await client(s.wsUrl)
    await c.invoke('scheduler', 'scheduleAction', ['update', '', LOWER_THIRD, { Name: 'Robin' }])
    await expect.poll(() => c.notes.length, WAIT).toBe(1)
    expect(c.notes[0]).toEqual({ event: 'data', id: LOWER_THIRD, variables: [{ name: 'Name', value: 'Robin' }] })
    await c.invoke('scheduler', 'scheduleAction', ['cutin', 'Newsroom', '', {}])
    await expect.poll(() => c.notes.length, WAIT).toBe(3)
    expect(c.notes.slice(1)).toEqual(
      expect.arrayContaining([
        { id: LOWER_THIRD, play: 'Paused' },
        { id: BREAKING, play: 'Paused' },
      ]),
    )
  })

  it('sends notifications only when a subscription matches', async () => {
    const s = await sim()
    s.state.senders = s.state.senders.filter((x) => !x.isDefault)
    const c = await client(s.wsUrl)
    await c.invoke('scheduler', 'scheduleAction', ['cutin', '', LOWER_THIRD, {}])
    // The socket keeps order: a notification sent by the action would have come before its reply.
    expect(c.notes).toEqual([])
    expect(
      await c.invoke('scheduler', 'scheduleCommand', [
        'subscribe',
        { sender: 't', events: 'play', id: '', input: '' },
        {},
      ]),
    ).toEqual({})
    await c.invoke('scheduler', 'scheduleAction', ['cutout', '', LOWER_THIRD, {}])
    await expect.poll(() => c.notes.length, WAIT).toBe(1)
    expect(c.notes).toEqual([{ id: LOWER_THIRD, play: 'Off' }])
  })

  it('answers scheduleCommand called by name (Qt 5.15 style)', async () => {
    const s = await sim()
    const { ws, messages: frames } = await openJsonSocket<Record<string, unknown>>(s.wsUrl)
    onTestFinished(() => ws.terminate())
    ws.send(
      JSON.stringify({ type: 6, object: 'scheduler', method: 'scheduleCommand', args: ['getTime', {}, {}], id: 7 }),
    )
    await expect.poll(() => frames.length, WAIT).toBe(1)
    const msg = frames[0]!
    expect(msg).toMatchObject({ type: 10, id: 7 })
    expect(JSON.parse(msg.data as string)).toMatchObject({ command: 'getTime' })
  })

  describe('test hooks', () => {
    it('dropAll closes every socket', async () => {
      const s = await sim()
      const a = await client(s.wsUrl)
      const b = await client(s.wsUrl)
      const closed = Promise.all([new Promise((r) => a.once('close', r)), new Promise((r) => b.once('close', r))])
      expect(s.ws.clientCount).toBe(2)
      s.ws.dropAll()
      await closed
      expect(a.isOpen || b.isOpen).toBe(false)
    })

    it('silent: the socket stays open but nothing is answered, no pong, no notification', async () => {
      const s = await sim()
      const c = await client(s.wsUrl, 100)
      s.ws.setSilent(true)
      c.lastActivity = 0
      c.ping()
      s.state.notifications.emit('notify', { id: LOWER_THIRD, play: 'Running' })
      // The call's time-out (100 ms) is the signal: the pong and the notification were due long before.
      const err = await c.invoke('scheduler', 'scheduleCommand', ['getTime', {}, {}]).catch((e: unknown) => e)
      expect((err as QWebChannelError).code).toBe('TIMEOUT')
      expect(c.isOpen).toBe(true)
      expect(c.lastActivity).toBe(0)
      expect(c.notes).toEqual([])
      s.ws.setSilent(false)
      expect(await c.invoke('scheduler', 'notifyClientConnected', ['x', '1', {}])).toEqual(getProfile().clientInfo)
    })

    it('delays replies', async () => {
      const s = await sim()
      const c = await client(s.wsUrl, 80)
      s.ws.setReplyDelay(300)
      const err = await c.invoke('scheduler', 'scheduleCommand', ['getTime', {}, {}]).catch((e: unknown) => e)
      expect((err as QWebChannelError).code).toBe('TIMEOUT')
      s.ws.setReplyDelay(0)
      expect(await c.invoke('scheduler', 'notifyClientConnected', ['x', '1', {}])).toEqual(getProfile().clientInfo)
    })

    it('sends a garbage frame that a client survives', async () => {
      const s = await sim()
      const c = await client(s.wsUrl)
      const frames: string[] = []
      const raw = new WebSocket(s.wsUrl)
      onTestFinished(() => raw.terminate())
      raw.on('message', (d: Buffer) => frames.push(d.toString()))
      await new Promise((r) => raw.once('open', r))
      s.ws.sendGarbage('garbage{')
      await expect.poll(() => frames.length, WAIT).toBe(1)
      expect(frames).toEqual(['garbage{'])
      expect(await c.invoke('scheduler', 'notifyClientConnected', ['x', '1', {}])).toEqual(getProfile().clientInfo)
    })

    it('stops and restarts on the same port with a shuffled method order', async () => {
      const s = await sim()
      const before = s.ws.layout('scheduler')!
      await s.ws.stop()
      const refused = await new QWebChannelClient({ url: s.wsUrl, connectTimeoutMs: 500 })
        .connect()
        .catch((e: unknown) => e)
      expect((refused as QWebChannelError).code).toBe('DISCONNECTED')
      await s.ws.restart({ shuffle: true })
      const after = s.ws.layout('scheduler')!
      expect(s.wsUrl).toBe(`ws://127.0.0.1:${s.wsPort}`)
      expect(JSON.stringify(after)).not.toBe(JSON.stringify(before))
      expect(new Set(after.methods.map(([n]) => n))).toEqual(new Set(before.methods.map(([n]) => n)))
      const c = await client(s.wsUrl)
      expect(c.methodIndex('scheduler', 'scheduleAction')).toBe(after.methods.find(([n]) => n === 'scheduleAction')![1])
      await c.invoke('scheduler', 'scheduleAction', ['cutin', '', LOWER_THIRD, {}])
      await expect.poll(() => c.notes.length, WAIT).toBe(1)
    })
  })

  it('close() stops the WebSocket side too', async () => {
    const s = await startSimulator()
    const url = s.wsUrl
    await s.close()
    const err = await new QWebChannelClient({ url, connectTimeoutMs: 500 }).connect().catch((e: unknown) => e)
    expect((err as QWebChannelError).code).toBe('DISCONNECTED')
  })
})
