/**
 * A Satellite surface in the real daemon, started in this process over the built-in simulator the way the
 * other daemon tests start it (`testDaemon`, no driver given: the daemon adds the satellite driver itself for
 * the config's `satellite:`), reached by a stand-in client: every key drawn on add, a press sends the bound
 * command once, a feedback change reaches the key as a new bitmap, an encoder's rotations scrub, a reconnect
 * repaints every key, `/api/status` shows the server.
 */
import { writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { testConfigFile } from '../helpers/files.js'
import { simulatedDaemonConfig, surfaceState, testDaemon } from '../helpers/in-process-daemon.js'
import { SAFETY_MS, until } from '../helpers/until.js'
import { setLogSink, type LogRecord } from '../../src/log.js'
import { addDevice, manifest, StandInClient } from './stand-in-client.js'

const DEVICE = 'streamdeck:CL12K1A00042'
const CONFIG = simulatedDaemonConfig(
  `  desk2: { driver: satellite, device: "${DEVICE}" }\n`,
  `bindings:
  - on: desk2/key:0
    label: Lower third
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
    feedback: { title: "Lower Third", colors: { Running: "#c00000" } }
  - on: desk2/key:1
    press: [{ command: replay_arm_inputs, params: { inputs: ["Camera 1"] } }, { command: replay_enable }]
  - on: desk2/encoder:1
    jog: { scrub: { step_frames: 1, enter: true } }
satellite: { port: 0 }
`,
)

/** 5×3 keys of 72 pixels and two encoders, the fake device. */
const LAYOUT = manifest(3, 5, 72, 2)

async function statusOf(url: string): Promise<Record<string, unknown>> {
  const res = await fetch(new URL('api/status', url))
  return (await res.json()) as Record<string, unknown>
}

describe('a Satellite surface in the daemon', () => {
  it('is drawn whole on add, presses send once, feedback redraws, encoders scrub, a reconnect repaints', async () => {
    const file = await testConfigFile('satellite-daemon', CONFIG)
    const daemon = await testDaemon(file, [])
    const status = daemon.status().satellite
    expect(status).toMatchObject({ clients: 0, devices: 0 })
    const port = status!.port
    expect(port).toBeGreaterThan(0)
    expect(surfaceState(daemon, 'desk2')).toBe('waiting')

    const c = await StandInClient.connect(port)
    c.send(addDevice(DEVICE, LAYOUT))
    await until('all 15 keys drawn', () => c.keyStates(DEVICE).size === 15)
    expect(surfaceState(daemon, 'desk2')).toBe('open')
    expect(await statusOf(daemon.url)).toMatchObject({ satellite: { port, clients: 1, devices: 1 } })
    const first = c.keyStates(DEVICE).get('0/0')!
    expect(Buffer.from(String(first.params.BITMAP), 'base64').length).toBe(72 * 72 * 3)

    // A press sends the bound command once; the title goes on air and key 0 is redrawn.
    const drawnBefore = c.lines.length
    c.send(`KEY-PRESS DEVICEID="${DEVICE}" CONTROLID="0/0" KEY="0/0" PRESSED=1`)
    c.send(`KEY-PRESS DEVICEID="${DEVICE}" CONTROLID="0/0" KEY="0/0" PRESSED=0`)
    await until('the press sent', () => daemon.status().commands.sent === 1)
    await until('key 0 redrawn on air', () => {
      const now = c.keyStates(DEVICE, drawnBefore).get('0/0')
      return now !== undefined && now.params.BITMAP !== first.params.BITMAP
    })
    expect(daemon.status().commands).toMatchObject({ sent: 1, failed: 0 })

    // Signed rotations on encoder 1 (enc1) scrub: the sum of the steps, exactly.
    c.send(`KEY-PRESS DEVICEID="${DEVICE}" CONTROLID="0/1" KEY="0/1" PRESSED=1`)
    c.send(`KEY-PRESS DEVICEID="${DEVICE}" CONTROLID="0/1" KEY="0/1" PRESSED=0`)
    await until('replay enabled', () => daemon.status().commands.sent === 3)
    for (const d of [7, -3, 5, 1, 1]) c.send(`KEY-ROTATE DEVICEID="${DEVICE}" CONTROLID="enc1" DIRECTION=${d}`)
    await until(
      'every rotation answered',
      () => c.lines.filter((l) => l.command === 'KEY-ROTATE' && l.status === 'OK').length === 5,
    )
    // 7 - 3 + 5 + 1 + 1 = 11 frames of the simulator's 29.97 frames a second.
    const frames = (): number => (daemon.status().replay?.position ?? 0) * 29.97
    await until('the playhead at 11 frames', () => Math.abs(frames() - 11) < 1e-6)

    // The client goes: the surface waits; it comes back: every key is repainted.
    c.close()
    await until('desk2 waiting', () => surfaceState(daemon, 'desk2') === 'waiting')
    const again = await StandInClient.connect(port)
    again.send(addDevice(DEVICE, LAYOUT))
    await until('all 15 keys repainted', () => again.keyStates(DEVICE).size === 15)
    expect(surfaceState(daemon, 'desk2')).toBe('open')
    expect(frames()).toBeCloseTo(11, 6)
  })
})

describe('a Satellite client that never reads, in the daemon', () => {
  it('is dropped at the bound while another client and /api/status keep being answered', async () => {
    const file = await testConfigFile(
      'satellite-silent',
      simulatedDaemonConfig(
        `  desk2: { driver: satellite, device: "${DEVICE}" }\n  mute: { driver: satellite, device: "silent:1" }\n`,
        'satellite: { port: 0 }\n',
      ),
    )
    const logged: LogRecord[] = []
    const previous = setLogSink((r) => {
      logged.push(r)
      previous(r)
    })
    onTestFinished(() => void setLogSink(previous))
    const daemon = await testDaemon(file, [])
    const port = daemon.status().satellite!.port
    // The silent one adds a device of 256 keys of 256×256 pixels (every key drawn on add: far more output than
    // the bound), and never reads a byte.
    const silent = connect({ port, host: '127.0.0.1' })
    onTestFinished(() => void silent.destroy())
    silent.on('error', () => undefined)
    silent.pause()
    silent.write(addDevice('silent:1', manifest(16, 16, 256)) + '\n')
    const other = await StandInClient.connect(port)
    other.send(addDevice(DEVICE, LAYOUT))
    // /api/status is asked over and over while the server draws for the silent one, and answers every time.
    let answered = 0
    const end = Date.now() + SAFETY_MS
    while (!logged.some((r) => r.message === 'dropped a Satellite client: it does not read what the server sends')) {
      if (Date.now() > end) throw new Error('timed out waiting for the silent client to be dropped')
      const status = await statusOf(daemon.url)
      expect(status.satellite).toMatchObject({ port })
      answered++
    }
    expect(answered).toBeGreaterThan(0)
    await until('all 15 keys of the other drawn', () => other.keyStates(DEVICE).size === 15)
    other.send('PING alive')
    await other.waitFor('PONG', (l) => l.raw === 'PONG alive')
    expect(await statusOf(daemon.url)).toMatchObject({ satellite: { port, clients: 1, devices: 1 } })
    expect(surfaceState(daemon, 'desk2')).toBe('open')
    // Its surface waits for it to come back.
    await until('mute waiting', () => surfaceState(daemon, 'mute') === 'waiting')
  })
})

describe('satellite: in a reload', () => {
  it('starts the server when the section comes, keeps its port while it stays, stops it when it goes', async () => {
    const without = simulatedDaemonConfig(`  desk2: { driver: satellite, device: "${DEVICE}" }\n`)
    const file = await testConfigFile('satellite-reload', without)
    const daemon = await testDaemon(file, [])
    expect(daemon.status().satellite).toBeUndefined()
    await writeFile(file, `${without}satellite: { port: 0 }\n`)
    expect(await daemon.reload()).toBe(true)
    const port = daemon.status().satellite!.port
    const c = await StandInClient.connect(port)
    c.send(addDevice(DEVICE, LAYOUT))
    await until('desk2 open', () => surfaceState(daemon, 'desk2') === 'open')
    // Only allow changes: the same server, the client still attached.
    await writeFile(file, `${without}satellite: { port: 0, allow: [127.0.0.1] }\n`)
    expect(await daemon.reload()).toBe(true)
    expect(daemon.status().satellite).toMatchObject({ port, clients: 1, devices: 1 })
    await writeFile(file, without)
    expect(await daemon.reload()).toBe(true)
    expect(daemon.status().satellite).toBeUndefined()
    await c.waitClosed()
    await until('desk2 waiting', () => surfaceState(daemon, 'desk2') === 'waiting')
  })
})
