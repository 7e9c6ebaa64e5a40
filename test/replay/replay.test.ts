/**
 * Record and replay (issue 28, items 1 and 2), end to end: a daemon against the simulator records a
 * storm (jog bursts, presses, a hold, page changes) through the remote API's door; the trace, replayed
 * at --speed max into the real engine against a fresh simulator, produces the same commands in the
 * same order (the jog's positions counted by the last of each run); with one binding changed,
 * `replay --compare` reports exactly that binding's commands and exits 1.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { replayCommand } from '../../src/commands/replay.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { loadConfigFile } from '../../src/mappings/load.js'
import type { SentCommand } from '../../src/mappings/sender.js'
import { byBinding, compareCommands, runsOf, SCRUB_COMMAND, type ComparedCommand } from '../../src/replay/compare.js'
import { replayTrace } from '../../src/replay/drive.js'
import { readTrace } from '../../src/replay/trace.js'
import { loggerInto } from '../helpers/logs.js'
import { pagedConsoleHead } from '../helpers/paged-console.js'
import { until, SAFETY_MS } from '../helpers/until.js'

const HOLD_CUTOUT = { action: 'cutout', title: 'Score Bug' }

function storyConfig(key0Title = 'Lower Third'): string {
  const head = pagedConsoleHead({
    listen: '{ host: 127.0.0.1, port: 0 }',
    console: '{ driver: web, rows: 1, columns: 4, jog: true }',
  })
  return `${head}  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "${key0Title}" } }
  - on: console/key:1
    press: { command: schedule, params: { action: automatic, title: "Score Bug" } }
    hold: { command: schedule, params: { action: cutout, title: "Score Bug" }, after_ms: 100 }
  - on: console/key:2
    press: { page: next }
  - on: console/key:3
    page: main
    press: { command: switchVideoIn, params: { channel: 0, video: "Camera 1" } }
  - on: console/key:3
    page: replay
    press:
      - { command: replay_arm_inputs, params: { inputs: ["Camera 1"] } }
      - { command: replay_enable }
      - { command: replay_enable_scrubbing, params: { enable: true } }
  - on: console/jog
    jog: { scrub: { step_frames: 1 } }
`
}

/** A daemon recording to `trace`, driven through the remote API's door; resolves with the commands it sent. */
async function recordStorm(dir: string): Promise<{ trace: string; config: string; sent: SentCommand[] }> {
  const config = join(dir, 'show.yaml')
  const trace = join(dir, 'show.jsonl')
  await writeFile(config, storyConfig())
  const sent: SentCommand[] = []
  const daemon = await Daemon.start({
    reloadTimeoutMs: SAFETY_MS,
    config,
    drivers: [],
    watch: false,
    record: { file: trace },
    onCommand: (c) => void sent.push(c),
  })
  onTestFinished(() => daemon.stop())
  await until('the application link', () => daemon.status().app.state === 'connected')
  const inject = (control: string, kind: 'press' | 'down' | 'up' | 'rotate', arg?: number): void =>
    expect(daemon.inject('console', control, kind, arg)).toBeUndefined()
  const settled = async (n: number): Promise<void> => until(`${n} commands`, () => sent.length >= n)
  const spin = async (turns: number, delta: number): Promise<void> => {
    // Bursts of turns, as a fast hand sends them: some summed by the door, some apart.
    for (let i = 0; i < turns; i++) {
      inject('jog', 'rotate', delta)
      if (i % 10 === 9) await new Promise((r) => setImmediate(r))
    }
    await until('the jog to rest', () => {
      const scrubs = sent.filter((c) => c.command === SCRUB_COMMAND)
      return scrubs.length > 0 && daemon.controlState('console', 'jog') !== undefined && !pendingJog(daemon)
    })
  }
  inject('key:0', 'press')
  await settled(1)
  inject('key:2', 'press')
  inject('key:3', 'press')
  await settled(4)
  await spin(120, 1)
  const afterJog = sent.length
  inject('key:1', 'down')
  await until('the hold to fire', () => sent.some((c) => JSON.stringify(c.params) === JSON.stringify(HOLD_CUTOUT)))
  inject('key:1', 'up')
  inject('key:1', 'press')
  await settled(afterJog + 2)
  await spin(40, -1)
  inject('key:2', 'press')
  inject('key:3', 'press')
  await until('the last press', () => sent.at(-1)?.command === 'switchVideoIn')
  await daemon.stop()
  return { trace, config, sent }
}

