/**
 * systemd's notify protocol against a datagram socket of the test's own (a Unix datagram socket, which
 * Node cannot open: a small python3 listener prints each datagram as a JSON line), with the daemon as
 * its own process: READY=1 once up, RELOADING=1 on SIGHUP, watchdog pings at half WATCHDOG_USEC,
 * STOPPING=1 on SIGTERM; and nothing at all without NOTIFY_SOCKET.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { createNotifier } from '../../src/daemon/sd-notify.js'
import { createLogger } from '../../src/log.js'
import { runCli } from '../helpers/cli.js'
import { LABEL_KEY, simulatedConfig } from '../helpers/config.js'
import { SAFETY_MS } from '../helpers/until.js'

const LISTENER = `
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print(json.dumps({"listening": True}), flush=True)
while True:
    data = s.recv(65536)
    print(json.dumps({"at": time.monotonic() * 1000, "fields": data.decode().split("\\n")}), flush=True)
`
const CONFIG = simulatedConfig(LABEL_KEY)

interface Datagram {
  at: number
  fields: string[]
}

async function listener(path: string): Promise<{ received: Datagram[] }> {
  const py = spawn('python3', ['-c', LISTENER, path], { stdio: ['ignore', 'pipe', 'inherit'] })
  onTestFinished(() => void py.kill('SIGKILL'))
  const received: Datagram[] = []
  const lines = createInterface({ input: py.stdout })
  await new Promise<void>((resolve, reject) => {
    py.once('error', reject)
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as Datagram & { listening?: boolean }
      if (msg.listening) resolve()
      else received.push(msg)
    })
  })
  return { received }
}

describe('sd_notify', () => {
  it('READY=1 once up, watchdog at half the interval, RELOADING=1 on SIGHUP, STOPPING=1 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-notify-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const socketPath = join(dir, 'notify.sock')
    const config = join(dir, 'config.yaml')
    await writeFile(config, CONFIG)
    const { received } = await listener(socketPath)
    const cli = runCli(['run', '--config', config], { env: { NOTIFY_SOCKET: socketPath, WATCHDOG_USEC: '400000' } })
    const daemon = cli.child
    const has = (field: string) => received.filter((d) => d.fields.includes(field))
    await vi.waitFor(() => expect(has('READY=1')).toHaveLength(1), { timeout: SAFETY_MS, interval: 20 })
    const ready = has('READY=1')[0]!
    expect(ready.fields).toContain(`MAINPID=${daemon.pid}`)
    expect(ready.fields.find((f) => f.startsWith('STATUS='))).toMatch(
      /^STATUS=application (connected|link down) \(SIMULATED\); 1 surface open$/,
    )

    // The pings reach the socket (each through a systemd-notify process, whose start a busy machine
    // delays at will: their spacing here says nothing; the interval is pinned on fake time below).
    await vi.waitFor(() => expect(has('WATCHDOG=1').length).toBeGreaterThanOrEqual(3), {
      timeout: SAFETY_MS,
      interval: 20,
    })

    daemon.kill('SIGHUP')
    await vi.waitFor(() => expect(has('RELOADING=1')).toHaveLength(1), { timeout: SAFETY_MS, interval: 20 })
    expect(has('RELOADING=1')[0]!.fields.some((f) => /^MONOTONIC_USEC=\d+$/.test(f))).toBe(true)
    await vi.waitFor(() => expect(has('READY=1')).toHaveLength(2), { timeout: SAFETY_MS, interval: 20 })

    daemon.kill('SIGTERM')
    expect(await cli.exited).toBe(0)
    await vi.waitFor(() => expect(has('STOPPING=1')).toHaveLength(1), { timeout: SAFETY_MS, interval: 20 })
  })

  it('pings the watchdog at half WATCHDOG_USEC, and not after close', () => {
    vi.useFakeTimers()
    onTestFinished(() => void vi.useRealTimers())
    const calls: string[][] = []
    const n = createNotifier({
      env: { NOTIFY_SOCKET: '/x', WATCHDOG_USEC: '400000' },
      log: createLogger('t'),
      run: (a) => (calls.push([...a]), Promise.resolve()),
    })
    const pings = (): number => calls.filter((c) => c.includes('WATCHDOG=1')).length
    n.startWatchdog()
    n.startWatchdog() // a second start keeps the one interval
    vi.advanceTimersByTime(199)
    expect(pings()).toBe(0)
    vi.advanceTimersByTime(1)
    expect(pings()).toBe(1)
    vi.advanceTimersByTime(600)
    expect(pings()).toBe(4)
    n.close()
    vi.advanceTimersByTime(2000)
    expect(pings()).toBe(4)
  })

  it('sends nothing without NOTIFY_SOCKET', () => {
    const calls: string[][] = []
    // A notifier for `env` whose systemd-notify runs land in `calls`.
    const notifier = (env: NodeJS.ProcessEnv) =>
      createNotifier({ env, log: createLogger('t'), run: (a) => (calls.push([...a]), Promise.resolve()) })
    const n = notifier({ WATCHDOG_USEC: '1000' })
    n.ready('x')
    n.status('y')
    n.reloading()
    n.startWatchdog()
    n.stopping()
    n.close()
    expect(calls).toEqual([])
    const m = notifier({ NOTIFY_SOCKET: '/x' })
    m.status('same')
    m.status('same')
    expect(calls).toEqual([['--no-block', `--pid=${process.pid}`, 'STATUS=same']])
  })
})
