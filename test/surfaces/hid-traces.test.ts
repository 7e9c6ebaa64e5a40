/**
 * One generic replay of the input-report traces in `test/fixtures/hid/` (a JSON file per model): each
 * trace opens its model through the driver over an in-memory HID device, delivers every report in order
 * to the real device library, and compares the surface events each report produces with the trace.
 *
 * A `learn --record` file (`*.jsonl`) dropped here is read as one trace per device in it (the reader:
 * `helpers/hid-trace.ts`): a user's trace of their hardware becomes a test as it is.
 *
 * Event notation: `down button:0`, `up button:0`, `rotate jog +1`, `value shuttle 3` (the raw value; the
 * normalised value is checked to be raw / full scale: 7 for the ring, 255 for the T-bar, 127 for a
 * joystick axis).
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { brief, hex, openers, readTraces } from './helpers/hid-trace.js'

const dir = new URL('../fixtures/hid/', import.meta.url)
const traces = readTraces(dir)

/** The raw value that normalises to 1 (or -1..1 for centred controls), by control. */
const RAW_FULL_SCALE: Record<string, number> = { shuttle: 7, tbar: 255, 'joystick:x': 127, 'joystick:y': 127 }

describe('HID input-report traces', () => {
  it('has a trace for each model that needs one', () => {
    expect(traces.map((t) => t.file).filter((f) => f.endsWith('.json'))).toEqual([
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
