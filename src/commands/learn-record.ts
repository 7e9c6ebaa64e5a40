/**
 * `learn --record FILE`: the raw input reports of the HID panels learn opens (Contour Shuttle, X-keys),
 * each with the surface events the driver made of it, as JSON lines, so that a trace of hardware we do
 * not have can become a test: `test/fixtures/hid/` takes such a file as it is (`*.jsonl`), one trace per
 * device in it, and replays each report into the same driver, expecting the same events.
 *
 *     {"kind":"start","format":"panelbridge-hid-trace","version":1,"started":"2026-11-26T05:40:00.000Z"}
 *     {"kind":"device","device":"SP2-1","driver":"shuttle","model":"shuttlepro_v2","name":"ShuttlePro v2","controls":["button:0",...]}
 *     {"kind":"report","t":812.4,"device":"SP2-1","report":"05 10 00 00 00","events":["value shuttle 5"]}
 *
 * `t` is ms since learn began. `model` is the model id the config names (`shuttlepro_v2`, `XK24`),
 * `name` the model's display name; `unitId` an X-keys panel's. A device's line comes before its first
 * report; a surface that gives no raw reports (a Stream Deck, MIDI) has none. Events are written as the
 * fixtures write them: `down button:0`, `up key:4`, `rotate jog +1`, `value shuttle 3` (the raw value;
 * the normalised one where the device has no raw value).
 *
 * Recording never holds learn up: lines wait in a bounded buffer, written at least every
 * LEARN_RECORD_FLUSH_MS and at stop; past LEARN_RECORD_MAX_BYTES in the file (or a buffer full, a write
 * failed) reports are dropped and counted, and the stop says how many.
 */
