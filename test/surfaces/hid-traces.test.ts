/**
 * One generic replay of the input-report traces in `test/fixtures/hid/` (a JSON file per model): each
 * trace opens its model through the driver over an in-memory HID device, delivers every report in order
 * to the real device library, and compares the surface events each report produces with the trace.
 *
 * Event notation: `down button:0`, `up button:0`, `rotate jog +1`, `value shuttle 3` (the raw value; the
 * normalised value is checked to be raw / full scale: 7 for the ring, 255 for the T-bar, 127 for a
 * joystick axis).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ShuttleDriver } from '../../src/surfaces/shuttle/driver.js'
import type { Feedback, Surface, SurfaceEvent } from '../../src/surfaces/types.js'
import { XkeysDriver } from '../../src/surfaces/xkeys/driver.js'
import { MemoryShuttleTransport } from './helpers/fake-shuttle.js'
import { MemoryXkeysTransport } from './helpers/fake-xkeys.js'

interface Trace {
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

const dir = new URL('../fixtures/hid/', import.meta.url)
const traces = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, trace: JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Trace }))

interface Opened {
  surface: Surface
  deliver: (bytes: Uint8Array) => void
  /** Output reports written since the last call, as space-separated hex. */
  takeWrites?: () => string[]
}
/** Opens the trace's model and returns a function that delivers one report. */
type Opener = (trace: Trace) => Promise<Opened>
const openers: Record<string, Opener> = {
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

function brief(e: SurfaceEvent): string {
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

/** The raw value that normalises to 1 (or -1..1 for centred controls), by control. */
const RAW_FULL_SCALE: Record<string, number> = { shuttle: 7, tbar: 255, 'joystick:x': 127, 'joystick:y': 127 }

const hex = (s: string): Uint8Array => Uint8Array.from(s.trim().split(/\s+/), (b) => parseInt(b, 16))

describe('HID input-report traces', () => {
  it('has a trace for each model that needs one', () => {
    expect(traces.map((t) => t.file).sort()).toEqual([
      'shuttlepro_v1.json',
      'shuttlepro_v2.json',
      'shuttlexpress.json',
      'xk12_joystick.json',
      'xk24.json',
      'xk68_jogshuttle.json',
      'xke124_tbar.json',
    ])
  })

  for (const { file, trace } of traces) {
    it(`${file}: ${trace.name}, ${trace.steps.length} reports replayed through the real library`, async () => {
      const opener = openers[trace.driver]
      expect(opener, `no opener for driver ${trace.driver}`).toBeDefined()
      const { surface, deliver } = await opener!(trace)
      onTestFinished(() => surface.close())
      expect(surface.description.model).toBe(trace.name)
      if (trace.controls) expect(surface.description.controls.map((c) => c.id)).toEqual(trace.controls)
      const events: SurfaceEvent[] = []
      surface.events.on('input', (e) => events.push(e))
      trace.steps.forEach((step, i) => {
        events.length = 0
        deliver(hex(step.report))
        expect(events.map(brief), `step ${i} (${step.report})${step.note ? ': ' + step.note : ''}`).toEqual(step.events)
        for (const e of events) {
          expect(e.surface).toBe(surface.description.id)
          if (e.type === 'value') expect(e.value).toBe(e.raw! / RAW_FULL_SCALE[e.control]!)
        }
      })
    })

    if (trace.backlight?.length) {
      it(`${file}: ${trace.name}, backlight output bytes match the recorded ones`, async () => {
        for (const b of trace.backlight!) {
          // A fresh surface each time: the surface skips a write when the key already shows that state.
          const { surface, takeWrites } = await openers[trace.driver]!(trace)
          onTestFinished(() => surface.close())
          takeWrites!()
          surface.setFeedback(b.control, b.feedback)
          expect(takeWrites!(), b.note ?? JSON.stringify(b.feedback)).toEqual(b.sent)
        }
      })
    }
  }
})
