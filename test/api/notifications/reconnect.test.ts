/**
 * The notification link's connection over time, against the scheduler of ./harness.ts on a real socket:
 * the reconnect back-off and its reset, liveness (pings, a silent socket dropped), and stopping (no timer
 * or listener left, a late reply ignored). Time is a fake clock wherever it is the subject.
 * Cases from the former notifications-mutants.test.ts (mutation survivors).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LINK_TUNABLES, NotificationLink } from '../../../src/api/notifications.js'
import { QWebChannelClient } from '../../../src/api/qwebchannel.js'
import { captureLogs } from '../../helpers/logs.js'
import { closedPort, nextPhase } from '../../helpers/link.js'
import { ALL_CLOCKS, WAIT, connectedLink, linkTo, next, plainScheduler, trackClients } from './harness.js'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/**
 * Starts a link whose application is down and lets it fail three times (its retries after 250 and 500
 * ms fail too, on fake timers); returns once the third failure is in, the next retry due in 1000 ms.
 */
async function startAndFailThrice(link: NotificationLink): Promise<void> {
  let failed = nextPhase(link, 'waiting-to-retry')
  link.start()
  for (const delay of [250, 500]) {
    await failed
    failed = nextPhase(link, 'waiting-to-retry')
    vi.advanceTimersByTime(delay)
  }
  await failed
}

describe('reconnect back-off', () => {
  it('starts again at the initial delay once a session was up: a new outage retries after 250 ms', async () => {
    const server = await plainScheduler()
    await server.close()
    vi.useFakeTimers(ALL_CLOCKS)
    const { link } = linkTo(server)
    await startAndFailThrice(link)
    // Three failures in: the next retry waits 1000 ms. The application comes back meanwhile.
    await server.open()
    const connected = nextPhase(link, 'connected')
    vi.advanceTimersByTime(1000)
    await connected
    const failed = nextPhase(link, 'waiting-to-retry')
    server.drop()
    await failed
    vi.advanceTimersByTime(LINK_TUNABLES.backoffInitialMs - 1)
    expect(link.state).toBe('waiting-to-retry')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('connecting')
  })

  it('stop() then start() begins a fresh back-off: the old retry timer is gone and the first retry is after 250 ms', async () => {
    const url = `ws://127.0.0.1:${await closedPort()}`
    vi.useFakeTimers(ALL_CLOCKS)
    const { link } = linkTo(url)
    await startAndFailThrice(link)
    // A retry is due in 1000 ms; 900 of them pass before the restart.
    vi.advanceTimersByTime(900)
    link.stop()
    expect(link.state).toBe('stopped')
    const failed = nextPhase(link, 'waiting-to-retry')
    link.start()
    expect(link.state).toBe('connecting')
    await failed
    vi.advanceTimersByTime(LINK_TUNABLES.backoffInitialMs - 1)
    expect(link.state).toBe('waiting-to-retry')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('connecting')
  })
})

/**
 * A link connected (on the fake clock) to a scheduler that never answers a ping, with the liveness time-out
 * `livenessTimeoutMs`, and a spy on the client's pings (none sent yet: the first is due a third of it on).
 */
async function silentScheduler(livenessTimeoutMs: number) {
  const server = await plainScheduler({ pongs: false })
  const { store, link } = await connectedLink(server, { timing: { livenessTimeoutMs } })
  const pings = vi.spyOn(QWebChannelClient.prototype, 'ping')
  return { server, store, link, pings }
}

describe('liveness', () => {
  it('pings every third of the time-out and drops a socket silent for longer than the time-out, not at it', async () => {
    const records = captureLogs()
    const { server, store, link, pings } = await silentScheduler(3000)
    // Checked every 1000 ms: at 3000 ms the socket has been silent for exactly the time-out, still alive.
    vi.advanceTimersByTime(3999)
    expect(pings).toHaveBeenCalledTimes(3)
    expect(link.state).toBe('connected')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('waiting-to-retry')
    expect(pings).toHaveBeenCalledTimes(3)
    expect(store.link).toMatchObject({ status: 'stale', error: 'socket silent for 4000 ms' })
    expect(records.find((r) => r.level === 'warn')?.fields).toMatchObject({ code: 'TIMEOUT' })
    await expect.poll(() => server.sockets).toBe(0)
  })

  it('checks at most every 10 ms, however short the time-out', async () => {
    const { link, pings } = await silentScheduler(12)
    vi.advanceTimersByTime(19)
    expect(pings).toHaveBeenCalledTimes(1)
    expect(link.state).toBe('connected')
    vi.advanceTimersByTime(1)
    expect(link.state).toBe('waiting-to-retry')
  })

  it('a stopped link holds no timer, so it never keeps the process alive', async () => {
    const server = await plainScheduler()
    vi.useFakeTimers(ALL_CLOCKS)
    const { link } = linkTo(server)
    const connected = nextPhase(link, 'connected')
    link.start()
    await connected
    expect(vi.getTimerCount()).toBe(1) // the liveness check
    const seen = next(link, 'notification')
    server.notify({ control: 'addTitle' })
    await seen
    expect(vi.getTimerCount()).toBe(2) // and the debounced resynchronisation
    link.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('stopping', () => {
  it('stop() on a link never started is a no-op', () => {
    const { store, link, phases } = linkTo('ws://127.0.0.1:1')
    expect(() => link.stop()).not.toThrow()
    expect(store.link).toMatchObject({ status: 'stale', phase: 'stopped' })
    expect(phases).toEqual([])
  })

  it('stop() while a call is pending stays stopped when that call then fails', async () => {
    const records = captureLogs()
    const server = await plainScheduler({
      answer: (command) => (command === 'getTitleControlInfo' ? new Promise(() => undefined) : undefined),
    })
    const clients = trackClients()
    const { link } = linkTo(server)
    link.start()
    await expect.poll(() => server.count('getTitleControlInfo'), WAIT).toBe(1)
    const closed = new Promise((r) => clients[0]!.once('close', r))
    link.stop()
    await closed
    // The pending call is rejected as the socket closes; its failure reaches the link a turn later.
    await new Promise((r) => setImmediate(r))
    expect(link.state).toBe('stopped')
    expect(records.filter((r) => r.level === 'warn')).toEqual([])
  })

  it('stop() and start() at once while a call is pending: the old call failing does not touch the new session', async () => {
    const server = await plainScheduler({
      answer: (command) =>
        command === 'getTitleControlInfo' && server.count(command) === 1 ? new Promise(() => undefined) : undefined,
    })
    const { store, link, phases } = linkTo(server)
    link.start()
    await expect.poll(() => server.count('getTitleControlInfo'), WAIT).toBe(1)
    link.stop()
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    expect(phases).toEqual(['connecting', 'resynchronising', 'stopped', 'connecting', 'resynchronising', 'connected'])
    expect(server.count('notifyClientConnected')).toBe(2)
  })

  it('stop() removes every listener the link added to its client', async () => {
    const server = await plainScheduler()
    const clients = trackClients()
    const { store, link } = linkTo(server)
    link.start()
    await expect.poll(() => store.link.status, WAIT).toBe('connected')
    const [client] = clients
    expect([client!.listenerCount('close'), client!.listenerCount('signal')]).toEqual([1, 1])
    link.stop()
    expect([client!.listenerCount('close'), client!.listenerCount('signal')]).toEqual([0, 0])
  })
})
