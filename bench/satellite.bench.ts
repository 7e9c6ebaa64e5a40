/**
 * Satellite bench (issue 44): a surface reached through Companion Satellite against a local Stream Deck,
 * in one daemon in this process, in the same run, against the simulator (in this process too, over
 * loopback HTTP and its notification socket).
 *
 * - The Satellite side is Satellite's own protocol client (vendored unmodified, loaded by
 *   `test/satellite/satellite-client.ts`) over loopback TCP, with a device of fifteen 72×72 keys and
 *   two encoders; the Stream Deck is a Stream Deck MK.2 (fifteen 72×72 keys) through the real driver and
 *   `@elgato-stream-deck/core` over an in-memory HID device, with the library's real JPEG encoder.
 * - Press: from the press (the client's `KEY-PRESS` written / the deck's input report delivered) to the
 *   bound `schedule` arriving at the simulator, i.e. the command out of the daemon and across loopback.
 * - Feedback: from the bench's request that changes a title's play state at the simulator to the key's
 *   new image leaving the daemon: the `KEY-STATE` line as the client reads it off loopback, the deck's
 *   first key-image report written to the device. The request's own round trip is printed beside them:
 *   it is in both figures, the application's part of the path.
 * - Add: from `ADD-DEVICE` to every key's bitmap read by the client (the bound: within 1 s). The
 *   device is removed and added again each round: the first add draws cold, the others from the key
 *   renderer's cache, as a reconnect does.
 *
 * Rounds alternate between the two surfaces, with a short rest between rounds so each starts from a
 * quiet daemon. Medians and p95. Everything runs in the bench's own process, without the daemon's V8
 * flags (`own-daemon.ts`): both surfaces alike, so the two sides compare; the absolute figures are this
 * machine's of the day.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { startSimulator, type SimulatorHandle } from '../src/app-kit/simulator/index.js'
import { Daemon } from '../src/daemon/daemon.js'
import { setLogLevel } from '../src/log.js'
import { StreamDeckDriver } from '../src/surfaces/streamdeck/driver.js'
import { gen2KeyReport, MemoryStreamDeckTransport, type FakeHidDevice } from '../test/surfaces/helpers/fake-hid.js'
import { FakeHotplug } from '../test/surfaces/helpers/fake-hotplug.js'
import {
  JudgeHost,
  judgeLayout,
  judgeProps,
  KEY_IDS,
  keyId,
  loadSatelliteClient,
  readBitmap,
} from '../test/satellite/satellite-client.js'
import { median, percentile } from './stats.js'

const QUICK = process.env.BENCH_QUICK === '1'
const PRESSES = QUICK ? 20 : 100
const CHANGES = QUICK ? 10 : 50
const ADDS = QUICK ? 5 : 20
/** A round that has not seen its event by then is counted as missed (and the bench goes on). */
const CAP_MS = 10_000
/** Rest between rounds: the daemon finishes the round's other work (the press's reply, a badge) first. */
const REST_MS = 30
/** The bound on a device's first paint. */
const ADD_TARGET_MS = 1000
const DEVICE = 'BENCH-SATELLITE'

const configText = (sim: SimulatorHandle): string => `version: 1
app: { url: ${sim.httpUrl}, notifications: ${sim.wsUrl} }
listen: { host: 127.0.0.1, port: 0 }
satellite: { port: 0 }
surfaces:
  desk2: { driver: satellite, device: "${DEVICE}" }
  deck: { driver: streamdeck, serial: BENCH-SD }
bindings:
  - on: desk2/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
  - on: desk2/key:1
    press: { command: schedule, params: { action: cutout, title: "Lower Third" } }
  - on: desk2/key:2
    label: "{{name}}"
    feedback: { title: "Breaking News" }
  - on: deck/key:0
    press: { command: schedule, params: { action: cutin, title: "Score Bug" } }
  - on: deck/key:1
    press: { command: schedule, params: { action: cutout, title: "Score Bug" } }
  - on: deck/key:2
    label: "{{name}}"
    feedback: { title: "Full Screen Graphic" }
`

const fmt = (ms: number): string => (Number.isFinite(ms) ? `${ms.toFixed(2)} ms` : 'n/a')
const stats = (xs: number[]): string => `median ${fmt(median(xs))}, p95 ${fmt(percentile(xs, 95))} (n=${xs.length})`

async function waitFor(cond: () => boolean, capMs = CAP_MS): Promise<boolean> {
  const end = performance.now() + capMs
  while (!cond()) {
    if (performance.now() > end) return false
    await new Promise((resolve) => setImmediate(resolve))
  }
  return true
}

