/**
 * A scrubbing jog moves the playhead at every reply. Such a change (the playhead's times alone) reaches
 * the engine as `playhead`, which redraws only the labels that show `{{replay.…}}`; a change of the replay
 * state or speed stays `replay`, which redraws every control that may show replay mode.
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { oneApp, type AppChange } from '../../src/mappings/app-router.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import { loggerInto } from '../helpers/logs.js'

const port: CommandPort = { callByName: () => Promise.reject(new Error('nothing is sent here')) }

describe('what a replay change is, as the engine is told', () => {
  it('position, in and out alone: playhead; state or speed with them: replay', () => {
    const state = new AppState()
    const router = oneApp({ client: port, state }, { log: loggerInto('router').logger })
    const seen: (AppChange | undefined)[] = []
    const detach = router.watch((change) => seen.push(change))
    state.setReplay({ position: 1.5 })
    state.setReplay({ inPoint: 1, outPoint: 4 })
    state.setReplay({ state: 'replay' })
    state.setReplay({ position: 2, speed: 0.5 })
    state.setReplay({ position: 2 }) // no change: nothing told
    state.forgetReplayState()
    detach()
    router.dispose()
    expect(seen).toEqual(['playhead', 'playhead', 'replay', 'replay', 'replay'])
  })
})