import { appendFile, writeFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { LineBuffer } from '../line-buffer.js'
import type { Surface, SurfaceEvent } from '../surfaces/types.js'
import type { DetectedDevice } from '../face/surface.js'

/** The trace format (the start line's `format` and `version`). */
export const LEARN_RECORD = {
  format: 'panelbridge-hid-trace',
  version: 1,
} as const

/** What waits is written at least this often, ms. */
const LEARN_RECORD_FLUSH_MS = 1000
/**
 * The file is not grown past this many bytes; later reports are dropped. ASSUMED: 64 MiB, hours of a
 * jog wheel turned without a stop, and still a file a bug report can carry compressed.
 */
const LEARN_RECORD_MAX_BYTES = 64 * 1024 * 1024
/** Characters waiting to be written at most (a disk that stalls); beyond, reports are dropped. */
const LEARN_RECORD_BUFFER_MAX_CHARS = 4 * 1024 * 1024
/** A report longer than this is not a HID input report (1,024 bytes: a high-speed interrupt packet). */
const LEARN_RECORD_MAX_REPORT_BYTES = 1024
/** Events kept with one report at most (a report makes a handful: the keys that changed). */
const LEARN_RECORD_MAX_EVENTS = 256
/** How long the stop waits for the last write, ms (a hung disk must not hold learn's stop). */
const LEARN_RECORD_STOP_WAIT_MS = 2000

/** A surface event as the fixtures write it (`down button:0`, `rotate jog +1`, `value shuttle 3`). */
export function eventNotation(e: SurfaceEvent): string {
  switch (e.type) {
    case 'rotate':
      return `rotate ${e.control} ${e.delta > 0 ? '+' : ''}${e.delta}`
    case 'value':
      return `value ${e.control} ${e.raw ?? e.value}`
    case 'down':
    case 'up':
      return `${e.type} ${e.control}`
  }
}

const hexBytes = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ')

/** What the recording has to say at stop. */
export interface LearnRecordSummary {
  file: string
  /** Reports written, by device identity. */
  reports: Map<string, number>
  /** Reports dropped (file at its bound, buffer full, a write failed). */
  dropped: number
}

/** The file system as the recording uses it (tests pass a slow or failing one). */
export interface LearnRecordFs {
  writeFile(path: string, data: string): Promise<void>
  appendFile(path: string, data: string): Promise<void>
}

const nodeFs: LearnRecordFs = {
  writeFile: (path, data) => writeFile(path, data, 'utf8'),
  appendFile: (path, data) => appendFile(path, data, 'utf8'),
}

export interface LearnRecordingOptions {
  file: string
  /** Told once when reports are first dropped, and why. */
  warn: (message: string) => void
  fs?: LearnRecordFs
  maxBytes?: number
}

/** One `learn --record` file being written. */
export class LearnRecording {
  private readonly t0 = performance.now()
  private readonly fs: LearnRecordFs
  private readonly maxBytes: number
  private readonly buffer: LineBuffer
  /** Bytes in the file and in the buffer: what the file's bound counts. */
  private bytes = 0
  private stopped = false
  private saidDropped = false
  private readonly counts = new Map<string, number>()
  private dropped = 0
  /** Devices whose line is written. */
  private readonly described = new Set<string>()

  private constructor(private readonly o: LearnRecordingOptions) {
    this.fs = o.fs ?? nodeFs
    this.maxBytes = o.maxBytes ?? LEARN_RECORD_MAX_BYTES
    this.buffer = new LineBuffer({
      flushMs: LEARN_RECORD_FLUSH_MS,
      maxChars: LEARN_RECORD_BUFFER_MAX_CHARS,
      stopWaitMs: LEARN_RECORD_STOP_WAIT_MS,
      write: (lines) => this.write(lines),
    })
  }

  /** Creates FILE (an existing one is replaced: one learn session, one trace) with its start line. */
  static async open(o: LearnRecordingOptions): Promise<LearnRecording> {
    const start = JSON.stringify({
      kind: 'start',
      format: LEARN_RECORD.format,
      version: LEARN_RECORD.version,
      started: new Date().toISOString(),
    })
    await (o.fs ?? nodeFs).writeFile(o.file, `${start}\n`)
    const r = new LearnRecording(o)
    r.bytes = Buffer.byteLength(start) + 1
    return r
  }

  get file(): string {
    return this.o.file
  }

  /**
   * Follows an opened surface: each raw report it gives is written with the input events that came
   * since its report before (the driver decodes a report at once, so those are the report's own).
   * Returns the function that stops following; a surface that closes is let go by itself.
   */
  attach(device: DetectedDevice, surface: Surface): () => void {
    let pending: string[] = []
    const onInput = (e: SurfaceEvent): void => {
      if (pending.length < LEARN_RECORD_MAX_EVENTS) pending.push(eventNotation(e))
    }
    const onReport = (report: Uint8Array): void => {
      const events = pending
      pending = []
      this.report(device, surface, report, events)
    }
    const detach = (): void => {
      surface.events.off('input', onInput)
      surface.events.off('report', onReport)
      surface.events.off('closed', detach)
    }
    surface.events.on('input', onInput)
    surface.events.on('report', onReport)
    surface.events.on('closed', detach)
    return detach
  }

  /** Stops: what waits is written (within LEARN_RECORD_STOP_WAIT_MS); what was recorded and dropped. */
  async stop(): Promise<LearnRecordSummary> {
    if (!this.stopped) {
      this.stopped = true
      await this.buffer.stop()
    }
    return { file: this.file, reports: new Map(this.counts), dropped: this.dropped }
  }

  private report(device: DetectedDevice, surface: Surface, report: Uint8Array, events: string[]): void {
    if (this.stopped) return
    if (report.length > LEARN_RECORD_MAX_REPORT_BYTES) return this.drop(1, 'a report longer than a HID report')
    const lines: string[] = []
    if (!this.described.has(device.id)) lines.push(this.deviceLine(device, surface))
    const t = Math.round((performance.now() - this.t0) * 10) / 10
    lines.push(JSON.stringify({ kind: 'report', t, device: device.id, report: hexBytes(report), events }))
    const chars = lines.reduce((n, l) => n + l.length + 1, 0)
    if (this.bytes + chars > this.maxBytes) return this.drop(1, `the file reached its bound of ${this.maxBytes} bytes`)
    if (!this.buffer.fits(chars)) return this.drop(1, 'the disk is too slow')
    this.described.add(device.id)
    this.buffer.push(lines, chars)
    // Characters, not bytes: the lines are ASCII but for names, which the bound need not count exactly.
    this.bytes += chars
    this.counts.set(device.id, (this.counts.get(device.id) ?? 0) + 1)
  }

  private deviceLine(device: DetectedDevice, surface: Surface): string {
    const d = surface.description
    return JSON.stringify({
      kind: 'device',
      device: device.id,
      driver: d.driver,
      model: device.modelId ?? d.model,
      name: d.model,
      controls: d.controls.map((c) => c.id),
      ...(device.unitId !== undefined ? { unitId: device.unitId } : {}),
    })
  }

  private drop(reports: number, why: string): void {
    this.dropped += reports
    if (this.saidDropped) return
    this.saidDropped = true
    this.o.warn(`learn --record: reports dropped (${why}); ${this.file} goes on with gaps`)
  }

  /** Appends lines that waited; a write that fails drops their reports (counted, told once). */
  private write(lines: string[]): Promise<void> {
    return this.fs.appendFile(this.file, `${lines.join('\n')}\n`).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code
      const reports = lines.filter((l) => l.startsWith('{"kind":"report"')).length
      this.drop(reports, code === 'ENOSPC' ? 'the disk is full' : `cannot write: ${code ?? String(err)}`)
    })
  }
}

