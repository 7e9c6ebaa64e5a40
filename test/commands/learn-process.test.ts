/**
 * `panelbridge learn` as a real process: it waits for Ctrl+C however little holds the event loop (no
 * device, live hot-plug), then stops with exit 0.
 */
import { tmpdir } from 'node:os'
import { expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { SAFETY_MS } from '../helpers/until.js'

it('keeps learning until SIGINT, then exits 0', { timeout: 2 * SAFETY_MS }, async () => {
  // Port 1 on loopback: no daemon answers there, so learn takes the devices (there are none here).
  const learn = runCli(['learn', '--url', 'http://127.0.0.1:1'], {
    cwd: tmpdir(),
    env: { PANELBRIDGE_LOG_LEVEL: 'debug', PANELBRIDGE_LOG_FORMAT: 'json' },
  })
  await learn.waitFor(/learning: press, turn or move a control/, SAFETY_MS)
  // The explicit signal that the first scan and hot-plug start are done and only the stop ends learn now.
  // A learn that gave up would end as soon as the event loop emptied after this line (stdout and stderr
  // pipes are written synchronously), long before the SIGINT below arrives; then no "stopping" is logged.
  await learn.waitFor(/"msg":"waiting for the stop"/, SAFETY_MS)
  expect(learn.child.exitCode).toBeNull()
  learn.child.kill('SIGINT')
  expect(await learn.exited).toBe(0)
  expect(learn.out()).toMatch(/"signal":"SIGINT".*"msg":"stopping"|"msg":"stopping".*"signal":"SIGINT"/)
  // Nothing here to learn from: it says so, rather than waiting silently.
  expect(learn.out()).toContain('nothing to listen to yet: no control surface found')
  // No line from the ALSA library (RtMidi reaching for a sequencer a box without sound devices lacks).
  expect(learn.out()).not.toMatch(/ALSA lib|MidiInAlsa/)
})
