/**
 * Whether the config file on disk runs (issue 22, item 17): `/api/status`' `configState` and the
 * `/metrics` gauges say when a reload was refused and an older mapping runs, and since when the
 * running mapping was loaded; the recent errors mark what has cleared, one line per fault.
 */
import { writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import { DaemonProjection } from '../../src/daemon/projection.js'
import { ConfigReloader, type ConfigState } from '../../src/daemon/reload.js'
import type { Notifier } from '../../src/daemon/sd-notify.js'
import { createLogger, setLogSink } from '../../src/log.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { call } from './helpers.js'
import { CUTIN_KEY, simulatedConfig } from '../helpers/config.js'
import { testConfigFile } from '../helpers/files.js'

const GOOD = simulatedConfig(CUTIN_KEY)
const BROKEN = GOOD.replace('columns: 2', 'columns: 2, bogus: 1')

afterEach(() => {
  vi.useRealTimers()
})

const quietNotifier = { reloading: () => undefined, ready: () => undefined } as unknown as Notifier

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('the reloader’s config state', () => {
  it('is ok from the start, refused from a refused file until a good one, and keeps the time of the last good load', async () => {
    const file = await testConfigFile('config-state', GOOD)
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 26, 9, 0, 0) })
    const states: ConfigState[] = []
    const errors: { message: string; key: string }[] = []
    const cleared: string[] = []
    const reloader = new ConfigReloader({
      file,
      timeoutMs: SAFETY_MS,
      apply: () => Promise.resolve(),
      notifier: quietNotifier,
      statusLine: () => '',
      recordError: (message, key) => void errors.push({ message, key }),
      clearError: (key) => void cleared.push(key),
      onState: (s) => void states.push(s),
      log: createLogger('reload', { sink: () => undefined }),
    })
    const start = '2026-11-26T09:00:00.000Z'
    expect(reloader.status()).toEqual({ state: 'ok', lastGoodLoad: start })
    expect(states).toEqual([{ state: 'ok', lastGoodLoad: Date.parse(start) }])

    await writeFile(file, BROKEN)
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9, 5, 0))
    expect(await reloader.reload()).toBe(false)
    const refused = reloader.status()
    expect(refused).toMatchObject({ state: 'refused', lastGoodLoad: start, refusedAt: '2026-11-26T09:05:00.000Z' })
    expect(refused.error).toMatch(/^config refused: .*config\.yaml:5:\d+: surfaces\.console: unknown key bogus/)
    expect(errors).toEqual([{ message: refused.error, key: 'config' }])
    expect(states.at(-1)).toMatchObject({ state: 'refused', lastGoodLoad: Date.parse(start) })

    await writeFile(file, GOOD)
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9, 7, 30))
    expect(await reloader.reload()).toBe(true)
    expect(reloader.status()).toEqual({ state: 'ok', lastGoodLoad: '2026-11-26T09:07:30.000Z' })
    expect(cleared).toEqual(['config'])
    reloader.close()
  })

  it('counts a reload whose apply fails as refused: the file on disk is not what runs', async () => {
    const file = await testConfigFile('config-state', GOOD)
    const reloader = new ConfigReloader({
      file,
      timeoutMs: SAFETY_MS,
      apply: () => Promise.reject(new Error('port 8088 is taken')),
      notifier: quietNotifier,
      statusLine: () => '',
      recordError: () => undefined,
      log: createLogger('reload', { sink: () => undefined }),
    })
    const before = reloader.status().lastGoodLoad
    expect(await reloader.reload()).toBe(false)
    expect(reloader.status()).toMatchObject({
      state: 'refused',
      lastGoodLoad: before,
      error: 'reload failed: port 8088 is taken',
    })
    reloader.close()
  })
})

describe('the metrics of the config state', () => {
  it('export both states, one at 1, and the last good load in seconds', async () => {
    const m = new PrometheusMetrics({ processMetrics: false })
    m.setConfigState('refused', 1_795_661_676_049)
    const text = await m.text()
    expect(sample(text, 'panelbridge_config_loaded{state="ok"}')).toBe(0)
    expect(sample(text, 'panelbridge_config_loaded{state="refused"}')).toBe(1)
    expect(sample(text, 'panelbridge_config_last_good_load_timestamp_seconds')).toBe(1_795_661_676.049)
  })
})

