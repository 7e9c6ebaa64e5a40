/**
 * Configured hardware that is not plugged in (issue 22, item 10), in a real daemon: the simulator, the
 * real Stream Deck driver over an in-memory transport, the remote API on 127.0.0.1 port 0. A press on a
 * waiting surface is refused (409, the reply says it is waiting) unless it rehearses (`rehearse: true`
 * on the surface, or `run --rehearse`), when it reaches the application and the reply says it was a
 * rehearsal; `run` logs each waiting surface once, not again at every hot-plug scan or reload.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink, type LogRecord } from '../../src/log.js'
import { until } from '../helpers/until.js'
import { MemoryStreamDeckTransport } from '../surfaces/helpers/fake-hid.js'
import { deckDaemon, WAITING_CONFIG_HEAD } from './deck-daemon.js'
import { call } from './helpers.js'

const cleanups: (() => Promise<unknown> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const CONFIG = `${WAITING_CONFIG_HEAD}  - on: desk/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: spare/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`

async function start(text = CONFIG, rehearse = false) {
  const dir = await mkdtemp(join(tmpdir(), 'pb-waiting-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, text)
  const logs: LogRecord[] = []
  const prev = setLogSink((r) => logs.push(r))
  const transport = new MemoryStreamDeckTransport()
  const scans = vi.spyOn(transport, 'list')
  const { daemon, hotplug } = await deckDaemon(file, transport, { rehearse })
  cleanups.push(async () => {
    await daemon.stop()
    setLogSink(prev)
    await rm(dir, { recursive: true, force: true })
  })
  await until('the application link', () => daemon.status().app.state === 'connected')
  return { daemon, logs, transport, hotplug, scans, file }
}

const press = (daemon: Daemon, surface: string, control = 'key:0') =>
  call(daemon.url, 'POST', `/api/surfaces/${surface}/controls/${control}/press`)

describe('a press on a surface waiting for its device', () => {
  it('is refused without rehearse: 409 SURFACE_NOT_OPEN, the message says it waits for a Stream Deck XL', async () => {
    const { daemon } = await start()
    expect(daemon.status().surfaces).toContainEqual(expect.objectContaining({ name: 'desk', state: 'waiting' }))
    const r = await press(daemon, 'desk')
    expect(r.status).toBe(409)
    const error = (r.json as { error: { code: string; message: string } }).error
    expect(error.code).toBe('SURFACE_NOT_OPEN')
    expect(error.message).toContain('waiting for Stream Deck XL (not plugged in)')
    expect(error.message).toContain('rehearse: true')
    expect(daemon.status().commands.sent).toBe(0)
    // The model the config names has 32 keys: key:40 is no control of it, waiting or not.
    expect((await press(daemon, 'desk', 'key:40')).status).toBe(404)
  })

  it('with rehearse: true reaches the application, and the reply says it was a rehearsal', async () => {
    const { daemon } = await start()
    const r = await press(daemon, 'spare')
    expect([r.status, r.json]).toEqual([200, { ok: true, rehearsal: true, waitingFor: 'Stream Deck Mini' }])
    await until('the command sent', () => daemon.status().commands.sent === 1)
    expect(daemon.status().commands.failed).toBe(0)
    expect((await press(daemon, 'spare', 'key:6')).status).toBe(404) // a Mini has 6 keys: key:0..key:5
  })

  it('with run --rehearse, every waiting surface rehearses', async () => {
    const { daemon } = await start(CONFIG, true)
    const r = await press(daemon, 'desk')
    expect([r.status, r.json]).toEqual([200, { ok: true, rehearsal: true, waitingFor: 'Stream Deck XL' }])
    await until('the command sent', () => daemon.status().commands.sent === 1)
  })

  it('is an ordinary press (no rehearsal in the reply) once the device is plugged in', async () => {
    const { daemon, transport, hotplug } = await start()
    transport.plug('mini' as never, '/dev/hidraw-spare', 'SPARE1')
    hotplug.fire('attach')
    await until('the spare deck open', () =>
      daemon.status().surfaces.some((s) => s.name === 'spare' && s.state === 'open'),
    )
    const r = await press(daemon, 'spare')
    expect([r.status, r.json]).toEqual([200, { ok: true }])
  })
})

describe('run logs each waiting surface', () => {
  const waitingLines = (logs: LogRecord[], surface: string) =>
    logs.filter((l) => l.message.startsWith(`surface ${surface} is waiting for`))

  it('once, whatever the hot-plug scans and reloads, and again only after its device was open', async () => {
    const { daemon, logs, transport, hotplug, scans } = await start()
    expect(waitingLines(logs, 'desk')).toHaveLength(1)
    expect(waitingLines(logs, 'desk')[0]).toMatchObject({ level: 'warn', fields: { surface: 'desk', rehearse: false } })
    expect(waitingLines(logs, 'spare')).toHaveLength(1)
    for (let i = 0; i < 3; i++) {
      const before = scans.mock.calls.length
      hotplug.fire('attach')
      await until('a hot-plug scan', () => scans.mock.calls.length > before)
    }
    expect(await daemon.reload()).toBe(true)
    expect(waitingLines(logs, 'desk')).toHaveLength(1)

    transport.plug('xl' as never, '/dev/hidraw-desk')
    hotplug.fire('attach')
    await until('the desk open', () => daemon.status().surfaces.some((s) => s.name === 'desk' && s.state === 'open'))
    transport.unplug('/dev/hidraw-desk')
    hotplug.fire('detach')
    await until('the desk waiting again', () => waitingLines(logs, 'desk').length === 2)
    expect(daemon.status().surfaces).toContainEqual(expect.objectContaining({ name: 'desk', state: 'waiting' }))
  })
})