// ---- reading ------------------------------------------------------------------------------------

/** A file longer than this is refused by the reader (the writer's bound, and a margin). */
const HID_TRACE_MAX_CHARS = LEARN_RECORD_MAX_BYTES + 1024 * 1024
/** A longer line is skipped. */
const MAX_LINE_CHARS = 64 * 1024
/** At most this many devices are read from one file. */
const MAX_DEVICES = 64

/** One device's reports in a `learn --record` file: the fixtures' trace of one model. */
export interface RecordedHidTrace {
  device: string
  driver: string
  model: string
  name: string
  controls?: string[]
  unitId?: number
  /** When the recording began (its start line). */
  started: string
  steps: { t: number; report: string; events: string[] }[]
}

const REPORT_HEX = /^[0-9a-f]{2}(?: [0-9a-f]{2}){0,1023}$/
const isText = (v: unknown, max = 256): v is string => typeof v === 'string' && v.length > 0 && v.length <= max
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isTextList = (v: unknown, max: number): v is string[] =>
  Array.isArray(v) && v.length <= max && v.every((x) => isText(x))

/**
 * Reads a `learn --record` file: one trace per device, in the order their lines came. Bounded (size,
 * line length, devices); a line that is not a record of the format, or a report of a device with no
 * device line, is counted in `skipped`. Throws when the text is not such a recording at all.
 */
export function parseLearnRecording(text: string): { traces: RecordedHidTrace[]; skipped: number } {
  if (text.length > HID_TRACE_MAX_CHARS)
    throw new Error(`a learn recording is at most ${HID_TRACE_MAX_CHARS} characters`)
  const lines = text.split('\n')
  const start = parseLine(lines[0] ?? '')
  if (
    !start ||
    start.kind !== 'start' ||
    start.format !== LEARN_RECORD.format ||
    start.version !== LEARN_RECORD.version
  )
    throw new Error(`not a learn --record file (its first line is not a ${LEARN_RECORD.format} start line)`)
  const started = isText(start.started) ? start.started : ''
  const traces = new Map<string, RecordedHidTrace>()
  let skipped = 0
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue
    const r = parseLine(line)
    if (r?.kind === 'device' && isText(r.device) && !traces.has(r.device) && traces.size < MAX_DEVICES) {
      const t = deviceOf(r, started)
      if (t) traces.set(t.device, t)
      else skipped++
    } else if (r?.kind === 'report' && isText(r.device) && traces.has(r.device)) {
      const ok =
        typeof r.t === 'number' &&
        Number.isFinite(r.t) &&
        typeof r.report === 'string' &&
        REPORT_HEX.test(r.report) &&
        isTextList(r.events, LEARN_RECORD_MAX_EVENTS)
      if (ok)
        traces.get(r.device)!.steps.push({ t: r.t as number, report: r.report as string, events: r.events as string[] })
      else skipped++
    } else skipped++
  }
  return { traces: [...traces.values()], skipped }
}

function parseLine(line: string): Record<string, unknown> | undefined {
  if (line.length > MAX_LINE_CHARS) return undefined
  try {
    const v: unknown = JSON.parse(line)
    return isRecord(v) ? v : undefined
  } catch {
    return undefined
  }
}

function deviceOf(r: Record<string, unknown>, started: string): RecordedHidTrace | undefined {
  if (!isText(r.device) || !isText(r.driver, 64) || !isText(r.model, 128) || !isText(r.name)) return undefined
  if (r.controls !== undefined && !isTextList(r.controls, 4096)) return undefined
  const unitId = r.unitId
  if (unitId !== undefined && !(Number.isInteger(unitId) && (unitId as number) >= 0 && (unitId as number) <= 255))
    return undefined
  return {
    device: r.device,
    driver: r.driver,
    model: r.model,
    name: r.name,
    ...(r.controls !== undefined ? { controls: r.controls } : {}),
    ...(unitId !== undefined ? { unitId: unitId as number } : {}),
    started,
    steps: [],
  }
}
