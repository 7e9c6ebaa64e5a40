/**
 * Companion Satellite's own client as the judge of panelbridge's Satellite server (issue 44): the
 * protocol client of `bitfocus/companion-satellite` (8bc2f14, vendored unmodified in
 * `src/app-kit/vendor/companion-satellite/`, loaded by `satellite-client.ts`) connects to a daemon in
 * this process (the server on port 0, the simulator in this process too) and adds a fake device of
 * fifteen keys in three rows of five and two encoders, claimed as `desk2`. Every key gets a bitmap of
 * the size the device declared; a press sends the bound `schedule` once and the key is drawn again when
 * the title is on air; an encoder's signed turns scrub the replay to the exact frame; the client
 * disconnected and connected again, every key is drawn again. The same client over the WebSocket link
 * (`ws_port`) gets its keys and sends its press too.
 *
 * How soon the keys arrive is the bench's to measure (`bench/satellite.bench.ts`); here every wait ends
 * at its event, with SAFETY_MS as the net.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import type { Daemon } from '../../src/daemon/daemon.js'
import { direct, ownSimulator, readyToScrub } from '../daemon/apps-rig.js'
import { testConfigFile } from '../helpers/files.js'
import { surfaceState } from '../helpers/in-process-daemon.js'
import { captureLogs } from '../helpers/logs.js'
import { SAFETY_MS, until } from '../helpers/until.js'
import { satelliteDaemon } from './daemon-rig.js'
import {
  CLIENT_DIR,
  encoderId,
  judgeLayout,
  judgeProps,
  JudgeHost,
  KEY_IDS,
  KEY_PX,
  keyId,
  loadSatelliteClient,
  type ConnectionDetails,
  readBitmap,
} from './satellite-client.js'

const WAIT = { timeout: SAFETY_MS, interval: 10 }
const TITLE = 'Lower Third'
const DEVICE = 'JUDGE-5x3'
/** key:7 is the third key of the second row: the press and feedback key, away from key:0 so row order counts. */
const PRESS_KEY = 7
/** The keys no binding shows (key:7 and key:14 are labelled): blank, their drawing never changes. */
const UNBOUND = Array.from({ length: 15 }, (_, n) => n)
  .filter((n) => n !== PRESS_KEY && n !== 14)
  .map((n) => keyId(n))
/** encoder:1, the second encoder: the jog. */
const JOG = 1

/** Git blob ids of the vendored files at 8bc2f14 (upstream `satellite/src/…`, and the repository's LICENSE). */
const VENDORED_BLOBS: Record<string, string> = {
  'client/client.ts': 'aebe2b2d563bfe4082d7c73c29b7c09e2b343a6c',
  'client/parser.ts': '4c32087845ae79066b21c17956dcdb008c588501',
  'client/socketImplementations.ts': '2636c47185f2c9788c96119937c7daebd5bb04a9',
  'lib.ts': '0072973599fe3c20d430cf114ed244b84de4e011',
  'generated/SurfaceManifestSchema.ts': 'f98a41aa9c950dc9d34eb445d344682d230a3ca0',
  'generated/SatelliteConfigFieldsSchema.ts': '742bd5f67eb5c2d25b4091e245aea889f372843e',
  LICENSE: '772f57c4ae1e513994d59ec696d7293fb6cde7a3',
}

function configText(sim: SimulatorHandle, satellite = '{ port: 0 }'): string {
  return `version: 1
app: { url: ${sim.httpUrl}, notifications: ${sim.wsUrl} }
listen: { host: 127.0.0.1, port: 0 }
satellite: ${satellite}
surfaces:
  desk2: { driver: satellite, device: "${DEVICE}" }
bindings:
  - on: desk2/key:${PRESS_KEY}
    label: "{{name}}"
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
    feedback: { title: "${TITLE}" }
  - on: desk2/key:14
    label: Last
  - on: desk2/encoder:${JOG}
    jog: { scrub: { step_frames: 1 } }
`
}

