/**
 * What the learn tests share: learn run until the test stops it, what it printed after its banner, a URL where
 * no daemon answers (so learn takes the devices itself), and an XK-24's input report.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, onTestFinished } from 'vitest'
import { runLearn } from '../../src/commands/learn.js'
import type { Daemon } from '../../src/daemon/daemon.js'
import { hardwareDrivers } from '../../src/surfaces/drivers.js'
import type { HotplugSource } from '../../src/surfaces/hotplug.js'
import { testDaemon } from '../helpers/in-process-daemon.js'
import { until } from '../helpers/until.js'
import { rawImageEncoder } from '../surfaces/helpers/fake-hid.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import type { Harness } from './hardware-helpers.js'

/** A learn run over the harness: `stop` aborts it, `done` resolves with its exit code. */
export interface Learner {
  stop: AbortController
  done: Promise<number>
}

/** Runs learn until `stop` aborts it (at the latest when the test finishes), with the environment `env`. */
export function learn(h: Harness, args: string[], env: Record<string, string> = {}): Learner {
  const stop = new AbortController()
  const done = runLearn(args, { ...h.deps, stop: stop.signal, env })
  onTestFinished(async () => {
    stop.abort()
    await done
  })
  return { stop, done }
}

/**
 * What learn printed after its banner (the `learning` line and the lines that say what it listens to):
 * the lines that must not depend on where the events come from.
 */
export function afterBanner(out: string[]): string[] {
  let from = out.findIndex((l) => l.startsWith('learning')) + 1
  while (from < out.length && /^(listening to |\s+\((no panelbridge daemon|its devices' events))/.test(out[from]!))
    from++
  return out.slice(from)
}

/**
 * Once learn has printed a line with `text` in it, stops the learner, which must end with exit 0; then what
 * it printed after its banner.
 */
export async function learnedUpTo(h: Harness, learner: Learner, text: string): Promise<string[]> {
  await until(`a line with "${text}"`, () => h.out.some((l) => l.includes(text)))
  learner.stop.abort()
  expect(await learner.done).toBe(0)
  return afterBanner(h.out)
}

/** A daemon over `file` holding the harness's in-memory Stream Decks (the transport learn would share). */
export function harnessDaemon(h: Harness, file: string, hotplug: HotplugSource = new FakeHotplug()): Promise<Daemon> {
  const drivers = hardwareDrivers({ streamdeck: { transport: h.transport, encodeJPEG: rawImageEncoder } })
  const streamdeck = drivers.map((e) => e.driver)
  return testDaemon(file, streamdeck, hotplug)
}

/** A URL where nothing listens (a port just freed), so learn takes the devices itself. */
export async function nobody(): Promise<string> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  await new Promise((r) => server.close(r))
  return url
}
