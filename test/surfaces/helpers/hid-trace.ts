/**
 * The HID input-report traces of `test/fixtures/hid/`, read and opened as `hid-traces.test.ts` and the
 * `learn --record` test replay them: a hand-written or library-sourced trace is one model's JSON file
 * (`*.json`), a user's `learn --record` file (`*.jsonl`, src/commands/learn-record.ts) is read as one
 * trace per device in it. Each trace opens its model through the real driver over an in-memory HID device.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { expect } from 'vitest'
import { parseLearnRecording } from '../../../src/commands/learn-record.js'
import { ShuttleDriver } from '../../../src/surfaces/shuttle/driver.js'
import type { Feedback } from '../../../src/face/feedback.js'
import type { Surface, SurfaceEvent } from '../../../src/surfaces/types.js'
import { XkeysDriver } from '../../../src/surfaces/xkeys/driver.js'
import { MemoryShuttleTransport } from './fake-shuttle.js'
import { MemoryXkeysTransport } from './fake-xkeys.js'

export interface Trace {
  driver: string
  model: string
  name: string
  /** The control ids the opened surface lists, where the trace pins them. */
  controls?: string[]
  /** The unit id the in-memory panel answers the init handshake with (X-keys). */
  unitId?: number
  source: string
  steps: { note?: string; report: string; events: string[] }[]
  /** Golden output: the bytes one feedback on a fresh surface writes (X-keys backlights). */
  backlight?: { note?: string; control: string; feedback: Feedback; sent: string[] }[]
}

/** The traces of a `learn --record` file: one per device, named `FILE#device`. */
export function tracesOfRecording(file: string, text: string): { file: string; trace: Trace }[] {
  const { traces } = parseLearnRecording(text)
  return traces.map((t) => ({
    file: `${file}#${t.device}`,
    trace: {
      driver: t.driver,
      model: t.model,
      name: t.name,
      ...(t.controls ? { controls: t.controls } : {}),
      ...(t.unitId !== undefined ? { unitId: t.unitId } : {}),
      source: `learn --record, ${t.started}, device ${t.device}`,
      steps: t.steps.map((s) => ({ note: `t=${s.t} ms`, report: s.report, events: s.events })),
    },
  }))
}

/** Every trace in `dir`: each `*.json` file, and each device of each `*.jsonl` recording. */
export function readTraces(dir: URL): { file: string; trace: Trace }[] {
  const files = readdirSync(dir).sort()
  return files.flatMap((f) => {
    if (f.endsWith('.json')) return [{ file: f, trace: JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Trace }]
    if (f.endsWith('.jsonl')) return tracesOfRecording(f, readFileSync(new URL(f, dir), 'utf8'))
    return []
  })
}

export interface Opened {
  surface: Surface
  deliver: (bytes: Uint8Array) => void
  /** Output reports written since the last call, as space-separated hex. */
  takeWrites?: () => string[]
}
/** Opens the trace's model and returns a function that delivers one report. */
export type Opener = (trace: Trace) => Promise<Opened>
export const openers: Record<string, Opener> = {
  shuttle: async ({ model }) => {
    const transport = new MemoryShuttleTransport()
    transport.plug(model, `/dev/hidraw-${model}`)
    const driver = new ShuttleDriver({ transport })
    const [detected] = await driver.detect()
    const surface = await driver.open(detected!)
    const hid = transport.lastOpened(`/dev/hidraw-${model}`)!
    return { surface, deliver: (bytes) => hid.input(bytes) }
  },
  xkeys: async ({ model, unitId }) => {
    const transport = new MemoryXkeysTransport()
    transport.plug(model, `/dev/hidraw-${model}`, { unitId: unitId ?? 0 })
    const driver = new XkeysDriver({ transport })
    const [detected] = await driver.detect()
    const surface = await driver.open(detected!)
    expect(surface.unitId).toBe(unitId ?? 0)
    const hid = transport.lastOpened(`/dev/hidraw-${model}`)!
    return { surface, deliver: (bytes) => hid.input(bytes), takeWrites: () => hid.writes.splice(0) }
  },
}

export function brief(e: SurfaceEvent): string {
  switch (e.type) {
    case 'rotate':
      return `rotate ${e.control} ${e.delta > 0 ? '+' : ''}${e.delta}`
    case 'value':
      return `value ${e.control} ${e.raw}`
    case 'down':
    case 'up':
      return `${e.type} ${e.control}`
  }
}

export const hex = (s: string): Uint8Array => Uint8Array.from(s.trim().split(/\s+/), (b) => parseInt(b, 16))