/** Where the daemon's Satellite server listens, as `/api/status` says: its TCP port, and its WebSocket one if any. */
async function satelliteAddress(daemon: Daemon): Promise<{ port: number; wsPort: number | undefined }> {
  const res = await fetch(new URL('api/status', daemon.url))
  const status = (await res.json()) as { satellite?: { port?: unknown; ws_port?: unknown } }
  const { port, ws_port: wsPort } = status.satellite ?? {}
  if (typeof port !== 'number' || port <= 0) {
    throw new Error(`/api/status names no Satellite port: ${JSON.stringify(status.satellite)}`)
  }
  return { port, wsPort: typeof wsPort === 'number' ? wsPort : undefined }
}

/** Satellite's client, connected; resolves once it says it is connected (after `BEGIN` and `CAPS`). */
async function connectedClient(details: ConnectionDetails): Promise<JudgeHost> {
  const Client = await loadSatelliteClient()
  const host = new JudgeHost(new Client(), DEVICE)
  onTestFinished(() => host.close())
  await connect(host, details)
  return host
}

async function connect(host: JudgeHost, details: ConnectionDetails): Promise<void> {
  const connects = host.connects
  await host.client.connect(details)
  await until('the client connected (BEGIN, then CAPS)', () => host.connects > connects)
}

/** The device added; resolves when every key has a bitmap drawn after the add, with the time that took. */
async function addAndPaint(host: JudgeHost): Promise<{ ms: number; mark: number }> {
  const mark = host.draws.length
  const t0 = performance.now()
  host.client.addDevice(DEVICE, 'Judge deck', judgeProps(DEVICE))
  await until('every key drawn', () => KEY_IDS.every((id) => host.paintedSince(mark).has(id)))
  const ms = Math.max(...KEY_IDS.map((id) => host.drawsSince(mark, id).find((d) => d.image)!.at)) - t0
  return { ms, mark }
}

/** A daemon and the client attached over TCP (or WebSocket), the device added and every key drawn. */
async function start(over: 'tcp' | 'ws' = 'tcp') {
  const logs = captureLogs()
  const sim = await ownSimulator()
  const satellite = over === 'ws' ? '{ port: 0, ws_port: 0 }' : '{ port: 0 }'
  const daemon = await satelliteDaemon(await testConfigFile('satellite-judge', configText(sim, satellite)))
  const { port, wsPort } = await satelliteAddress(daemon)
  if (over === 'ws' && wsPort === undefined) throw new Error('/api/status names no Satellite WebSocket port')
  const details: ConnectionDetails =
    over === 'ws' ? { mode: 'ws', url: `ws://127.0.0.1:${wsPort}` } : { mode: 'tcp', host: '127.0.0.1', port }
  const host = await connectedClient(details)
  const painted = await addAndPaint(host)
  expect(host.added).toEqual([DEVICE])
  await expect.poll(() => surfaceState(daemon, 'desk2'), WAIT).toBe('open')
  // The labelled keys' faces have come (each key's first drawing is the blank of the open).
  const blank = host.lastImage(keyId(0))
  await until('the labelled keys drawn', () => [keyId(PRESS_KEY), keyId(14)].every((k) => host.lastImage(k) !== blank))
  return { logs, sim, daemon, details, host, painted }
}

