/**
 * Issue 22 item 1, the daemon's part: each binding following a title the application does not have is
 * logged once at link-up and once after every resynchronisation, with the nearest name. Against the
 * simulator through the real notification link and store.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { NotificationLink } from '../../src/api/notifications.js'
import { missingTitleLine, watchMissingTitles } from '../../src/daemon/missing-titles.js'
import { createLogger, setLogSink, type LogRecord } from '../../src/log.js'
import type { Binding } from '../../src/mappings/schema.js'
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js'

const WAIT = { timeout: 5000, interval: 5 }
const BINDINGS: Binding[] = [
  { on: 'console/key:0', feedback: { title: 'Lower Thrid' } },
  { on: 'console/key:1', page: 'titles', feedback: { title: 'Lower Third' } },
  { on: 'console/key:2', feedback: { title: 'Nothing Like It At All' } },
  { on: 'console/key:3', label: 'no title' },
]

const stops: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
})

function capture(): LogRecord[] {
  const logs: LogRecord[] = []
  const previous = setLogSink((r) => logs.push(r))
  stops.push(() => void setLogSink(previous))
  return logs
}

describe('missing titles in the daemon log', () => {
  it('names the binding, the title and the nearest name the application has', () => {
    const state = new AppState()
    state.resetTitles([{ id: '{1}', name: 'Lower Third', play: 'Off' }])
    const titles = state.titles()
    expect(missingTitleLine(state, BINDINGS[0]!, titles)).toBe(
      "console/key:0: follows title 'Lower Thrid', which the application does not have (did you mean 'Lower Third'?)",
    )
    expect(missingTitleLine(state, BINDINGS[1]!, titles)).toBeUndefined()
    expect(missingTitleLine(state, BINDINGS[2]!, titles)).toBe(
      "console/key:2: follows title 'Nothing Like It At All', which the application does not have",
    )
    expect(missingTitleLine(state, BINDINGS[3]!, titles)).toBeUndefined()
    // A title followed by its id is found by its id.
    expect(missingTitleLine(state, { on: 'console/key:4', feedback: { title: '{1}' } }, titles)).toBeUndefined()
  })

  it('logs once per binding at link-up and again after a resynchronisation, not between', async () => {
    const logs = capture()
    const sim: SimulatorHandle = await startSimulator()
    stops.push(() => sim.close())
    const state = new AppState()
    const link = new NotificationLink({
      url: sim.wsUrl,
      state,
      timing: { backoffInitialMs: 20, backoffMaxMs: 80, resyncDebounceMs: 10 },
    })
    const detach = watchMissingTitles({ state, bindings: () => BINDINGS, log: createLogger('daemon') })
    stops.push(() => detach())
    stops.push(() => link.stop())
    const missing = (): string[] => logs.filter((r) => r.message.includes('follows title')).map((r) => r.message)

    link.start()
    await expect
      .poll(missing, WAIT)
      .toEqual([
        "console/key:0: follows title 'Lower Thrid', which the application does not have (did you mean 'Lower Third'?)",
        "console/key:2: follows title 'Nothing Like It At All', which the application does not have",
      ])
    expect(logs.find((r) => r.message.startsWith('console/key:0'))).toMatchObject({
      level: 'warn',
      fields: { control: 'console/key:0', title: 'Lower Thrid' },
    })

    // A play-state change is no resynchronisation: nothing more is logged.
    sim.state.dispatch('schedule', { action: 'cutin', title: 'Lower Third' })
    await expect.poll(() => state.titleByName('Lower Third')?.play, WAIT).toBe('Paused')
    expect(missing()).toHaveLength(2)

    // The application restarts: the link resynchronises and the two lines come once more.
    await sim.restart()
    await expect.poll(() => missing().length, WAIT).toBe(4)
  })
})
