/**
 * End to end with real processes: `panelbridge sim --log-commands FILE` and `panelbridge run` with a
 * config, talking over loopback. A press through the remote API reaches the simulator as the right
 * command (read from its command log); the simulator's notification changes the control's colour as
 * read back through the API; a stopped simulator marks state-driven controls stale, a press meanwhile
 * fails and never reaches the restarted simulator; recovery is automatic; a broken reload keeps the old
 * bindings and a good one adds a binding; SIGTERM during a jog storm exits within the bound.
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runCli, type CliChild } from '../helpers/cli.js'
import { e2eConfig, saveAsEditors } from './helpers.js'
import { SAFETY_MS } from '../helpers/until.js'

const WAIT = { timeout: SAFETY_MS, interval: 25 }

const start = (args: string[]): CliChild => runCli(args)

async function waitForLine(c: CliChild, re: RegExp): Promise<RegExpExecArray> {
  let m: RegExpExecArray | null = null
  await expect.poll(() => (m = re.exec(c.stdout())) !== null, { timeout: SAFETY_MS, interval: 25 }).toBe(true)
  return m!
}

async function startSim(
  logFile: string,
  ports?: { http: number; ws: number },
): Promise<{ child: CliChild; http: string; ws: string }> {
  const child = start([
    'sim',
    '--port',
    String(ports?.http ?? 0),
    '--ws-port',
    String(ports?.ws ?? 0),
    '--log-commands',
    logFile,
  ])
  const http = (await waitForLine(child, /listening on (http:\/\/\S+)/))[1]!
  const ws = (await waitForLine(child, /QWebChannel WebSocket on (ws:\/\/\S+)/))[1]!
  return { child, http, ws }
}

function logged(file: string): { name: string; parameters: Record<string, unknown> }[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { name: string; parameters: Record<string, unknown> })
}

const config = (sim: { http: string; ws: string }, extra = ''): string => e2eConfig(sim, extra)

async function api(
  base: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL(path, base), { method })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('panelbridge run with the simulator as its own process', () => {
  it('press → command log; notification → colour; outage → stale and failed; recovery; reloads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-e2e-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const log1 = join(dir, 'sim1.jsonl')
    const sim = await startSim(log1)
    const file = join(dir, 'config.yaml')
    await writeFile(file, config(sim))
    const daemon = start(['run', '--config', file])
    const base = (await waitForLine(daemon, /panelbridge running: (http:\/\/\S+)/))[1]!
    const control = 'api/surfaces/console/controls/key%3A0'
    await expect.poll(async () => (await api(base, 'api/status')).body.app, WAIT).toMatchObject({ state: 'connected' })

    expect(await api(base, `${control}/press`, 'POST')).toEqual({ status: 200, body: { ok: true } })
    await expect
      .poll(() => logged(log1).filter((e) => e.name === 'schedule'), WAIT)
      .toEqual([
        expect.objectContaining({ parameters: expect.objectContaining({ action: 'cutin', title: 'Lower Third' }) }),
      ])
    // cutin goes straight to Paused: the notification reaches the key.
    await expect.poll(async () => (await api(base, control)).body.color, WAIT).toBe('#d08000')

    // The application goes away: state-driven controls are stale; a press fails and is not queued.
    const simExit = sim.child.exited
    sim.child.child.kill('SIGTERM')
    await simExit
    await expect.poll(async () => (await api(base, control)).body.badge, WAIT).toBe('stale')
    await api(base, `${control}/press`, 'POST')
    await expect.poll(async () => (await api(base, control)).body.badge, WAIT).toBe('failed')
    expect((await api(base, 'api/status')).body.commands).toMatchObject({ failed: 1 })

    // The same application comes back on the same ports: the daemon recovers on its own.
    const log2 = join(dir, 'sim2.jsonl')
    const ports = { http: Number(new URL(sim.http).port), ws: Number(new URL(sim.ws).port) }
    await startSim(log2, ports)
    await expect
      .poll(async () => (await api(base, 'api/status')).body.app, { timeout: SAFETY_MS, interval: 50 })
      .toMatchObject({
        state: 'connected',
      })
    await expect.poll(async () => (await api(base, control)).body.badge, WAIT).toBeUndefined()
    expect(logged(log2).filter((e) => e.name === 'schedule')).toEqual([])

    // A broken file keeps the old bindings; a good one adds a binding.
    const save = (text: string): Promise<void> => saveAsEditors(file, text)
    await save(config(sim, '  - on: console/key:9\n    label: "x"\n'))
    await expect.poll(() => daemon.stderr() + daemon.stdout(), WAIT).toContain('config refused')
    expect((await api(base, control)).body.label).toBe('Lower Third')
    await save(config(sim, '  - on: console/key:1\n    label: "Added"\n'))
    await expect
      .poll(async () => (await api(base, 'api/surfaces/console/controls/key:1')).body.label, WAIT)
      .toBe('Added')

    const code = daemon.exited
    daemon.child.kill('SIGTERM')
    expect(await code).toBe(0)
  })

  it('SIGTERM during a jog storm exits within the bound with no unhandled rejection; a second SIGTERM changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-e2e-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const sim = await startSim(join(dir, 'sim.jsonl'))
    await fetch(`${sim.http}/api/command/replay_arm_inputs?inputs=Camera%201`)
    await fetch(`${sim.http}/api/command/replay_enable`)
    await fetch(`${sim.http}/api/command/replay_enable_scrubbing?enable=true`)
    const file = join(dir, 'config.yaml')
    await writeFile(file, config(sim))
    // At info level: the second SIGTERM below waits for the "stopping" line of the first.
    const daemon = runCli(['run', '--config', file], { env: { PANELBRIDGE_LOG_LEVEL: 'info' } })
    const base = (await waitForLine(daemon, /panelbridge running: (http:\/\/\S+)/))[1]!
    let storming = true
    const storm = (async () => {
      while (storming) {
        await Promise.all(
          Array.from({ length: 20 }, () =>
            fetch(new URL('api/surfaces/console/controls/jog/rotate?delta=1', base), { method: 'POST' }).catch(
              () => undefined,
            ),
          ),
        )
      }
    })()
    await expect
      .poll(() => logged(join(dir, 'sim.jsonl')).filter((e) => e.name === 'replay_set_scrub_position').length, WAIT)
      .toBeGreaterThan(3)
    daemon.child.kill('SIGTERM')
    // The second SIGTERM once the first is taken: it finds the daemon stopping.
    await daemon.waitFor(/stopping/)
    daemon.child.kill('SIGTERM')
    const code = await daemon.exited
    storming = false
    await storm
    // Exit 0 is the bound kept: a close that outlasts STOP_BOUND_MS exits 1 and says so.
    expect(code).toBe(0)
    expect(daemon.stderr() + daemon.stdout()).not.toMatch(/stop took longer than/)
    expect(daemon.stderr()).not.toMatch(/unhandled|UnhandledPromiseRejection/i)
  })
})