/** Whether the jog still has a position to send (its key shows `pending`). */
function pendingJog(daemon: Daemon): boolean {
  const s = daemon.controlState('console', 'jog')
  return 'badge' in s && s.badge === 'pending'
}

/** Commands as name and parameters, for the eye. */
function plain(list: readonly { command: string; params: Record<string, unknown>; origin: string }[]): string[] {
  return list.map((c) => `${c.origin} ${c.command} ${JSON.stringify(c.params)}`)
}

describe('record and replay', () => {
  it('a recorded storm replayed at --speed max against the simulator sends the same commands in the same order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-replay-'))
    const { trace, config, sent } = await recordStorm(dir)
    const read = await readTrace(trace)
    expect(read.skipped).toBe(0)
    // Every kind of line is there: inputs from the API, the commands, the page turns.
    const text = await readFile(trace, 'utf8')
    expect(text).toContain('"kind":"page","surface":"console","page":"replay"')
    expect(read.inputs.filter((i) => i.event.type === 'rotate').length).toBeGreaterThan(1)
    expect(read.inputs.every((i) => i.source === 'api')).toBe(true)
    expect(plain(read.commands)).toEqual(plain(sent))

    const loaded = await loadConfigFile(config)
    const { logger } = loggerInto('replay')
    const produced = await replayTrace({
      config: loaded.config!,
      inputs: read.inputs,
      speed: 'max',
      against: 'sim',
      log: logger,
    })
    const runs = runsOf(read.inputs, read.commands)
    const recorded = read.commands.map((c, i) => ({ ...c, run: runs[i]! }))
    expect(compareCommands(recorded, produced)).toEqual([])
    // The same, spelled out: the acting commands in order, and the jog's final position per run.
    const acting = (l: readonly SentCommand[]): string[] =>
      plain(l.filter((c) => c.command !== SCRUB_COMMAND && !c.command.includes('_get_')))
    expect(acting(produced)).toEqual(acting(read.commands as unknown as SentCommand[]))
    expect(acting(produced)).toContain(`console/key:1 schedule ${JSON.stringify(HOLD_CUTOUT)}`)
    expect(produced.filter((c) => c.outcome !== 'ok').map((c) => c.command)).toEqual([])
    const finals = (l: readonly ComparedCommand[]): string[] =>
      plain((byBinding(l).get('console/jog') ?? []).filter((c) => c.command === SCRUB_COMMAND))
    expect(finals(produced)).toEqual(finals(recorded))
    expect(finals(recorded).length).toBe(2)
  })

  it('--compare after one binding changed reports exactly that binding’s commands, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-replay-'))
    const { trace } = await recordStorm(dir)
    const changed = join(dir, 'changed.yaml')
    await writeFile(changed, storyConfig('Breaking News'))
    const out: string[] = []
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk))
      return true
    })
    const errWrite = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    let code: number
    try {
      code = await replayCommand.run([trace, '--config', changed, '--speed', 'max', '--compare'])
    } finally {
      write.mockRestore()
      errWrite.mockRestore()
    }
    expect(code).toBe(1)
    const report = out.join('')
    expect(report).toMatch(/^1 difference in (\d+) recorded, \1 replayed, 0 lines skipped \(/m)
    expect(report).toContain(
      'console/key:0: changed: schedule {"action":"cutin","title":"Lower Third"} → schedule {"action":"cutin","title":"Breaking News"}\n',
    )
    // The unchanged mapping: no difference, exit 0.
    const again: string[] = []
    const w2 = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      again.push(String(chunk))
      return true
    })
    const e2 = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      code = await replayCommand.run([trace, '--speed', 'max', '--compare'])
    } finally {
      w2.mockRestore()
      e2.mockRestore()
    }
    // Both sides counted alike: as many compared of each (the recording's streaming polls left out).
    expect(again.join('')).toMatch(/same commands: (\d+) recorded, \1 replayed, 0 lines skipped \(/)
    expect(code).toBe(0)
  })

  it('record: in the config writes the trace beside the config file, every input, command and page turn in it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-replay-'))
    const config = join(dir, 'show.yaml')
    await writeFile(config, `${storyConfig()}record: { file: rec/show.jsonl, max_mb: 5 }\n`)
    await mkdir(join(dir, 'rec'))
    const sent: SentCommand[] = []
    const daemon = await Daemon.start({
      config,
      drivers: [],
      watch: false,
      onCommand: (c) => void sent.push(c),
      reloadTimeoutMs: SAFETY_MS,
    })
    onTestFinished(() => daemon.stop())
    await until('the application link', () => daemon.status().app.state === 'connected')
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    expect(daemon.inject('console', 'key:2', 'press')).toBeUndefined()
    await until('the command', () => sent.length === 1)
    await daemon.stop()
    const lines = (await readFile(join(dir, 'rec', 'show.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    // The command comes back when the application answers; the page line comes as the engine turns it,
    // before the door's observer sees the press that turned it.
    const kinds = lines.map((l) => `${String(l.kind)} ${String(l.type ?? l.command ?? l.page ?? l.format)}`)
    expect(kinds[0]).toBe('start panelbridge-record')
    expect(kinds.filter((k) => k.startsWith('input'))).toEqual(['input down', 'input up', 'input down', 'input up'])
    expect(kinds.filter((k) => !k.startsWith('input') && !k.startsWith('start'))).toEqual(
      expect.arrayContaining(['command schedule', 'page replay']),
    )
    expect(kinds).toHaveLength(7)
    expect(lines[0]).toMatchObject({ config, pages: { console: 'main' } })
  })
})

