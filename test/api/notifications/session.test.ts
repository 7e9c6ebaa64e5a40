/**
 * The notification link's session: which signal it reads, one socket and one session per start, the
 * subscribe (injected or over the socket) and its failures, pending calls, and what the link tells the
 * store and the log. Against the scheduler of ./harness.ts on a real socket; time is a fake clock wherever
 * it is the subject. Cases from the former notifications-mutants.test.ts (mutation survivors).
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { LINK_TUNABLES, type Notification } from '../../../src/api/notifications.js'
import { setLogLevel } from '../../../src/log.js'
import { captureLogs, startLevel } from '../../helpers/logs.js'
import { nextPhase } from '../../helpers/link.js'
import { nested, WAIT, linkTo, next, plainScheduler } from './harness.js'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('session', () => {
  it('reads only scheduler.onNotify: the same payload on another signal or object changes nothing', async () => {
    const server = await plainScheduler()
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const seen: Notification[] = []
    link.on('notification', (n) => seen.push(n))
    server.frame('other', 'onNotify', { id: 'A', play: 'Running' })
    server.frame('scheduler', 'onOther', { id: 'A', play: 'Running' })
    server.notify({ id: 'A', play: 'Paused' })
    await expect.poll(() => seen.length, WAIT).toBe(1)
    expect(seen).toEqual([{ kind: 'play', id: 'A', play: 'Paused' }])
  })

  it('start() twice opens one socket and one session', async () => {
    const server = await plainScheduler()
    const { store, link } = linkTo(server)
    link.start()
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(server.count('notifyClientConnected')).toBe(1)
    expect(server.sockets).toBe(1)
  })

  it('an injected subscribe is called with the sender and events on every connect, instead of the socket', async () => {
    const server = await plainScheduler()
    const subscribed: [string, string][] = []
    const { store, link } = linkTo(server, {
      sender: 'deck-1',
      timing: { backoffInitialMs: 10 },
      subscribe: (sender, events) => {
        subscribed.push([sender, events])
        return Promise.resolve()
      },
    })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.drop()
    await expect.poll(() => subscribed.length, WAIT).toBe(2)
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(subscribed).toEqual([
      ['deck-1', 'play,data,control'],
      ['deck-1', 'play,data,control'],
    ])
    expect(server.count('subscribe')).toBe(0)
  })

  it("a refused subscription fails the session with the application's reason", async () => {
    const records = captureLogs()
    const server = await plainScheduler({
      answer: (command) => (command === 'subscribe' ? { result: { error: 'no such sender' } } : undefined),
    })
    const { store, link } = linkTo(server)
    const down = nextPhase(link, 'waiting-to-retry')
    link.start()
    await down
    expect(store.link).toMatchObject({ status: 'stale', error: 'subscribe refused: no such sender' })
    expect(records.find((r) => r.level === 'warn')?.fields).toMatchObject({ code: 'BAD_REPLY' })
    expect(server.count('getTitleControlInfo')).toBe(0)
  })

  it('a socket lost while an injected subscribe is pending: the late subscribe does not revive the session', async () => {
    let release: () => void = () => undefined
    const server = await plainScheduler()
    const subscribed = new Promise<void>((r) => (release = r))
    let asked = 0
    const subscribe = (): Promise<void> => (asked++, subscribed)
    const { link, phases } = linkTo(server, { timing: { backoffInitialMs: 60_000 }, subscribe })
    link.start()
    await expect.poll(() => asked, WAIT).toBe(1)
    const down = nextPhase(link, 'waiting-to-retry')
    server.drop()
    await down
    release()
    await subscribed
    // The session's next step would run a turn after the subscribe resolved.
    await new Promise((r) => setImmediate(r))
    expect(phases).toEqual(['connecting', 'waiting-to-retry'])
    expect(server.count('getTitleControlInfo')).toBe(0)
  })

  it('a subscribe that rejects with something other than an Error is reported as its JSON text', async () => {
    const server = await plainScheduler()
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
    const { store, link } = linkTo(server, { subscribe: () => Promise.reject({ why: 'nope' }) })
    const down = nextPhase(link, 'waiting-to-retry')
    link.start()
    await down
    expect(store.link).toMatchObject({ status: 'stale', error: '{"why":"nope"}' })
  })

  it('counts the calls awaiting a reply on the current socket, and none once stopped', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((r) => (release = r))
    const server = await plainScheduler({
      answer: (command) => (command === 'getTitleControlInfo' ? held.then(() => undefined) : undefined),
    })
    const { link } = linkTo(server)
    expect(link.pendingCalls).toBe(0)
    link.start()
    await expect.poll(() => server.count('getTitleControlInfo'), WAIT).toBe(1)
    expect(link.pendingCalls).toBe(1)
    link.stop()
    expect(link.pendingCalls).toBe(0)
    release()
  })
})

describe('what the link tells the store and the log', () => {
  it('a dropped socket shows as stale with its close code; a recovery clears the error', async () => {
    const server = await plainScheduler()
    const { store, link } = linkTo(server, { timing: { backoffInitialMs: 10 } })
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const down = nextPhase(link, 'waiting-to-retry')
    server.drop()
    await down
    expect(store.link).toMatchObject({ status: 'stale', phase: 'waiting-to-retry', error: 'socket closed (1006)' })
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    link.stop()
    expect(store.link).toEqual({ status: 'stale', phase: 'stopped', since: expect.any(Number) })
  })

  it('stop() on a stopped link announces no phase', async () => {
    const server = await plainScheduler()
    const { store, link, phases } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    link.stop()
    link.stop()
    expect(phases).toEqual(['connecting', 'resynchronising', 'connected', 'stopped'])
  })

  it('logs one warning per outage (not per retry) and one "up" line per recovery, with the reason and the title count', async () => {
    const records = captureLogs()
    const server = await plainScheduler()
    const { store, link } = linkTo(server, { timing: { backoffInitialMs: 10, backoffMaxMs: 10 } })
    const mine = () => records.filter((r) => r.scope === 'notifications' && r.level !== 'debug')
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(mine()).toEqual([
      {
        level: 'info',
        scope: 'notifications',
        message: 'notification link up',
        fields: { url: server.url, titles: 1 },
      },
    ])
    await server.close()
    await expect.poll(() => link.state, WAIT).toBe('waiting-to-retry')
    // Several refused attempts, one warning.
    const failures = { n: 0 }
    link.on('phase', (p) => p === 'waiting-to-retry' && failures.n++)
    await expect.poll(() => failures.n, WAIT).toBeGreaterThanOrEqual(3)
    await server.open()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.drop()
    await expect.poll(() => store.link.status, WAIT).toBe('stale')
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const warn = (message: string) => ({
      level: 'warn',
      scope: 'notifications',
      message: 'notification link down; retrying',
      fields: { url: server.url, code: 'DISCONNECTED', message },
    })
    const up = {
      level: 'info',
      scope: 'notifications',
      message: 'notification link up',
      fields: { url: server.url, titles: 1 },
    }
    expect(mine()).toEqual([up, warn('socket closed (1006)'), up, warn('socket closed (1006)'), up])
  })
})

describe('replies and log lines of a session', () => {
  it('accepts a subscribe reply without a result object, even null (as Qt answers a failed method)', async () => {
    const server = await plainScheduler({ answer: (command) => (command === 'subscribe' ? null : undefined) })
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(server.count('subscribe')).toBe(1)
  })

  it("names the client's log lines under the link's scope, and each dropped variable with why", async () => {
    const records = captureLogs()
    const server = await plainScheduler()
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.frame('scheduler', 99, {})
    const seen = next(link, 'notification')
    server.notify({
      event: 'data',
      id: 'A',
      variables: [{ name: 'deep', value: nested(LINK_TUNABLES.maxValueDepth + 1) }],
    })
    await seen
    expect(records.filter((r) => r.level === 'warn').map((r) => [r.scope, r.message, r.fields])).toEqual([
      ['notifications/qwc', 'ignoring a signal not named in the init reply', { object: 'scheduler', signal: '99' }],
      [
        'notifications',
        'dropped a variable value the application sent',
        { variable: 'deep', why: `value nested deeper than ${LINK_TUNABLES.maxValueDepth} levels` },
      ],
    ])
  })

  it('at debug level: the announcement, a notification of another shape once (it re-reads), and "up again" only after a restart', async () => {
    const records = captureLogs()
    setLogLevel('debug')
    onTestFinished(() => setLogLevel(startLevel()))
    const server = await plainScheduler({
      answer: (command) => (command === 'notifyClientConnected' ? { app: 'sim' } : undefined),
    })
    const { store, link } = linkTo(server, { timing: { resyncDebounceMs: 10 } })
    const mine = () => records.filter((r) => r.scope === 'notifications').map((r) => [r.level, r.message, r.fields])
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    server.notify({ chat: 1 })
    server.notify({ chat: 2 })
    const resynced = next(link, 'resynchronised')
    server.notify({ control: 'addTitle' })
    await resynced
    link.stop()
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(mine()).toEqual([
      ['debug', 'application announced', { info: { app: 'sim' } }],
      ['info', 'notification link up', { url: server.url, titles: 1 }],
      ['debug', 'a notification of another shape; re-reading the titles', { sample: '"{\\"chat\\":1}"' }],
      ['debug', 'application announced', { info: { app: 'sim' } }],
      ['debug', 'notification link up again', { titles: 1 }],
    ])
    expect(records.filter((r) => r.level === 'warn')).toEqual([])
  })
})
