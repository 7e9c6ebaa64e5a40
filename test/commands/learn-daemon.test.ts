/**
 * Issue 13, Build 1: with a daemon running, `panelbridge learn` learns through the daemon's event
 * stream (`GET /api/events`) and takes no device from it. A real daemon in-process (simulator on port
 * 0, its HTTP server on port 0) holds an in-memory Stream Deck; learn shares the very same transport,
 * so any device learn opened would show in it.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it } from 'vitest'
import { runLearn } from '../../src/commands/learn.js'
import type { Daemon } from '../../src/daemon/daemon.js'
import type { LogRecord } from '../../src/log.js'
import { testConfigFile } from '../helpers/files.js'
import { cutinBindings, simulatedDaemonConfig } from '../helpers/in-process-daemon.js'
import { captureLogs } from '../helpers/logs.js'
import { call } from '../daemon/helpers.js'
import { encoderRotateReport, gen2KeyReport } from '../surfaces/helpers/fake-hid.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { harness, type Harness } from './hardware-helpers.js'
import { afterBanner, harnessDaemon, learn, learnedUpTo } from './learn-helpers.js'
import { until } from '../helpers/until.js'

const TOKEN = 'learn-test-token-0123456789'
const config = (listen?: string): string =>
  simulatedDaemonConfig('  replay: { driver: streamdeck, model: plus }\n', cutinBindings('replay/key:3'), listen)

/** A daemon holding the harness's in-memory Stream Deck +, started from `text`. */
async function startDaemon(h: Harness, text: string): Promise<{ daemon: Daemon; file: string; logs: LogRecord[] }> {
  const file = await testConfigFile('learn-daemon', text)
  const logs = captureLogs()
  // No hot-plug: the daemon finds the harness's devices by polling. Finished in reverse: the daemon stops,
  // then the sink comes back, then the folder goes.
  const daemon = await harnessDaemon(h, file, new FakeHotplug(false))
  await expect.poll(() => daemon.status().surfaces.find((s) => s.name === 'replay')?.state).toBe('open')
  return { daemon, file, logs }
}

/** The line learn prints last for a key's snippet. */
const FEEDBACK = "      feedback: { title: 'Lower Third' }"