export default async function (): Promise<void> {
  setLogLevel('error')
  const sim = await startSimulator()
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-satellite-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, configText(sim))

  // When each `schedule` reached the simulator (its own hook, before anything else is done with it).
  const arrivals: number[] = []
  const record = sim.http.record.bind(sim.http)
  sim.http.record = (name, parameters, transport) => {
    if (name === 'schedule') arrivals.push(performance.now())
    record(name, parameters, transport)
  }

  // The deck: every key-image write (gen2 header 02 07 key) with its time.
  const transport = new MemoryStreamDeckTransport()
  const keyWrites: { key: number; at: number }[] = []
  transport.onOpen = (dev: FakeHidDevice) => {
    dev.record = false
    const send = dev.sendReports.bind(dev)
    dev.sendReports = (buffers) => {
      const first = buffers[0]
      if (first && first[0] === 0x02 && first[1] === 0x07) keyWrites.push({ key: first[2]!, at: performance.now() })
      return send(buffers)
    }
  }
  transport.plug(DeviceModelId.ORIGINALMK2, '/dev/bench-sd', 'BENCH-SD')
  const daemon = await Daemon.start({
    config: file,
    drivers: [new StreamDeckDriver({ transport })],
    hotplug: new FakeHotplug(),
    access: () => Promise.resolve('ok'),
    watch: false,
  })
  const Client = await loadSatelliteClient()
  const host = new JudgeHost(new Client(), DEVICE)
  try {
    const status = (await (await fetch(new URL('api/status', daemon.url))).json()) as { satellite?: { port?: number } }
    const port = status.satellite?.port
    if (typeof port !== 'number') throw new Error(`/api/status names no Satellite port: ${JSON.stringify(status)}`)
    await host.client.connect({ mode: 'tcp', host: '127.0.0.1', port })
    if (!(await waitFor(() => host.connects > 0))) throw new Error('the Satellite client did not connect')
    const open = (name: string): boolean => daemon.status().surfaces.some((x) => x.name === name && x.state === 'open')
    if (!(await waitFor(() => open('deck') && keyWrites.some((w) => w.key === 2)))) {
      throw new Error('the Stream Deck was not opened and drawn')
    }
    const device = transport.lastOpened('/dev/bench-sd')!

    // Add: ADD-DEVICE to every key's bitmap; then removed and added again, ADDS times.
    const addMs: number[] = []
    let format = '?'
    for (let i = 0; i < ADDS; i++) {
      const mark = host.draws.length
      const t0 = performance.now()
      host.client.addDevice(DEVICE, 'Bench deck', judgeProps(DEVICE))
      const all = await waitFor(() => KEY_IDS.every((id) => host.paintedSince(mark).has(id)))
      if (all) {
        addMs.push(Math.max(...KEY_IDS.map((id) => host.drawsSince(mark, id).find((d) => d.image)!.at)) - t0)
        format = readBitmap(host.lastImage(KEY_IDS[0]!)!).format
      }
      await sleep(REST_MS)
      if (i < ADDS - 1) {
        host.client.removeDevice(DEVICE)
        await sleep(REST_MS)
      }
    }

    // Press: alternating Satellite and Stream Deck, each alternating its cut-in and cut-out keys.
    const layout = judgeLayout()
    const press = { satellite: [] as number[], deck: [] as number[], missed: 0 }
    for (let i = 0; i < PRESSES; i++) {
      const k = i % 2
      for (const side of ['satellite', 'deck'] as const) {
        const before = arrivals.length
        const t0 = performance.now()
        if (side === 'satellite') host.client.keyDown(DEVICE, keyId(k), layout.controls[keyId(k)]!)
        else device.input(gen2KeyReport([k], 15))
        if (await waitFor(() => arrivals.length > before)) press[side].push(arrivals[before]! - t0)
        else press.missed++
        if (side === 'satellite') host.client.keyUp(DEVICE, keyId(k), layout.controls[keyId(k)]!)
        else device.input(gen2KeyReport([], 15))
        await sleep(REST_MS)
      }
    }

    // Feedback: a title's play state changed at the simulator, to the key's new image out of the daemon.
    const change = { satellite: [] as number[], deck: [] as number[], request: [] as number[], missed: 0 }
    const titles = { satellite: 'Breaking News', deck: 'Full Screen Graphic' }
    for (let i = 0; i < CHANGES; i++) {
      const action = i % 2 === 0 ? 'cutin' : 'cutout'
      for (const side of ['satellite', 'deck'] as const) {
        const drawMark = host.draws.length
        const writeMark = keyWrites.length
        const t0 = performance.now()
        const query = new URLSearchParams({ action, title: titles[side] })
        const request = fetch(`${sim.httpUrl}/api/command/schedule?${query.toString()}`).then(async (res) => {
          await res.arrayBuffer()
          change.request.push(performance.now() - t0)
        })
        const seen =
          side === 'satellite'
            ? await waitFor(() => host.drawsSince(drawMark, keyId(2)).some((d) => d.image !== undefined))
            : await waitFor(() => keyWrites.slice(writeMark).some((w) => w.key === 2))
        await request
        if (!seen) change.missed++
        else if (side === 'satellite') change.satellite.push(host.drawsSince(drawMark, keyId(2))[0]!.at - t0)
        else change.deck.push(keyWrites.slice(writeMark).find((w) => w.key === 2)!.at - t0)
        await sleep(REST_MS * 3)
      }
    }

    const rows: [string, string][] = [
      [`Satellite ADD-DEVICE → all 15 keys' bitmaps (${format})`, stats(addMs)],
      ['Satellite key press → schedule at the application', stats(press.satellite)],
      ['Stream Deck key press → schedule at the application', stats(press.deck)],
      ['feedback change → Satellite KEY-STATE out', stats(change.satellite)],
      ['feedback change → Stream Deck key image written', stats(change.deck)],
      ["  the change request's own round trip (in both)", stats(change.request)],
    ]
    const w = Math.max(...rows.map((r) => r[0].length))
    console.log(`${'case'.padEnd(w)} | figures`)
    console.log(`${'-'.repeat(w)}-|--------`)
    for (const [a, b] of rows) console.log(`${a.padEnd(w)} | ${b}`)
    const addP95 = percentile(addMs, 95)
    console.log(
      `target: every key drawn within ${ADD_TARGET_MS} ms of ADD-DEVICE: p95 ${fmt(addP95)}: ${addMs.length === ADDS && addP95 < ADD_TARGET_MS ? 'MET' : 'MISSED'}` +
        `; rounds missed (no event within ${CAP_MS} ms): presses ${press.missed}, changes ${change.missed}, adds ${ADDS - addMs.length}`,
    )
  } finally {
    host.close()
    await daemon.stop()
    await sim.close()
    await rm(dir, { recursive: true, force: true })
  }
}
