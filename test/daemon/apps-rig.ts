/**
 * The rig of the daemon tests with several applications (issues 26.3, 27): simulators of their own on port 0,
 * closed at the test's end; the head of a file naming them in `apps:`; the file in a folder of its own; a
 * command sent straight to a simulator behind the daemon's back; a simulator made ready to scrub.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { readReply } from '../../src/api/reply.js'
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/app-kit/simulator/index.js'

/** A simulator of the test's own (its log read, its state changed behind the daemon's back), closed at the end. */
export async function ownSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const s = await startSimulator(options)
  onTestFinished(() => s.close())
  return s
}

/**
 * `version: 1`, `apps:` with each simulator by name at its HTTP and notification addresses (a `[simulator, more]`
 * pair adds `more` inside its braces, e.g. `, mirror_of: main`), and the daemon's `listen:` on 127.0.0.1, port 0.
 */
export function appsHead(apps: Record<string, SimulatorHandle | [SimulatorHandle, string]>): string {
  const lines = Object.entries(apps).map(([name, app]) => {
    const [s, more] = Array.isArray(app) ? app : [app, '']
    return `  ${name}: { url: "${s.httpUrl}", notifications: "${s.wsUrl}"${more} }\n`
  })
  return `version: 1\napps:\n${lines.join('')}listen: { host: 127.0.0.1, port: 0 }\n`
}

/** `text` as `config.yaml` in a new folder (`prefix` names it), removed at the test's end; the file's path. */
export async function configFile(prefix: string, text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'config.yaml')
  await writeFile(file, text)
  return file
}

/**
 * A command sent straight to the simulator over HTTP (another operator, or the test's set-up), its reply read
 * by the one reply reader; the application's error fails the test.
 */
export async function direct(
  s: SimulatorHandle,
  command: string,
  params: Record<string, string> = {},
): Promise<Readonly<Record<string, unknown>>> {
  const res = await fetch(`${s.httpUrl}/api/command/${command}?${new URLSearchParams(params).toString()}`)
  const read = readReply(await res.text())
  if (read.error !== undefined) throw new Error(`${command}: ${read.error}`)
  return read.fields
}

/** Camera 1 armed, replay on and scrubbing, at position 5: where the jog tests start. */
export async function readyToScrub(s: SimulatorHandle): Promise<void> {
  await direct(s, 'replay_arm_inputs', { inputs: 'Camera 1' })
  await direct(s, 'replay_enable')
  await direct(s, 'replay_enable_scrubbing', { enable: 'true' })
  await direct(s, 'replay_set_scrub_position', { position: '5' })
}