describe('panelbridge learn with a daemon running', () => {
  it('prints ids, the claim and snippets from the daemon’s devices, takes none, and the daemon still acts', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const { daemon, file } = await startDaemon(h, config())
    expect(h.transport.opened).toHaveLength(1)
    const device = h.transport.lastOpened('/dev/hidraw4')!

    const learner = learn(h, ['--config', file, '--url', daemon.url])
    await until('the daemon’s surface', () => h.out.some((l) => l.endsWith('learning as replay')))
    expect(h.out[0]).toBe(
      `learning through the panelbridge daemon at ${daemon.url.replace(/\/$/, '')}, which keeps its devices: ` +
        `press, turn or move a control; Ctrl+C stops (surface names from ${file})`,
    )
    expect(h.out[1]).toBe(
      `  (its devices' events, and those of its web page: press a key on ${daemon.url.replace(/\/$/, '')}/ to learn it too)`,
    )
    device.input(gen2KeyReport([3], 8))
    device.input(gen2KeyReport([], 8))
    device.input(encoderRotateReport([2]))
    await until('the rotation', () => h.out.includes('replay/encoder:0 rotate +2'))

    // The daemon acted on the press as ever: the binding's command reached the simulator.
    await expect.poll(() => daemon.status().commands.sent, { timeout: 10_000 }).toBe(1)
    // Nothing was opened or closed for learning: the daemon's one open device is untouched.
    expect(h.transport.opened).toEqual([device])
    expect(device.closed).toBe(false)

    // An event injected through the remote API is marked so.
    const press = await call(daemon.url, 'POST', '/api/surfaces/replay/controls/key%3A3/press')
    expect(press.status).toBe(200)

    expect(await learnedUpTo(h, learner, 'replay/key:3 up (remote API)')).toEqual([
      'streamdeck CL-PLUS-1 (Stream Deck +): open: learning as replay',
      '  claimed by surfaces: { replay: { driver: streamdeck, model: plus } }',
      'replay/key:3 down',
      // The control the file binds already says so, at its line (issue 42 item 7).
      `  already bound at ${file}:7: cutin 'Lower Third'`,
      '  binding:',
      '    - on: replay/key:3',
      '      label: "{{name}}\\n{{play}}"',
      "      press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }",
      "      feedback: { title: 'Lower Third' }",
      'replay/key:3 up',
      'replay/encoder:0 rotate +2',
      '  binding:',
      '    - on: replay/encoder:0',
      '      jog: { scrub: { step_frames: 1 } }',
      'replay/key:3 down (remote API)',
      'replay/key:3 up (remote API)',
    ])
    expect(h.err).toEqual([])
    // The daemon runs on with its device after learn has gone. First the injected press's command
    // must have come back: a press while its control's command is in flight is refused, not queued.
    await expect.poll(() => daemon.status().commands.sent, { timeout: 10_000 }).toBe(2)
    device.input(gen2KeyReport([3], 8))
    device.input(gen2KeyReport([], 8))
    await expect.poll(() => daemon.status().commands.sent, { timeout: 10_000 }).toBe(3)
  })

  it('prints exactly what it prints when it opens the devices itself', async () => {
    const events = (device: { input(r: Uint8Array): void }): void => {
      device.input(gen2KeyReport([3], 8))
      device.input(gen2KeyReport([], 8))
      device.input(encoderRotateReport([-1]))
      device.input(gen2KeyReport([0], 8))
    }
    /** Learn over `h` with the daemon's config, through `url`, until both snippets are printed: what it printed after its banner. */
    const linesOf = async (h: Harness, url: string, opened: string): Promise<string[]> => {
      const learner = learn(h, ['--config', file, '--url', url])
      await until(opened, () => h.out.some((l) => l.endsWith('learning as replay')))
      events(h.transport.lastOpened('/dev/hidraw4')!)
      await until('the last snippet', () => h.out.filter((l) => l === FEEDBACK).length === 2)
      const lines = afterBanner(h.out)
      learner.stop.abort()
      expect(await learner.done).toBe(0)
      return lines
    }
    const through = harness()
    through.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const { daemon, file } = await startDaemon(through, config())
    const throughLines = await linesOf(through, daemon.url, 'the daemon’s surface')

    const alone = harness()
    alone.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const aloneLines = await linesOf(alone, 'http://127.0.0.1:1', 'the device open')

    expect(throughLines).toEqual(aloneLines)
    expect(aloneLines).toContain('replay/encoder:0 rotate -1')
    expect(aloneLines).toContain('    - on: replay/key:0')
  })

  it('uses the token of the config, or of PANELBRIDGE_TOKEN, for a daemon bound beyond loopback; without it says how', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const { daemon, file } = await startDaemon(h, config(`{ host: 0.0.0.0, port: 0, token: ${TOKEN} }`))
    const url = daemon.url.replace(/\/$/, '')

    expect(await runLearn(['--url', url], { ...h.deps, env: {} })).toBe(1)
    expect(h.err[0]).toBe(
      `panelbridge learn: a panelbridge daemon is running at ${url} and holds the devices; it wants its token.`,
    )
    expect(h.err[1]).toContain('--token-file FILE, set PANELBRIDGE_TOKEN')
    expect(h.err.join('\n')).not.toContain(TOKEN)

    h.err.length = 0
    expect(await runLearn(['--url', url], { ...h.deps, env: { PANELBRIDGE_TOKEN: 'wrong-token-wrong-token' } })).toBe(1)
    expect(h.err[0]).toContain('it wants its token, and refused the one given.')

    // The config's listen: says port 0 here, so the address is given; the token comes from the config.
    const fromConfig = learn(h, ['--config', file, '--url', url])
    await until('the daemon’s surface', () => h.out.filter((l) => l.endsWith('learning as replay')).length === 1)
    const fromEnv = learn(h, ['--url', url], { PANELBRIDGE_TOKEN: TOKEN })
    await until('the second learner', () => h.out.filter((l) => l.endsWith('learning as replay')).length === 2)
    h.transport.lastOpened('/dev/hidraw4')!.input(gen2KeyReport([1], 8))
    await until('both learners', () => h.out.filter((l) => l === 'replay/key:1 down').length === 2)
    expect(h.transport.opened).toHaveLength(1)
    fromConfig.stop.abort()
    fromEnv.stop.abort()
    expect([await fromConfig.done, await fromEnv.done]).toEqual([0, 0])
  })

  it('ends with exit 1 and says so when the daemon stops', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const { daemon, file } = await startDaemon(h, config())
    const { done } = learn(h, ['--config', file, '--url', daemon.url])
    await until('the daemon’s surface', () => h.out.some((l) => l.endsWith('learning as replay')))
    await daemon.stop()
    expect(await done).toBe(1)
    expect(h.err.join('\n')).toMatch(/the daemon at http:\/\/127\.0\.0\.1:\d+ ended the event stream/)
    expect(h.transport.opened).toHaveLength(1)
  })
})
