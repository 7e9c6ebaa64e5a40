/**
 * The readers of recordings and captures (issue 46 item 5): `replay`'s trace reader (its byte-level
 * line splitter and its records) and `sim --replay-capture`'s capture file reader. Any bytes give a
 * trace of well-formed records, the skipped lines counted, or the module's typed error; never another
 * throw, never a record with a time no show can have.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, test } from 'vitest'
import { CaptureError } from '../../src/app-kit/probe-capture.js'
import { profileFromCaptureFile } from '../../src/app-kit/simulator/profile-from-capture.js'
import { linesOf, REPLAY_LIMITS, traceFromLines } from '../../src/replay/trace.js'
import { checkProperty, deepJsonText, fc, fuzzParser, hostileJsonValue, hostileText, objectWith } from './harness.js'

const dir = mkdtempSync(join(tmpdir(), 'pb-fuzz-trace-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A value as JSON text; one too deep for JSON.stringify stands as deep text of its own. */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return deepJsonText(10_000)
  }
}

/** A line as a trace may hold it: hostile text, hostile JSON, or a record with hostile fields. */
const traceLine: fc.Arbitrary<string> = fc.oneof(
  hostileText,
  hostileJsonValue.map(jsonText),
  objectWith({ kind: fc.constantFrom('start', 'input', 'command', 'page', 'x') }, [
    't',
    'surface',
    'control',
    'type',
    'source',
    'delta',
    'value',
    'command',
    'params',
    'origin',
    'outcome',
    'format',
    'pages',
  ]).map(jsonText),
  fc.nat(40).map((d) => `{"t":1,"kind":"command","params":${deepJsonText(d * 50)}}`),
)

/** Bytes cut into chunks at any places, as a file's stream may give them. */
function chunked(bytes: Buffer, cuts: number[]): Readable {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const parts: Buffer[] = []
  let from = 0
  for (const c of [...at, bytes.length]) {
    parts.push(bytes.subarray(from, c))
    from = c
  }
  return Readable.from(parts.filter((p) => p.length > 0))
}

describe('the trace reader', () => {
  fuzzParser('traceFromLines over hostile lines', {
    input: fc.array(traceLine, { maxLength: 20 }),
    parse: async (lines) => {
      const trace = await traceFromLines(Readable.from(lines))
      for (const i of [...trace.inputs, ...trace.commands]) {
        if (!(Number.isFinite(i.t) && i.t >= 0 && i.t <= REPLAY_LIMITS.maxTimeMs)) throw new Error(`kept t ${i.t}`)
      }
      if (trace.inputs.length + trace.commands.length + trace.skipped > lines.length) throw new Error('counted twice')
    },
    // Twenty lines a run, many of them deep: fewer runs reach as many lines as the other parsers see.
    runs: 50,
  })

  test('fuzz: the line splitter gives the lines of any bytes in any chunks, a line past its bound as skipped', async () => {
    await checkProperty(
      'linesOf',
      fc.asyncProperty(
        fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('\n', '\r\n', 'é', '\u{1F600}')), {
          maxLength: 30,
        }),
        fc.array(fc.nat(2000), { maxLength: 8 }),
        fc.integer({ min: 1, max: 60 }),
        async (pieces, cuts, max) => {
          const text = pieces.join('')
          const bytes = Buffer.from(text)
          const got: (string | undefined)[] = []
          for await (const l of linesOf(chunked(bytes, cuts), max)) got.push(l)
          const want = text.split('\n')
          if (want.at(-1) === '') want.pop()
          expect(got).toEqual(
            want.map((l) => (Buffer.byteLength(l) > max ? undefined : l.endsWith('\r') ? l.slice(0, -1) : l)),
          )
        },
      ),
    )
  })
})

describe('the capture file reader', () => {
  let n = 0
  fuzzParser('profileFromCaptureFile over hostile bytes', {
    input: fc.oneof(hostileText, hostileJsonValue.map(jsonText)),
    parse: async (text) => {
      const file = join(dir, `capture-${++n}.json`)
      writeFileSync(file, text)
      await profileFromCaptureFile(file)
    },
    typedError: (err) => err instanceof CaptureError,
  })
})
