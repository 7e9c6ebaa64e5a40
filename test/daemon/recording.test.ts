/**
 * A recording never takes the desk down: a relative `record.file` lives in the service's state folder
 * (`$STATE_DIRECTORY`, systemd's StateDirectory=), else beside the config file; a record file that
 * cannot be opened is a warning (logged once, in `/api/status`, `/metrics` and the page's status strip)
 * and the daemon runs on, presses sent; so is a disk that fills mid-show (a real ENOSPC, from /dev/full).
 * A reload (the daemon's own, the file read in its worker) starts, stops or moves the recording, and
 * tries a failed one again. Real daemons against the simulator, real files in a temporary folder.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Daemon, type DaemonOptions } from '../../src/daemon/daemon.js'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import type { RecordFs, RecordHandle } from '../../src/daemon/recorder.js'
import { Recording } from '../../src/daemon/recording.js'
import { configSchema } from '../../src/mappings/schema.js'
import type { SentCommand } from '../../src/mappings/sender.js'
import { readStrip, viewStrip } from '../../src/page/strip-state.js'
import { captureLogs, loggerInto, messages } from '../helpers/logs.js'
import { pagedConsoleHead } from '../helpers/paged-console.js'
import { until } from '../helpers/until.js'

/** One web console whose key:0 sends a command; `record` is the `record:` line's value, when any. */
function configText(record?: string): string {
  const head = pagedConsoleHead({
    listen: '{ host: 127.0.0.1, port: 0 }',
    console: '{ driver: web, rows: 1, columns: 2 }',
  })
  const bindings = `  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`
  return `${head}${bindings}${record === undefined ? '' : `record: ${record}\n`}`
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** A daemon on `config`, its commands collected; stopped when the test ends. */
async function startDaemon(config: string, more: Partial<DaemonOptions> = {}) {
  const sent: SentCommand[] = []
  const daemon = await Daemon.start({
    config,
    drivers: [],
    watch: false,
    onCommand: (c) => void sent.push(c),
    ...more,
  })
  onTestFinished(() => daemon.stop())
  await until('the application link', () => daemon.status().app.state === 'connected')
  return { daemon, sent }
}

/** The lines of `panelbridge_recording` in the metrics' text, by state. */
async function recordingGauge(metrics: PrometheusMetrics): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const m of (await metrics.text()).matchAll(/^panelbridge_recording\{state="(\w+)"\} (\d+)$/gm))
    out[m[1]!] = Number(m[2])
  return out
}

/** What the page's status strip shows of the daemon now (the page's own reading of the two replies). */
function stripOf(daemon: Daemon) {
  return viewStrip(readStrip(daemon.status(), { errors: daemon.recentErrors() }), undefined, Date.now())
}

/** The `kind` of each line of a trace file. */
async function kinds(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8')
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => String((JSON.parse(l) as { kind: unknown }).kind))
}

// The daemons' own lines stay out of the test's output.
beforeEach(() => void captureLogs())
afterEach(() => {
  vi.unstubAllEnvs()
})