/** Runs `replay` with `args`, what it wrote to stdout and its exit code. */
async function replayCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = []
  const err: string[] = []
  const w = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk))
    return true
  })
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk))
    return true
  })
  try {
    return { code: await replayCommand.run(args), out: out.join(''), err: err.join('') }
  } finally {
    w.mockRestore()
    e.mockRestore()
  }
}

describe('a show of any length, and a summary that never says same over skipped lines (issue 46 item 5)', () => {
  it.each([1e6, 1e7, 1e9])(
    'a recording whose t runs past %d ms: every record replayed, the same commands',
    async (offset) => {
      const dir = await mkdtemp(join(tmpdir(), 'pb-replay-long-'))
      const { trace } = await recordStorm(dir)
      const short = await readTrace(trace)
      // The same show, as if it had begun `offset` ms earlier: every line's t moved on.
      const text = await readFile(trace, 'utf8')
      const late = join(dir, 'late.jsonl')
      await writeFile(
        late,
        text
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => {
            const r = JSON.parse(l) as { t: number; kind: string }
            return JSON.stringify(r.kind === 'start' ? r : { ...r, t: r.t + offset })
          })
          .join('\n') + '\n',
      )
      const read = await readTrace(late)
      expect(read.skipped).toBe(0)
      expect(read.inputs).toHaveLength(short.inputs.length)
      expect(read.commands).toHaveLength(short.commands.length)
      const { code, out } = await replayCli([late, '--speed', 'max', '--compare'])
      expect(out).toMatch(/same commands: (\d+) recorded, \1 replayed, 0 lines skipped \(/)
      expect(Number(/same commands: (\d+)/.exec(out)![1])).toBeGreaterThan(0)
      expect(code).toBe(0)
    },
  )

  it('a trace with a line that is not a record: --compare says how many were skipped, never "same", and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-replay-skip-'))
    const { trace } = await recordStorm(dir)
    await writeFile(trace, `${await readFile(trace, 'utf8')}{"t":1,"kind":"input","surface":"console"\n`)
    const { code, out } = await replayCli([trace, '--speed', 'max', '--compare'])
    expect(out).not.toContain('same commands')
    expect(out).toMatch(/^not compared in full: (\d+) recorded, \1 replayed, 1 line skipped \(/m)
    expect(code).toBe(1)
  })
})