describe('the daemon', () => {
  it('says on /api/status and /metrics that a pushed file was refused and an older mapping runs, until a good one', async () => {
    const file = await testConfigFile('config-state', GOOD)
    const prev = setLogSink(() => undefined)
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(async () => {
      await daemon.stop()
      setLogSink(prev)
    })
    const status = async (): Promise<Record<string, unknown>> =>
      (await call(daemon.url, 'GET', '/api/status')).json as Record<string, unknown>
    const metrics = async (): Promise<string> => (await call(daemon.url, 'GET', '/metrics')).text

    const first = (await status()).configState as { state: string; lastGoodLoad: string }
    expect(first.state).toBe('ok')
    expect(Math.abs(Date.parse(first.lastGoodLoad) - Date.now())).toBeLessThan(60_000)
    expect(sample(await metrics(), 'panelbridge_config_loaded{state="ok"}')).toBe(1)
    expect(sample(await metrics(), 'panelbridge_config_last_good_load_timestamp_seconds')).toBe(
      Date.parse(first.lastGoodLoad) / 1000,
    )

    await writeFile(file, BROKEN)
    expect(await daemon.reload()).toBe(false)
    expect((await status()).configState).toMatchObject({
      state: 'refused',
      lastGoodLoad: first.lastGoodLoad,
      error: expect.stringContaining('unknown key bogus'),
    })
    const refusedMetrics = await metrics()
    expect(sample(refusedMetrics, 'panelbridge_config_loaded{state="refused"}')).toBe(1)
    expect(sample(refusedMetrics, 'panelbridge_config_loaded{state="ok"}')).toBe(0)
    expect(daemon.recentErrors()[0]).toMatchObject({ message: expect.stringMatching(/^config refused: /) })
    expect(daemon.recentErrors()[0]!.cleared).toBeUndefined()

    await until('a later millisecond for the good load', () => Date.now() > Date.parse(first.lastGoodLoad))
    await writeFile(file, GOOD)
    expect(await daemon.reload()).toBe(true)
    const after = (await status()).configState as { state: string; lastGoodLoad: string }
    expect(after.state).toBe('ok')
    expect(Date.parse(after.lastGoodLoad)).toBeGreaterThan(Date.parse(first.lastGoodLoad))
    expect(sample(await metrics(), 'panelbridge_config_loaded{state="ok"}')).toBe(1)
    // The refusal is still listed, marked cleared: the page's strip drops it.
    expect(daemon.recentErrors()[0]).toMatchObject({ message: expect.stringMatching(/^config refused: /) })
    expect(daemon.recentErrors()[0]!.cleared).toEqual(expect.any(String))
  })
})

describe('the recent errors', () => {
  function projection(): DaemonProjection {
    const door = { observe: () => undefined }
    return new DaemonProjection({
      configFile: 'x.yaml',
      manager: { statuses: () => [], list: () => [], feedbackOf: () => new Map() },
      engine: { pageOf: () => undefined, controlView: () => undefined },
      state: new AppState(),
      door: door as never,
      running: () => ({ config: {} as never, simulated: false }),
    })
  }

  it('keep one line per fault: the same fault still on keeps its first time, a new one replaces it, clearing marks it', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 26, 9, 0, 0) })
    const p = projection()
    p.recordError('desk: failed', 'surface:desk')
    for (let i = 0; i < 50; i++) {
      vi.setSystemTime(Date.UTC(2026, 10, 26, 9, 0, i + 1))
      p.recordError('application link: socket closed (1006)', 'link')
    }
    expect(p.recentErrors()).toEqual([
      { time: '2026-11-26T09:00:01.000Z', message: 'application link: socket closed (1006)' },
      { time: '2026-11-26T09:00:00.000Z', message: 'desk: failed' },
    ])
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9, 1, 0))
    p.clearError('link')
    expect(p.recentErrors()[0]).toEqual({
      time: '2026-11-26T09:00:01.000Z',
      message: 'application link: socket closed (1006)',
      cleared: '2026-11-26T09:01:00.000Z',
    })
    // The link goes down again: a new line, the cleared one gone.
    vi.setSystemTime(Date.UTC(2026, 10, 26, 9, 2, 0))
    p.recordError('application link: socket closed (1006)', 'link')
    expect(p.recentErrors()).toEqual([
      { time: '2026-11-26T09:02:00.000Z', message: 'application link: socket closed (1006)' },
      { time: '2026-11-26T09:00:00.000Z', message: 'desk: failed' },
    ])
    // Lines without a key stay as they were.
    p.recordError('something else')
    p.recordError('something else')
    expect(p.recentErrors().filter((e) => e.message === 'something else')).toHaveLength(2)
  })
})