describe('where a relative record file lives', () => {
  it('in $STATE_DIRECTORY when systemd sets it, else beside the config file', async () => {
    const configDir = await tempDir('pb-rec-config-')
    const stateDir = await tempDir('pb-rec-state-')
    const config = join(configDir, 'show.yaml')
    await writeFile(config, configText('{ file: show.jsonl }'))

    vi.stubEnv('STATE_DIRECTORY', stateDir)
    const inState = await startDaemon(config)
    expect(inState.daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the command', () => inState.sent.length === 1)
    await inState.daemon.stop()
    expect(await kinds(join(stateDir, 'show.jsonl'))).toEqual(['start', 'input', 'input', 'command'])
    await expect(readFile(join(configDir, 'show.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' })

    vi.stubEnv('STATE_DIRECTORY', '')
    const beside = await startDaemon(config)
    await beside.daemon.stop()
    expect(await kinds(join(configDir, 'show.jsonl'))).toEqual(['start'])
  })

  it('makes the folders a relative file names inside the state folder, and none beside the config', async () => {
    const configDir = await tempDir('pb-rec-config-')
    const stateDir = await tempDir('pb-rec-state-')
    const config = join(configDir, 'show.yaml')
    await writeFile(config, configText('{ file: shows/monday.jsonl }'))

    vi.stubEnv('STATE_DIRECTORY', stateDir)
    const inState = await startDaemon(config)
    expect(inState.daemon.status().recording?.state).toBe('recording')
    await inState.daemon.stop()
    expect(await kinds(join(stateDir, 'shows', 'monday.jsonl'))).toEqual(['start'])

    // Beside the config (no state folder), a missing folder stays the warning it was.
    vi.stubEnv('STATE_DIRECTORY', '')
    const beside = await startDaemon(config)
    expect(beside.daemon.status().recording?.state).toBe('failed')
    await beside.daemon.stop()
    await expect(readFile(join(configDir, 'shows', 'monday.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('a record file that cannot be opened', () => {
  it('is a warning, logged once, in /api/status, /metrics and on the strip; the daemon starts and sends presses', async () => {
    const dir = await tempDir('pb-rec-open-')
    const config = join(dir, 'show.yaml')
    await writeFile(config, configText('{ file: no-such-folder/show.jsonl }'))
    const file = join(dir, 'no-such-folder', 'show.jsonl')
    const metrics = new PrometheusMetrics({ processMetrics: false })
    const { logger, records } = loggerInto('daemon')
    const { daemon, sent } = await startDaemon(config, { metrics, logger })

    const error = `not recording: cannot open ${file}: its folder does not exist (ENOENT)`
    expect(daemon.status().recording).toEqual({ state: 'failed', file, error })
    expect(await recordingGauge(metrics)).toEqual({ off: 0, recording: 0, failed: 1 })
    const strip = stripOf(daemon)
    expect(strip.recordingText).toBe(error)
    expect(strip.reading.recordingFailed?.file).toBe(file)
    expect(messages(records, 'warn').filter((m) => m.includes('not recording'))).toEqual([
      `${error}; the daemon runs on without a recording`,
    ])

    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the command', () => sent.length === 1)
    expect(sent[0]).toMatchObject({ command: 'schedule', outcome: 'ok' })
    expect(daemon.status().recording?.state).toBe('failed')
  })

  it('a file that opens: state recording, the gauge at recording, nothing on the strip', async () => {
    const dir = await tempDir('pb-rec-ok-')
    const config = join(dir, 'show.yaml')
    await writeFile(config, configText('{ file: show.jsonl }'))
    const metrics = new PrometheusMetrics({ processMetrics: false })
    const { daemon } = await startDaemon(config, { metrics })
    expect(daemon.status().recording).toEqual({ state: 'recording', file: join(dir, 'show.jsonl') })
    expect(await recordingGauge(metrics)).toEqual({ off: 0, recording: 1, failed: 0 })
    expect(stripOf(daemon).recordingText).toBeUndefined()
    await writeFile(config, configText())
    const off = await startDaemon(config, { metrics: new PrometheusMetrics({ processMetrics: false }) })
    expect(off.daemon.status().recording).toEqual({ state: 'off' })
  })
})

describe('the record file replaced by a device mid-show (a full disk: the recorder test)', () => {
  it('stops the recording with the warning shown; every press is sent; the daemon runs on', async () => {
    const dir = await tempDir('pb-rec-full-')
    const config = join(dir, 'show.yaml')
    const kept = join(dir, 'kept.jsonl')
    const file = join(dir, 'show.jsonl')
    // The record file is a link: to a real file first, then to /dev/full, a device: never written to.
    await symlink(kept, file)
    await writeFile(config, configText('{ file: show.jsonl }'))
    const metrics = new PrometheusMetrics({ processMetrics: false })
    const { logger, records } = loggerInto('daemon')
    const { daemon, sent } = await startDaemon(config, { metrics, logger })
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the command', () => sent.length === 1)
    await until('the command written', () => readFileSync(kept, 'utf8').includes('"kind":"command"'))

    await symlink('/dev/full', `${file}.new`)
    await rename(`${file}.new`, file)
    // Presses while the disk fills and after: each sends its command (one at a time, as a hand presses).
    const press = async (): Promise<void> => {
      const before = sent.length
      expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
      await until('the command', () => sent.length === before + 1)
    }
    await press()
    await until('the recording to stop', () => daemon.status().recording?.state === 'failed')
    for (let i = 0; i < 3; i++) await press()
    expect(sent.map((c) => c.outcome)).toEqual(Array<string>(5).fill('ok'))

    const error = `recording stopped: cannot write ${file}: it is not a regular file (a pipe, a device or a socket); a recording is written to a file only`
    expect(daemon.status().recording).toEqual({ state: 'failed', file, error })
    expect(await recordingGauge(metrics)).toEqual({ off: 0, recording: 0, failed: 1 })
    expect(stripOf(daemon).recordingText).toBe(error)
    expect(messages(records, 'warn').filter((m) => m.includes('recording'))).toEqual([
      `${error}; the daemon runs on without a recording`,
    ])
    // What was written before stays.
    expect(await kinds(kept)).toEqual(['start', 'input', 'input', 'command'])
  })
})

describe('a FIFO in the record file’s place (issue 46 item 4)', () => {
  it('is refused at the start with the warning shown, never waited on; the daemon runs, presses are sent, and it stops', async () => {
    const dir = await tempDir('pb-rec-fifo-')
    const config = join(dir, 'show.yaml')
    const file = join(dir, 'show.jsonl')
    execFileSync('mkfifo', [file])
    await writeFile(config, configText('{ file: show.jsonl }'))
    const { logger, records } = loggerInto('daemon')
    const { daemon, sent } = await startDaemon(config, { logger })
    const error = `not recording: cannot open ${file}: it is not a regular file (a pipe, a device or a socket); a recording is written to a file only`
    expect(daemon.status().recording).toEqual({ state: 'failed', file, error })
    expect(messages(records, 'warn').filter((m) => m.includes('recording'))).toEqual([
      `${error}; the daemon runs on without a recording`,
    ])
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the command', () => sent.length === 1)
    await daemon.stop()
  })
})

/** The reloads' bound here, and the tests' (a reload's worker starts slowly on a loaded machine). */
const RELOAD_BOUND_MS = 60_000

describe('a reload', { timeout: 4 * RELOAD_BOUND_MS }, () => {
  /** A daemon on `show.yaml` in a folder of its own, with a press that waits for its command. */
  async function rig(record?: string) {
    const dir = await tempDir('pb-rec-reload-')
    const config = join(dir, 'show.yaml')
    await writeFile(config, configText(record))
    const metrics = new PrometheusMetrics({ processMetrics: false })
    // A reload reads the file in a worker that loads the sources through tsx: slow on a busy machine.
    const { daemon, sent } = await startDaemon(config, { metrics, reloadTimeoutMs: RELOAD_BOUND_MS })
    const press = async (): Promise<void> => {
      const before = sent.length
      expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
      await until('the command', () => sent.length === before + 1)
    }
    const reload = async (next?: string): Promise<void> => {
      await writeFile(config, configText(next))
      expect(await daemon.reload()).toBe(true)
    }
    return { dir, daemon, metrics, press, reload }
  }

  it('starts a recording when record: comes into the config', async () => {
    const { dir, daemon, metrics, press, reload } = await rig()
    await press()
    expect(daemon.status().recording).toEqual({ state: 'off' })
    await reload('{ file: show.jsonl }')
    expect(daemon.status().recording).toEqual({ state: 'recording', file: join(dir, 'show.jsonl') })
    expect(await recordingGauge(metrics)).toEqual({ off: 0, recording: 1, failed: 0 })
    await press()
    await daemon.stop()
    expect(await kinds(join(dir, 'show.jsonl'))).toEqual(['start', 'input', 'input', 'command'])
  })

  it('stops the recording when record: leaves the config', async () => {
    const { dir, daemon, metrics, press, reload } = await rig('{ file: show.jsonl }')
    await press()
    await reload()
    expect(daemon.status().recording).toEqual({ state: 'off' })
    expect(await recordingGauge(metrics)).toEqual({ off: 1, recording: 0, failed: 0 })
    // Written at the stop, and nothing after.
    const stopped = await kinds(join(dir, 'show.jsonl'))
    expect(stopped).toEqual(['start', 'input', 'input', 'command'])
    await press()
    await daemon.stop()
    expect(await kinds(join(dir, 'show.jsonl'))).toEqual(stopped)
  })

  it('moves the recording to another file: the old one ends, the new one starts on the pages now', async () => {
    const { dir, daemon, press, reload } = await rig('{ file: first.jsonl }')
    await press()
    await reload('{ file: second.jsonl }')
    expect(daemon.status().recording).toEqual({ state: 'recording', file: join(dir, 'second.jsonl') })
    expect(await kinds(join(dir, 'first.jsonl'))).toEqual(['start', 'input', 'input', 'command'])
    await press()
    await daemon.stop()
    expect(await kinds(join(dir, 'second.jsonl'))).toEqual(['start', 'input', 'input', 'command'])
    const start = JSON.parse((await readFile(join(dir, 'second.jsonl'), 'utf8')).split('\n')[0]!) as unknown
    expect(start).toMatchObject({ kind: 'start', pages: { console: 'main' } })
  })

  it('keeps a recording whose record: did not change, and tries a failed one again', async () => {
    const { dir, daemon, press, reload } = await rig('{ file: rec/show.jsonl }')
    const file = join(dir, 'rec', 'show.jsonl')
    expect(daemon.status().recording).toMatchObject({ state: 'failed', file })
    await mkdir(join(dir, 'rec'))
    await reload('{ file: rec/show.jsonl }')
    expect(daemon.status().recording).toEqual({ state: 'recording', file })
    await press()
    await reload('{ file: rec/show.jsonl }')
    await press()
    await daemon.stop()
    // One recording throughout: one start line.
    expect(await kinds(file)).toEqual(['start', 'input', 'input', 'command', 'input', 'input', 'command'])
  })
})

describe('the daemon stopping while a reload opens a record file', () => {
  it('stops the recorder that opens late: its observer comes off the door, and it is not the one in use', async () => {
    let opened: () => void = () => undefined
    const handle: RecordHandle = {
      identity: 'only',
      size: () => Promise.resolve(0),
      endsLine: () => Promise.resolve(true),
      write: (data) => Promise.resolve(data.length),
      truncate: () => Promise.resolve(),
      close: () => Promise.resolve(),
    }
    const fs: RecordFs = {
      // The open waits until the test lets it end; later writes go nowhere.
      open: () => new Promise<RecordHandle>((r) => (opened = () => r(handle))),
      rename: () => Promise.resolve(),
      identity: () => Promise.resolve('only'),
    }
    let observers = 0
    const door = {
      observe: () => {
        observers++
        return () => void observers--
      },
    }
    const recording = new Recording({ door, pageOf: () => undefined, log: loggerInto('record').logger, fs })
    const config = configSchema.parse({ version: 1, record: { file: '/rec/show.jsonl' } })
    const applying = recording.apply(undefined, config, '/etc/show.yaml')
    await recording.stop()
    opened()
    await applying
    expect(observers).toBe(0)
    expect(recording.active).toBeUndefined()
  })
})
