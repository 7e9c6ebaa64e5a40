/**
 * Test helpers: a simulator on a loopback port (port 0) and plain-fetch calls to it. The client's own
 * tests are elsewhere; these speak HTTP directly so that they test the simulator alone.
 */
import { afterAll, afterEach, beforeAll, beforeEach, onTestFinished } from 'vitest'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'

/** A reply body read loosely by assertions (JSON of any shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions read JSON replies of any shape
export type Json = any

export type Result = Record<string, Json> & { command: string; reply: string; success: boolean; error?: string }

export interface TestSim {
  sim: SimulatorHandle
  /** GET /api/command/<name>?params; returns the parsed body. */
  raw(name: string, params?: Record<string, string | number>): Promise<Json>
  /** GET and return `result` (fails when the reply has no envelope). */
  cmd(name: string, params?: Record<string, string | number>): Promise<Result>
  /** GET and expect success without `error`. */
  ok(name: string, params?: Record<string, string | number>): Promise<Result>
  /** POST a JSON body to a path; returns status and parsed body. */
  post(path: string, body: unknown): Promise<{ status: number; body: Json }>
  close(): Promise<void>
}

export async function startTestSim(animationMs = 20): Promise<TestSim> {
  // No dataDir: the simulator makes a temporary one and removes it on close.
  const sim = await startSimulator({ httpPort: 0, wsPort: 0, animationMs })
  const raw = async (name: string, params: Record<string, string | number> = {}): Promise<Json> => {
    const query = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString()
    const res = await fetch(`${sim.httpUrl}/api/command/${encodeURIComponent(name)}${query ? `?${query}` : ''}`)
    if (res.status !== 200) throw new Error(`HTTP ${res.status} for ${name}`)
    return res.json()
  }
  const cmd = async (name: string, params?: Record<string, string | number>): Promise<Result> => {
    const body = await raw(name, params)
    if (!body.result) throw new Error(`no envelope for ${name}: ${JSON.stringify(body)}`)
    return body.result as Result
  }
  const ok = async (name: string, params?: Record<string, string | number>): Promise<Result> => {
    const r = await cmd(name, params)
    if (r.error !== undefined) throw new Error(`${name} failed: ${r.error}`)
    return r
  }
  const post = async (path: string, body: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${sim.httpUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() }
  }
  return { sim, raw, cmd, ok, post, close: () => sim.close() }
}

/**
 * A simulator for the tests of this file: a fresh one for each test (`'each'`), or one for the whole file
 * (`'file'`), closed after. What it returns stands for the current one, so a file says `const t = useTestSim()`
 * instead of its own `let t` and hooks.
 */
export function useTestSim(scope: 'each' | 'file' = 'each', animationMs?: number): TestSim {
  let current: TestSim | undefined
  const now = (): TestSim => {
    if (!current) throw new Error('no simulator outside a test')
    return current
  }
  const [before, after] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll]
  before(async () => {
    current = await startTestSim(animationMs)
  })
  after(async () => {
    await current?.close()
    current = undefined
  })
  return {
    get sim() {
      return now().sim
    },
    raw: (name, params) => now().raw(name, params),
    cmd: (name, params) => now().cmd(name, params),
    ok: (name, params) => now().ok(name, params),
    post: (path, body) => now().post(path, body),
    close: () => now().close(),
  }
}

/** Titles in list order on channel 0 as readTitle reports them. */
export async function titleNames(t: TestSim, channel = 0): Promise<string[]> {
  const r = await t.ok('readTitle', { channel })
  return (r.titles as { name: string }[]).map((x) => x.name)
}

/** The `key` of every item of a JSON array. */
export function pluck(list: Json, key: string): unknown[] {
  return (list as Record<string, unknown>[]).map((x) => x[key])
}

/** A simulator on port 0 with short title animations, closed when the test finishes. */
export async function simulatorForTest(animationMs: number): Promise<SimulatorHandle> {
  const s = await startSimulator({ animationMs })
  onTestFinished(() => s.close())
  return s
}
