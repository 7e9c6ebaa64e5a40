/**
 * Issue 24, item 5: presses the operator never finished. A browser that goes mid-press, a surface that
 * is unplugged, a remote API `down` whose lease ends: the press is cancelled (neither the short press
 * nor the hold fires; a hold whose time was reached before has fired). Presses from different sources
 * on one control (each browser, the API, the device) are tracked apart.
 *
 * The real engine, web surface and input door on fake timers; the only stand-in is the command port
 * (the transport boundary), which records what would go to the application.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { API_LEASE, InputDoor } from '../../src/daemon/input.js'
import { Routes } from '../../src/daemon/routes.js'
import { Engine } from '../../src/mappings/engine.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { loggerInto, messages } from '../helpers/logs.js'
import { answeringPort, CONSOLE, loadOrThrow, RecordingSurfaces } from './helpers.js'

/** A key with a short press and a hold, and a key with a plain press (fires on the down). */
const BINDINGS = `bindings:
  - on: console/key:1
    press: { command: schedule, params: { action: update, title: "Score Bug" } }
    hold: { after_ms: 800, command: schedule, params: { action: animateOut, title: "Score Bug" } }
  - on: console/key:2
    press: { command: schedule, params: { action: automatic, title: "Lower Third" } }
`

interface Rig {
  engine: Engine
  door: InputDoor
  web: WebSurface
  /** The `action` of every schedule sent, in order. */
  actions: string[]
  logs: ReturnType<typeof loggerInto>['records']
}

let rig: Rig | undefined

async function makeRig(): Promise<Rig> {
  const config = await loadOrThrow(CONSOLE + BINDINGS)
  const actions: string[] = []
  const client = answeringPort((_name, params) => actions.push(String(params?.action)))
  const engine = new Engine({ client, state: new AppState(), surfaces: new RecordingSurfaces() })
  engine.apply(config)
  const { logger, records } = loggerInto('input')
  const door = new InputDoor(engine, logger)
  const web = new WebSurface({ id: 'console', rows: 2, columns: 4 })
  web.events.on('input', (e) => door.enter(e, 'surface'))
  return { engine, door, web, actions, logs: records }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] })
})
afterEach(async () => {
  rig?.door.close()
  rig?.engine.stop()
  await rig?.web.close()
  rig = undefined
  vi.useRealTimers()
})

describe('a press the operator never finished is cancelled', () => {
  it('a browser that disconnects 300 ms into a press on a press-and-hold key fires nothing', async () => {
    const r = (rig = await makeRig())
    const browser = {}
    r.web.press('key:1', browser, 'browser-1')
    await vi.advanceTimersByTimeAsync(300)
    r.web.forget('browser-1', browser) // the page socket closed
    await vi.advanceTimersByTimeAsync(2000)
    expect(r.actions).toEqual([])
    // The key is free: the next browser's short press fires as ever.
    const next = {}
    r.web.press('key:1', next, 'browser-2')
    r.web.release('key:1', next, 'browser-2')
    await vi.advanceTimersByTimeAsync(0)
    expect(r.actions).toEqual(['update'])
  })

  it('a hold whose time was reached before the disconnect has fired; nothing more fires', async () => {
    const r = (rig = await makeRig())
    const browser = {}
    r.web.press('key:1', browser, 'browser-1')
    await vi.advanceTimersByTimeAsync(800)
    expect(r.actions).toEqual(['animateOut'])
    r.web.forget('browser-1', browser)
    await vi.advanceTimersByTimeAsync(2000)
    expect(r.actions).toEqual(['animateOut'])
  })

  it('an unplugged surface cancels what was held on it', async () => {
    const r = (rig = await makeRig())
    r.door.enter({ type: 'down', surface: 'console', control: 'key:1', at: performance.now() }, 'surface')
    await vi.advanceTimersByTimeAsync(300)
    r.door.surfaceGone('console')
    await vi.advanceTimersByTimeAsync(2000)
    // The up a driver might still deliver finds no press to release.
    r.door.enter({ type: 'up', surface: 'console', control: 'key:1', at: performance.now() }, 'surface')
    await vi.advanceTimersByTimeAsync(0)
    expect(r.actions).toEqual([])
  })
})