describe("Companion Satellite's own client against panelbridge's Satellite server", () => {
  it('the vendored client is byte for byte the one at 8bc2f14', () => {
    for (const [file, blob] of Object.entries(VENDORED_BLOBS)) {
      const bytes = readFileSync(join(CLIENT_DIR, file))
      const id = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
      expect(id, file).toBe(blob)
    }
  })

  it('every key of the device added gets a bitmap of the size it declared; the encoders get none', async ({
    annotate,
  }) => {
    const { host, painted } = await start()
    expect(painted.ms).toBeLessThan(SAFETY_MS)
    // The time is recorded, not judged: the bench holds it to the 1 s.
    await annotate(`every key's bitmap ${painted.ms.toFixed(1)} ms after ADD-DEVICE`)
    for (const id of KEY_IDS) {
      const bitmap = readBitmap(host.lastImage(id)!)
      expect({ id, width: bitmap.width, height: bitmap.height }).toEqual({ id, width: KEY_PX, height: KEY_PX })
    }
    // The encoders have no display (style preset `empty`): nothing is drawn on them.
    expect(host.draws.filter((d) => d.control === encoderId(0) || d.control === encoderId(1))).toEqual([])
    // The labelled keys differ from a blank one: the bitmaps are drawn, not filler.
    expect(host.lastImage(keyId(14))).not.toBe(host.lastImage(keyId(0)))
    expect(host.lastImage(keyId(PRESS_KEY))).not.toBe(host.lastImage(keyId(0)))
    // The device draws its own pin-code lock (Satellite adds it with PINCODE_LOCK): it was told, in a
    // LOCKED-STATE the client reads, that it is not locked.
    expect(host.locked).toEqual([{ deviceId: DEVICE, locked: false, characterCount: 0 }])
    // The client reported no error of its own and was never refused.
    expect(host.errors).toEqual([])
    expect(host.refused).toEqual([])
    expect(host.logs.filter((l) => /unhandled|missing|bad |failed|unsupported|timeout/i.test(l))).toEqual([])
    expect(host.disconnects).toBe(0)
  })

  it('a press sends the bound schedule once; the key is drawn again when the title is on air', async () => {
    const { sim, daemon, host } = await start()
    const id = keyId(PRESS_KEY)
    const before = host.lastImage(id)
    const mark = host.draws.length
    const control = judgeLayout().controls[id]!
    host.client.keyDown(DEVICE, id, control)
    host.client.keyUp(DEVICE, id, control)
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => [e.parameters.action, e.parameters.title]), WAIT)
      .toEqual([['cutin', TITLE]])
    await until('the title on air', () => sim.state.titles.some((t) => t.name === TITLE && t.playState !== 'Off'))
    await expect
      .poll(() => daemon.controlState('desk2', `key:${PRESS_KEY}`), WAIT)
      .toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    await until('the key drawn again, changed', () =>
      host.drawsSince(mark, id).some((d) => d.image !== undefined && d.image !== before),
    )
    // Once: a read straight at the simulator comes after anything the daemon sent before it.
    await direct(sim, 'getTitlesPlayStatus')
    expect(sim.http.commands('schedule')).toHaveLength(1)
    // None of the keys no binding shows was drawn again.
    expect(host.drawsSince(mark).filter((d) => UNBOUND.includes(d.control))).toEqual([])
  })

  it("an encoder's signed turns scrub the replay to the exact frame", async () => {
    const { sim, host } = await start()
    await readyToScrub(sim)
    const fps = Number((await direct(sim, 'replay_get_play_info')).frameRate)
    expect(fps).toBeGreaterThan(0)
    const id = encoderId(JOG)
    const control = judgeLayout().controls[id]!
    const turns = [3, -1, 7, -2, 1, 12, -5, 1, 1, -4]
    for (const delta of turns) host.client.rotate(DEVICE, id, control, delta)
    const sum = turns.reduce((a, b) => a + b, 0)
    // The cursor is in whole frames, seeded from the scrub position (test/mappings/continuous.test.ts).
    const expected = (Math.round(5 * fps) + sum) / fps
    await expect.poll(() => sim.state.replay.scrubPosition, WAIT).toBeCloseTo(expected, 6)
    // The other encoder is bound to nothing: turning it moves nothing.
    const scrubs = sim.http.commands('replay_set_scrub_position').length
    host.client.rotate(DEVICE, encoderId(1 - JOG), judgeLayout().controls[encoderId(1 - JOG)]!, 5)
    await direct(sim, 'replay_get_play_info')
    expect(sim.state.replay.scrubPosition).toBeCloseTo(expected, 6)
    expect(sim.http.commands('replay_set_scrub_position').length).toBe(scrubs)
  })

  it('the client disconnected and connected again: the surface waits, then every key is drawn again as it was', async ({
    annotate,
  }) => {
    const { sim, daemon, details, host } = await start()
    // The title on air first, so the repaint has a key that is not its first, blank-state drawing.
    const id = keyId(PRESS_KEY)
    const offAir = host.lastImage(id)
    const control = judgeLayout().controls[id]!
    host.client.keyDown(DEVICE, id, control)
    host.client.keyUp(DEVICE, id, control)
    await until('the title on air', () => sim.state.titles.some((t) => t.name === TITLE && t.playState !== 'Off'))
    await expect
      .poll(() => daemon.controlState('desk2', `key:${PRESS_KEY}`), WAIT)
      .toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    const shown = new Map(KEY_IDS.map((k) => [k, host.lastImage(k)]))

    const disconnects = host.disconnects
    host.client.disconnect()
    await expect.poll(() => surfaceState(daemon, 'desk2'), WAIT).not.toBe('open')
    // The client's own close seen too: connected again before it, the old link's close would mark the new
    // one disconnected inside the client (its onClose), and its ADD-DEVICE would never be sent.
    await until('the client saw its link close', () => host.disconnects > disconnects)
    await connect(host, details)
    const again = await addAndPaint(host)
    expect(again.ms).toBeLessThan(SAFETY_MS)
    await annotate(`every key's bitmap ${again.ms.toFixed(1)} ms after ADD-DEVICE on the new link`)
    expect(host.added).toEqual([DEVICE, DEVICE])
    await expect.poll(() => surfaceState(daemon, 'desk2'), WAIT).toBe('open')
    // Every key drawn again (addAndPaint waited for each): the keys no binding shows exactly as before
    // the link dropped, the pressed one in its on-air state (not its off-air drawing, not blank).
    const repainted = (k: string): string | undefined => host.drawsSince(again.mark, k).findLast((d) => d.image)?.image
    expect(UNBOUND.filter((k) => repainted(k) !== shown.get(k))).toEqual([])
    expect(repainted(id)).not.toBe(offAir)
    expect(repainted(id)).not.toBe(repainted(keyId(0)))
    expect(host.errors).toEqual([])
  })

  it('removed and added again on the same link: the surface waits, then every key is drawn again', async () => {
    const { daemon, host } = await start()
    const shown = new Map(KEY_IDS.map((k) => [k, host.lastImage(k)]))
    host.client.removeDevice(DEVICE)
    await expect.poll(() => surfaceState(daemon, 'desk2'), WAIT).not.toBe('open')
    const again = await addAndPaint(host)
    expect(again.ms).toBeLessThan(SAFETY_MS)
    await expect.poll(() => surfaceState(daemon, 'desk2'), WAIT).toBe('open')
    // Every key drawn again (addAndPaint waited for each); the keys no binding shows exactly as before, the
    // labelled ones not blank. (A labelled key's face may still have been on its way when `shown` was
    // read: its first drawing is the blank of the open, its face follows.)
    const repainted = (k: string): string | undefined => host.drawsSince(again.mark, k).findLast((d) => d.image)?.image
    expect(UNBOUND.filter((k) => repainted(k) !== shown.get(k))).toEqual([])
    for (const k of [keyId(PRESS_KEY), keyId(14)]) expect(repainted(k)).not.toBe(repainted(keyId(0)))
    expect(host.disconnects).toBe(0)
  })

  it('a second Satellite adding the same device id is refused, as the client reads a refusal; the first keeps the surface', async () => {
    const { sim, details, host } = await start()
    const second = await connectedClient(details)
    second.client.addDevice(DEVICE, 'Judge deck', judgeProps(DEVICE))
    await until('the second add refused', () => second.refused.length > 0)
    expect(second.refused).toEqual([{ deviceId: DEVICE, message: expect.any(String) as string }])
    expect(second.refused[0]!.message).not.toBe('Unknown Error')
    expect(second.added).toEqual([])
    // The first still has it: its press goes through, and the second's never would.
    const id = keyId(PRESS_KEY)
    const control = judgeLayout().controls[id]!
    host.client.keyDown(DEVICE, id, control)
    host.client.keyUp(DEVICE, id, control)
    await expect.poll(() => sim.http.commands('schedule').length, WAIT).toBe(1)
    expect(second.draws).toEqual([])
  })

  it("over WebSocket (Satellite's other link): every key drawn, and a press sends its schedule", async () => {
    const { sim, host, details } = await start('ws')
    expect(details.mode).toBe('ws')
    expect(KEY_IDS.filter((id) => readBitmap(host.lastImage(id)!).width !== KEY_PX)).toEqual([])
    const id = keyId(PRESS_KEY)
    const control = judgeLayout().controls[id]!
    host.client.keyDown(DEVICE, id, control)
    host.client.keyUp(DEVICE, id, control)
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => [e.parameters.action, e.parameters.title]), WAIT)
      .toEqual([['cutin', TITLE]])
    expect(host.errors).toEqual([])
  })
})
