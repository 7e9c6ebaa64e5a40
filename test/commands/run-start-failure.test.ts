/**
 * A daemon that cannot start because of its configuration says what is in the way and what to change,
 * and exits EXIT.config (78), which the unit's RestartPreventExitStatus= names: systemd stops instead of
 * restart-looping on a port the application itself holds. `run` and `sim` run as their own processes,
 * against ports another listener on loopback really holds (takenPort).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { DaemonConfigError } from '../../src/daemon/daemon.js'
import { startFailureExit } from '../../src/commands/run.js'
import { EXIT } from '../../src/commands/subcommand.js'
import { freePort, takenPort } from '../daemon/helpers.js'
import { runCli } from '../helpers/cli.js'
import { LABEL_KEY } from '../helpers/config.js'

const SURFACES = `surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
${LABEL_KEY}`

/** `run --config` on `text`: its exit code and everything it printed. */
async function run(text: string): Promise<{ code: number | null; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-start-failure-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const config = join(dir, 'config.yaml')
  await writeFile(config, text)
  const cli = runCli(['run', '--config', config])
  const code = await cli.exited
  await cli.waitFor(/cannot start|refused/)
  return { code, out: cli.out() }
}

describe('run: a simulator that cannot take its port', () => {
  it('the application’s port taken: names the simulator, the address, the likely cause and the settings; exit 78', async () => {
    const port = await takenPort()
    const { code, out } = await run(`version: 1
app: { url: http://127.0.0.1:${port}, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
${SURFACES}`)
    expect(code, out).toBe(EXIT.config)
    expect(out).toContain(
      `panelbridge: cannot start: the built-in simulator (app.simulate) cannot listen on 127.0.0.1:${port}: ` +
        'the port is in use (is the application running here?); to drive the application there, remove ' +
        'app.simulate (or set it to false); to keep the simulator, give app.url another port\n',
    )
  })

  it('its notifications port taken: names app.notifications', async () => {
    const [http, ws] = [await freePort(), await takenPort()]
    const { code, out } = await run(`version: 1
app: { url: http://127.0.0.1:${http}, notifications: ws://127.0.0.1:${ws}, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
${SURFACES}`)
    expect(code, out).toBe(EXIT.config)
    expect(out).toContain(`cannot listen on 127.0.0.1:${ws}: the port is in use (is the application running here?)`)
    expect(out).toContain('give app.notifications another port')
  })

  it('an application of apps: names its own entry', async () => {
    const port = await takenPort()
    const { code, out } = await run(`version: 1
apps:
  main: { url: http://127.0.0.1:0, simulate: true }
  backup: { url: http://127.0.0.1:${port}, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
${SURFACES}`)
    expect(code, out).toBe(EXIT.config)
    expect(out).toContain(`the built-in simulator (apps.backup.simulate) cannot listen on 127.0.0.1:${port}`)
    expect(out).toContain('remove apps.backup.simulate (or set it to false)')
    expect(out).toContain('give apps.backup.url another port')
  })
})

describe('run: the other configuration failures exit 78 too', () => {
  it('its own listener’s port taken', async () => {
    const port = await takenPort()
    const { code, out } = await run(`version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: ${port} }
${SURFACES}`)
    expect(code, out).toBe(EXIT.config)
    expect(out).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`)
  })

  it('a refused file', async () => {
    const { code, out } = await run('version: 1\napp: { url: 12 }\n')
    expect(code, out).toBe(EXIT.config)
    expect(out).toMatch(/config\.yaml: refused \(\d+ errors?\)/)
  })

  it('anything else is 1 (systemd may restart it): the classification', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen' })
    expect(startFailureExit(new DaemonConfigError(['x:1:1: bad']))).toBe(EXIT.config)
    expect(startFailureExit(new Error('wrapped', { cause: inUse }))).toBe(EXIT.config)
    expect(startFailureExit(new Error('no memory'))).toBe(EXIT.failure)
    // EADDRINUSE that is not a listen (a connect's local port) is no configuration problem.
    const connect = Object.assign(new Error('connect EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'connect' })
    expect(startFailureExit(connect)).toBe(EXIT.failure)
  })
})

describe('sim: its port taken', () => {
  it('names the address, the likely cause and the option to change', async () => {
    const port = await takenPort()
    const cli = runCli(['sim', '--port', String(port), '--ws-port', '0'])
    const code = await cli.exited
    await cli.waitFor(/cannot start the simulator/)
    expect(code, cli.out()).toBe(1)
    expect(cli.out()).toContain(
      `panelbridge: cannot start the simulator: cannot listen on 127.0.0.1:${port}: the port is in use ` +
        '(is the application running here?); give --port another port\n',
    )
  })
})
