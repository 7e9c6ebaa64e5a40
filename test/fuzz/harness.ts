/**
 * The fuzz harness every parser of outside bytes joins (issue: Hardening). A parser is fuzzed with
 * `fuzzParser(name, { input, parse, typedError })`: for every generated input the parser returns,
 * or throws only its module's typed error. Anything else (a RangeError from deep nesting, a
 * TypeError from a missing check) fails the test with the seed that reproduces it.
 *
 * Seed: `FUZZ_SEED` when set; otherwise a fixed seed under CI (so a red run is reproducible) and a
 * fresh one elsewhere (so local runs explore). The seed is printed when a property fails, and
 * fast-check adds the path of the shrunk counterexample.
 *
 * Time and memory are measured in `bench/hardening.bench.ts`, never asserted here.
 */
import fc from 'fast-check'
import { test } from 'vitest'

export { fc }

/** The fixed seed of CI runs. */
export const FUZZ_CI_SEED = 20261123
/** The largest input a property generates (bytes or characters). */
export const FUZZ_MAX_BYTES = 64 * 1024
/** The deepest JSON nesting a property generates. */
export const FUZZ_MAX_DEPTH = 10_000
/** Runs per property: enough to reach the odd shapes, few enough for `npm test` on two cores. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200)

function chooseSeed(): number {
  const fromEnv = process.env.FUZZ_SEED
  if (fromEnv !== undefined && fromEnv !== '' && Number.isFinite(Number(fromEnv))) return Number(fromEnv) | 0
  if (process.env.CI) return FUZZ_CI_SEED
  return (Date.now() ^ (process.pid << 8)) | 0
}
export const FUZZ_SEED = chooseSeed()

/**
 * Runs a property with the suite's seed and run count. On failure the error names the seed and how
 * to replay it.
 */
export async function checkProperty(
  name: string,
  property: fc.IAsyncPropertyWithHooks<unknown> | fc.IPropertyWithHooks<unknown>,
  runs = FUZZ_RUNS,
): Promise<void> {
  const details = await fc.check(property as fc.IAsyncProperty<unknown>, { seed: FUZZ_SEED, numRuns: runs })
  if (details.failed) {
    const message = fc.defaultReportMessage(details) ?? 'property failed'
    process.stderr.write(`fuzz: "${name}" failed with seed ${FUZZ_SEED}; replay with FUZZ_SEED=${FUZZ_SEED}\n`)
    throw new Error(`fuzz "${name}" (FUZZ_SEED=${FUZZ_SEED}):\n${message}`)
  }
}

/**
 * JSON text nested `depth` levels deep around `core`, as arrays, objects or a mix: what a hostile peer
 * sends to overflow a recursive parser or stringifier. Built as text (JSON.parse is iterative enough for
 * 10,000 levels; a recursive arbitrary is not).
 */
export function deepJsonText(depth: number, core = '1', shape: 'array' | 'object' | 'mixed' = 'mixed'): string {
  let open = ''
  let close = ''
  for (let i = 0; i < depth; i++) {
    const asArray = shape === 'array' || (shape === 'mixed' && i % 2 === 0)
    open += asArray ? '[' : '{"a":'
    close = (asArray ? ']' : '}') + close
  }
  return open + core + close
}

/** A value nested `depth` levels deep (parsed from `deepJsonText`). */
export function deepValue(depth: number, core: unknown = 1): unknown {
  return JSON.parse(deepJsonText(depth, JSON.stringify(core)))
}

/** Arbitrary deep JSON values: nesting from 0 to FUZZ_MAX_DEPTH around a small JSON value. */
export const deepJsonValue: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.nat(FUZZ_MAX_DEPTH),
    fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
    fc.json({ maxDepth: 2 }),
  )
  .map(([depth, shape, core]) => JSON.parse(deepJsonText(depth, core, shape)) as unknown)

/**
 * Arbitrary JSON values a peer might send: ordinary JSON, prototype-ish keys, deep nesting, long
 * strings. Use `.map(JSON.stringify)` (safe: these stay below the stringifier's recursion limit only
 * when shallow; use `jsonText` for text).
 */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: deepJsonValue },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'prototype'),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: FUZZ_MAX_BYTES, unit: 'binary' }) },
)

/** Arbitrary text a peer might send as a frame or body: JSON of every kind, deep nesting, garbage. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.nat(FUZZ_MAX_DEPTH),
        fc.constantFrom<'array' | 'object' | 'mixed'>('array', 'object', 'mixed'),
        fc.json({ maxDepth: 1 }),
      )
      .map(([d, s, core]) => deepJsonText(d, core, s)),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 4096, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b).toString('latin1')) },
)

/**
 * Builds a JSON object around hostile values at chosen keys: `objectWith({ type: fc.constant(1) }, ['data'])`
 * gives `{ type: 1, data: <hostile> }` among others.
 */
export function objectWith(
  fixed: Record<string, fc.Arbitrary<unknown>>,
  hostileKeys: readonly string[],
): fc.Arbitrary<Record<string, unknown>> {
  const hostile: Record<string, fc.Arbitrary<unknown>> = {}
  for (const k of hostileKeys) hostile[k] = hostileJsonValue
  return fc.record({ ...fixed, ...hostile }, { requiredKeys: [] })
}

export interface ParserUnderFuzz<T> {
  /** The inputs to generate. */
  input: fc.Arbitrary<T>
  /** The parser; may be async. */
  parse: (input: T) => unknown
  /** Whether a thrown value is the module's own typed error. Omit when the parser must never throw. */
  typedError?: (err: unknown) => boolean
  /** Runs per property (default FUZZ_RUNS). */
  runs?: number
}

/**
 * Declares one vitest test: the parser returns a value or throws only its typed error, for every input.
 */
export function fuzzParser<T>(name: string, spec: ParserUnderFuzz<T>): void {
  test(`fuzz: ${name} returns or throws only its typed error`, async () => {
    await checkProperty(
      name,
      fc.asyncProperty(spec.input, async (input) => {
        try {
          await spec.parse(input)
        } catch (err) {
          if (spec.typedError?.(err)) return
          throw err
        }
      }),
      spec.runs,
    )
  })
}