describe('the remote API down carries a lease', () => {
  it('a down without its up is cancelled and logged when its lease ends; page presses on it then work', async () => {
    const r = (rig = await makeRig())
    r.door.inject('console', 'key:2', 'down')
    await vi.advanceTimersByTimeAsync(0)
    expect(r.actions).toEqual(['automatic']) // a plain press fires on its down
    await vi.advanceTimersByTimeAsync(API_LEASE.defaultMs - 1)
    expect(messages(r.logs, 'warn')).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(messages(r.logs, 'warn')).toEqual(['remote API press not released within its lease: cancelled'])
    expect(r.logs[0]!.fields).toMatchObject({ control: 'console/key:2', lease_ms: API_LEASE.defaultMs })
    const browser = {}
    for (let i = 0; i < 2; i++) {
      r.web.press('key:2', browser, 'browser-1')
      r.web.release('key:2', browser, 'browser-1')
      await vi.advanceTimersByTimeAsync(0)
    }
    expect(r.actions).toEqual(['automatic', 'automatic', 'automatic']) // 2 page presses → 2 commands
  })

  it('lease_ms shortens the lease: a held hold key whose lease ends before its hold time fires nothing', async () => {
    const r = (rig = await makeRig())
    r.door.inject('console', 'key:1', 'down', 500)
    await vi.advanceTimersByTimeAsync(500)
    expect(messages(r.logs, 'warn')).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(2000)
    r.door.inject('console', 'key:1', 'up') // too late: its press is gone
    await vi.advanceTimersByTimeAsync(0)
    expect(r.actions).toEqual([])
  })

  it('an up in time ends the lease: the short press fires and nothing is logged', async () => {
    const r = (rig = await makeRig())
    r.door.inject('console', 'key:1', 'down')
    await vi.advanceTimersByTimeAsync(200)
    r.door.inject('console', 'key:1', 'up')
    await vi.advanceTimersByTimeAsync(API_LEASE.defaultMs * 2)
    expect(r.actions).toEqual(['update'])
    expect(messages(r.logs, 'warn')).toEqual([])
  })
})

describe('presses from different sources on one control are tracked apart', () => {
  it('while the API holds a key, page presses on it still fire', async () => {
    const r = (rig = await makeRig())
    r.door.inject('console', 'key:2', 'down')
    await vi.advanceTimersByTimeAsync(0) // its command done: a press meanwhile would be ignored as pending
    const browser = {}
    for (let i = 0; i < 2; i++) {
      r.web.press('key:2', browser, 'browser-1')
      r.web.release('key:2', browser, 'browser-1')
      await vi.advanceTimersByTimeAsync(0)
    }
    expect(r.actions).toEqual(['automatic', 'automatic', 'automatic'])
  })

  it('two sources holding one key: each release ends its own press', async () => {
    const r = (rig = await makeRig())
    const browser = {}
    r.web.press('key:1', browser, 'browser-1')
    await vi.advanceTimersByTimeAsync(100)
    r.door.inject('console', 'key:1', 'down')
    await vi.advanceTimersByTimeAsync(100)
    r.door.inject('console', 'key:1', 'up') // the API's short press: 200 ms after the browser's down
    await vi.advanceTimersByTimeAsync(0)
    expect(r.actions).toEqual(['update'])
    // The browser still holds its own press: its hold comes at 800 ms, its release sends nothing more.
    await vi.advanceTimersByTimeAsync(600)
    expect(r.actions).toEqual(['update', 'animateOut'])
    r.web.release('key:1', browser, 'browser-1')
    await vi.advanceTimersByTimeAsync(0)
    expect(r.actions).toEqual(['update', 'animateOut'])
  })

  it('two browsers on one key: one leaving cancels only its own press', async () => {
    const r = (rig = await makeRig())
    const [a, b] = [{}, {}]
    r.web.press('key:1', a, 'browser-1')
    r.web.press('key:1', b, 'browser-2')
    await vi.advanceTimersByTimeAsync(300)
    r.web.forget('browser-1', a)
    r.web.release('key:1', b, 'browser-2')
    await vi.advanceTimersByTimeAsync(2000)
    expect(r.actions).toEqual(['update'])
  })
})

describe('lease_ms on the remote API route', () => {
  const injected: unknown[][] = []
  const routes = new Routes({
    api: {
      status: () => {
        throw new Error('not used')
      },
      controlState: () => {
        throw new Error('not used')
      },
      inject: (...args: unknown[]) => void injected.push(args),
      recentErrors: () => [],
    },
  })
  const post = (action: string, query: string): unknown =>
    routes.api('POST', `/api/surfaces/console/controls/key%3A1/${action}`, new URLSearchParams(query))

  it('a down takes lease_ms within its bounds, and the door default without it', () => {
    injected.length = 0
    expect(post('down', 'lease_ms=2500')).toEqual({ ok: true })
    expect(post('down', '')).toEqual({ ok: true })
    expect(injected).toEqual([
      ['console', 'key:1', 'down', 2500],
      ['console', 'key:1', 'down', undefined],
    ])
  })

  it.each([
    ['down', `lease_ms=${API_LEASE.minMs - 1}`],
    ['down', `lease_ms=${API_LEASE.maxMs + 1}`],
    ['down', 'lease_ms=1e4'],
    ['down', 'lease_ms='],
    ['press', 'lease_ms=1000'],
  ])('refuses %s?%s with 400', (action, query) => {
    expect(() => post(action, query)).toThrow(expect.objectContaining({ status: 400, code: 'BAD_VALUE' }))
  })
})
