/**
 * Issue 22 item 1 and issue 40 item 5, the daemon's part: each binding following a title the
 * application does not have is logged once, with the nearest name, until that changes (the title comes,
 * or the binding follows another one): not at every read of the title list, which the application's
 * change signals cause at every play change. Against the simulator through the real notification link
 * and store.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { NotificationLink } from '../../src/api/notifications.js'
import { missingTitleLine, watchMissingTitles } from '../../src/daemon/missing-titles.js'
import { createLogger, setLogSink, type LogRecord } from '../../src/log.js'
import type { Binding } from '../../src/mappings/schema.js'
import { startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'

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

  it('logs once per binding while the title stays missing, through play changes and resynchronisations', async () => {
    const logs = capture()
    const sim: SimulatorHandle = await startSimulator()
    stops.push(() => sim.close())
    const state = new AppState()
    const link = new NotificationLink({
      url: sim.wsUrl,
      state,
      timing: { backoffInitialMs: 20, backoffMaxMs: 80, resyncDebounceMs: 10, changeDebounceMs: 10 },
    })
    let bindings = BINDINGS
    const detach = watchMissingTitles({ state, bindings: () => bindings, log: createLogger('daemon') })
    stops.push(() => detach())
    stops.push(() => link.stop())
    const missing = (): string[] => logs.filter((r) => r.message.includes('follows title')).map((r) => r.message)
    let reads = 0
    link.on('resynchronised', () => reads++)
    /** Waits for the link's next read of the whole title list. */
    const nextRead = async (): Promise<void> => {
      const before = reads
      await expect.poll(() => reads, WAIT).toBeGreaterThan(before)
    }

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

    // A play change: the application's change signals make the link read the whole list again (the
    // path that logged the same lines on every change); nothing more is logged.
    for (const action of ['cutin', 'cutout', 'cutin']) {
      const read = nextRead()
      sim.state.dispatch('schedule', { action, title: 'Lower Third' })
      await read
    }
    expect(state.titleByName('Lower Third')?.play).toBe('Paused')
    expect(missing()).toHaveLength(2)

    // The application restarts: the link resynchronises, and the titles are as missing as before.
    const read = nextRead()
    await sim.restart()
    await read
    expect(missing()).toHaveLength(2)

    // A reload makes key:0 follow another missing title: that one is logged, once.
    bindings = [{ on: 'console/key:0', feedback: { title: 'Upper Third' } }, BINDINGS[2]!]
    const again = nextRead()
    // (After the restart nothing is on air.)
    sim.state.dispatch('schedule', { action: 'cutin', title: 'Lower Third' })
    await again
    expect(missing().slice(2)).toEqual([
      "console/key:0: follows title 'Upper Third', which the application does not have (did you mean 'Lower Third'?)",
    ])
  })

  it('logs a title again when it went missing after it was found', () => {
    const logs = capture()
    const state = new AppState()
    const detach = watchMissingTitles({ state, bindings: () => [BINDINGS[1]!], log: createLogger('daemon') })
    stops.push(() => detach())
    const missing = (): number => logs.filter((r) => r.message.includes('follows title')).length
    state.resetTitles([])
    state.resetTitles([])
    expect(missing()).toBe(1)
    state.resetTitles([{ id: '{1}', name: 'Lower Third', play: 'Off' }])
    expect(missing()).toBe(1)
    state.resetTitles([])
    expect(missing()).toBe(2)
  })
})
