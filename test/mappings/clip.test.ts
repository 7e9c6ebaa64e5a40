/**
 * Issue 43 item 3, the clip verbs the end-to-end test does not press: `go_to_in`, `go_to_out` and
 * `clear_marks` (in at 0, out at the buffer's end), and a verb without its point sends nothing and says so.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { CONSOLE, engineHarness, WAIT, type EngineHarness } from './helpers.js'

let h: EngineHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const KEYS = `bindings:
  - on: console/key:0
    press: { clip: go_to_in }
  - on: console/key:1
    press: { clip: go_to_out }
  - on: console/key:2
    press: { clip: clear_marks }
`

/** Replay mode, a 60 s buffer, in at 3, out at 8, the scrub at 5 (sent through the engine's own client). */
async function marked(x: EngineHarness): Promise<void> {
  await x.client.call('replay_arm_inputs', { inputs: ['Camera 1'] })
  await x.client.call('replay_enable')
  await x.client.call('replay_set_settings', { settings: { bufferLength: 60 } })
  await x.client.call('replay_enable_scrubbing', { enable: true })
  await x.client.call('replay_set_scrub_position', { position: 5 })
}

describe('clip verbs', () => {
  it('go_to_in and go_to_out scrub to the points panelbridge knows; clear_marks sets 0 and the buffer end', async () => {
    h = await engineHarness(
      CONSOLE +
        KEYS +
        `  - on: console/key:3
    press: [{ command: replay_set_in_point, params: { position: 3 } }, { command: replay_set_out_point, params: { position: 8 } }]
`,
    )
    await marked(h)
    h.press('console/key:3')
    await expect.poll(() => h!.sim.state.replay.outPoint, WAIT).toBe(8)
    h.press('console/key:0')
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBe(3)
    h.press('console/key:1')
    await expect.poll(() => h!.sim.state.replay.scrubPosition, WAIT).toBe(8)
    h.press('console/key:2')
    await expect.poll(() => [h!.sim.state.replay.inPoint, h!.sim.state.replay.outPoint], WAIT).toEqual([0, 60])
  })

  it('go_to_in before any in point is known sends nothing, and the key says why', async () => {
    h = await engineHarness(CONSOLE + KEYS)
    await marked(h)
    h.sim.http.reset()
    h.press('console/key:0')
    await expect.poll(() => h!.surfaces.of('console/key:0')?.detail, WAIT).toBe('no in point known yet')
    expect(h.sim.http.commands('replay_set_scrub_position')).toEqual([])
  })
})
