/**
 * The recorder (`run --record`, issue 28 item 1) against an in-memory file system at the transport
 * boundary, on fake timers: lines wait in memory and are written at least every RECORD_FLUSH_MS and at
 * stop; the file rotates by size; a slow disk (a write that never ends) drops lines and says so once;
 * a full one (ENOSPC) or an I/O error stops the recording, said once; the input path never waits;
 * secrets never reach the file.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import {
  nodeRecordFs,
  RECORD_FLUSH_MS,
  RECORD_KEEP,
  RECORD_STOP_WAIT_MS,
  Recorder,
  recordWanted,
  type RecordFs,
  type RecordHandle,
} from '../../src/daemon/recorder.js'
import type { SentCommand } from '../../src/mappings/sender.js'
import { loggerInto, messages } from '../helpers/logs.js'

/**
 * Files in memory; `mode` makes the disk slow (writes never end), full (ENOSPC), failing (EIO) or short
 * (`shortBy`: a write takes that many bytes fewer than asked, then the disk is full). A file's identity
 * changes when it is made anew at its path (moved away, replaced).
 */
class MemoryFs implements RecordFs {
  readonly files = new Map<string, string>()
  private readonly ids = new Map<string, string>()
  private nextId = 0
  writes = 0
  mode: 'ok' | 'slow' | 'full' | 'eio' | 'short' = 'ok'
  shortBy = 10
  /** What `open` finds at a path that is not a regular file. */
  readonly special = new Set<string>()
  open(path: string): Promise<RecordHandle> {
    if (this.special.has(path))
      return Promise.reject(Object.assign(new Error(`${path} is not a regular file`), { code: 'NOT_REGULAR' }))
    if (this.mode === 'full')
      return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))
    if (!this.files.has(path)) {
      this.files.set(path, '')
      this.ids.set(path, `id${++this.nextId}`)
    }
    const identity = this.ids.get(path)!
    // Writes go to the file this handle opened, wherever it was moved since.
    const at = (): string | undefined => [...this.ids].find(([, id]) => id === identity)?.[0]
    const text = (): string => this.files.get(at() ?? '') ?? ''
    return Promise.resolve({
      identity,
      size: () => Promise.resolve(Buffer.byteLength(text())),
      endsLine: () => Promise.resolve(text() === '' || text().endsWith('\n')),
      write: (data: Buffer) => {
        this.writes++
        if (this.mode === 'slow') return new Promise<number>(() => {})
        if (this.mode === 'full')
          return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))
        if (this.mode === 'eio') return Promise.reject(Object.assign(new Error('i/o error'), { code: 'EIO' }))
        const path = at()
        if (path === undefined) return Promise.resolve(data.length)
        const take = this.mode === 'short' ? Math.max(0, data.length - this.shortBy) : data.length
        this.files.set(path, text() + data.subarray(0, take).toString('utf8'))
        if (this.mode === 'short') this.mode = 'full'
        return Promise.resolve(take)
      },
      truncate: (length: number) => {
        const path = at()
        if (path !== undefined) this.files.set(path, Buffer.from(text()).subarray(0, length).toString('utf8'))
        return Promise.resolve()
      },
      close: () => Promise.resolve(),
    })
  }
  rename(from: string, to: string): Promise<void> {
    const text = this.files.get(from)
    if (text === undefined) return Promise.reject(Object.assign(new Error('absent'), { code: 'ENOENT' }))
    this.files.delete(from)
    this.files.set(to, text)
    this.ids.set(to, this.ids.get(from)!)
    this.ids.delete(from)
    return Promise.resolve()
  }
  identity(path: string): Promise<string | undefined> {
    return Promise.resolve(this.ids.get(path))
  }
  lines(path: string): Record<string, unknown>[] {
    return (this.files.get(path) ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
  }
}

function sent(over: Partial<SentCommand> = {}): SentCommand {
  return {
    command: 'schedule',
    params: { title: 'Lower Third' },
    origin: 'deck/key:0',
    outcome: 'ok',
    durationMs: 2.5,
    ...over,
  }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

async function open(fs: MemoryFs, extra: { maxMb?: number; bufferMaxChars?: number } = {}) {
  const { logger, records } = loggerInto('record')
  const recorder = await Recorder.open({ file: '/rec/show.jsonl', config: '/etc/show.yaml', log: logger, fs, ...extra })
  return { recorder, records }
}

describe('the recorder', () => {
  it('writes nothing on the input path, everything within a second, and the rest at stop', async () => {
    const fs = new MemoryFs()
    const { recorder } = await open(fs)
    const writesAtOpen = fs.writes
    recorder.input({ type: 'down', surface: 'deck', control: 'key:0', at: 0 }, 'surface')
    recorder.input({ type: 'rotate', surface: 'deck', control: 'jog', delta: -3, at: 0, source: 'b1' }, 'api')
    recorder.command(sent())
    recorder.page('deck', 'replay')
    expect(fs.writes).toBe(writesAtOpen)
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    const lines = fs.lines('/rec/show.jsonl')
    expect(lines.map((l) => l.kind)).toEqual(['start', 'input', 'input', 'command', 'page'])
    expect(lines[0]).toMatchObject({ format: 'panelbridge-record', version: 1, config: '/etc/show.yaml' })
    expect(lines[1]).toMatchObject({ surface: 'deck', control: 'key:0', type: 'down', source: 'surface' })
    expect(lines[2]).toMatchObject({ type: 'rotate', delta: -3, source: 'api', by: 'b1' })
    expect(lines[3]).toMatchObject({
      command: 'schedule',
      params: { title: 'Lower Third' },
      origin: 'deck/key:0',
      outcome: 'ok',
      ms: 2.5,
    })
    expect(lines[4]).toMatchObject({ kind: 'page', surface: 'deck', page: 'replay' })
    recorder.input({ type: 'up', surface: 'deck', control: 'key:0', at: 0 }, 'surface')
    await recorder.stop()
    expect(fs.lines('/rec/show.jsonl').at(-1)).toMatchObject({ kind: 'input', type: 'up' })
  })

  it('keeps secrets out of the file', async () => {
    const fs = new MemoryFs()
    const { recorder } = await open(fs)
    recorder.command(
      sent({
        command: 'streaming_start',
        params: { streamKey: 'live_abc123' },
        outcome: 'APP_ERROR',
        message: 'refused rtmp://x/app?streamKey=live_abc123',
      }),
    )
    await recorder.stop()
    const text = fs.files.get('/rec/show.jsonl')!
    expect(text).not.toContain('live_abc123')
    expect(fs.lines('/rec/show.jsonl')[1]).toMatchObject({ params: { streamKey: '***' }, outcome: 'APP_ERROR' })
  })

  it('rotates by size: FILE.1 .. FILE.3 kept, each new FILE opening with a start line', async () => {
    const fs = new MemoryFs()
    const { recorder } = await open(fs, { maxMb: 1 })
    const big = 'x'.repeat(3000)
    // 1,500 lines of ~3.1 kB: about 4.6 MB, five files' worth.
    for (let i = 0; i < 1500; i++) {
      recorder.command(sent({ params: { title: big, n: i } }))
      if (i % 100 === 99) await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    }
    await recorder.stop()
    const names = [...fs.files.keys()].sort()
    expect(names).toEqual([
      '/rec/show.jsonl',
      ...Array.from({ length: RECORD_KEEP }, (_, i) => `/rec/show.jsonl.${i + 1}`),
    ])
    for (const name of names) {
      expect(Buffer.byteLength(fs.files.get(name)!)).toBeLessThanOrEqual(1024 * 1024)
      expect(fs.lines(name)[0]).toMatchObject({ kind: 'start' })
    }
    expect(fs.lines('/rec/show.jsonl')[0]).toMatchObject({ continued: true })
    // Nothing lost between the files kept: the newest lines, in order, up to the last.
    const ns = [...names.slice(1).reverse(), names[0]!].flatMap((n) =>
      fs
        .lines(n)
        .filter((l) => l.kind === 'command')
        .map((l) => (l.params as { n: number }).n),
    )
    expect(ns.at(-1)).toBe(1499)
    expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => 1500 - ns.length + i))
    expect(recorder.droppedLines).toBe(0)
  })

  it('a write that fails stops the recording: said once, nothing taken or written after, what was written kept', async () => {
    const fs = new MemoryFs()
    const { logger, records } = loggerInto('record')
    const failures: string[] = []
    const recorder = await Recorder.open({
      file: '/rec/show.jsonl',
      config: '/etc/show.yaml',
      log: logger,
      fs,
      onFail: (error) => void failures.push(error),
    })
    const ended: string[] = []
    recorder.follow({ line: () => undefined, end: (why) => void ended.push(why) })
    recorder.page('deck', 'main')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    fs.mode = 'full'
    recorder.input({ type: 'down', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    recorder.input({ type: 'up', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    const error = 'recording stopped: cannot write /rec/show.jsonl: the disk is full (ENOSPC)'
    expect(failures).toEqual([error])
    expect(recorder.failed).toBe(error)
    expect(ended).toEqual([error])
    expect(recorder.droppedLines).toBe(2)
    // Space again: the recording stays stopped; nothing more is taken or tried.
    fs.mode = 'ok'
    const writes = fs.writes
    recorder.input({ type: 'down', surface: 'deck', control: 'key:2', at: 0 }, 'surface')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS * 3)
    await recorder.stop()
    expect(fs.writes).toBe(writes)
    expect(fs.lines('/rec/show.jsonl').map((l) => l.kind)).toEqual(['start', 'page'])
    expect(failures).toHaveLength(1)
    expect(messages(records, 'warn')).toEqual([])
  })

  it('says an I/O error in words with its code', async () => {
    const fs = new MemoryFs()
    const failures: string[] = []
    const recorder = await Recorder.open({
      file: '/rec/show.jsonl',
      config: '/etc/show.yaml',
      log: loggerInto('record').logger,
      fs,
      onFail: (error) => void failures.push(error),
    })
    fs.mode = 'eio'
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    expect(failures).toEqual([
      'recording stopped: cannot write /rec/show.jsonl: the disk reported an input/output error (EIO)',
    ])
    await recorder.stop()
  })

  it('a slow disk: the buffer is bounded, lines beyond it are dropped (said once), and the stop does not hang', async () => {
    const fs = new MemoryFs()
    const { recorder, records } = await open(fs, { bufferMaxChars: 2000 })
    fs.mode = 'slow'
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    const writes = fs.writes
    for (let i = 0; i < 100; i++)
      recorder.input({ type: 'rotate', surface: 'deck', control: 'jog', delta: 1, at: 0 }, 'surface')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS * 3)
    // The one write in flight never ended: no second write was started meanwhile.
    expect(fs.writes).toBe(writes)
    expect(recorder.droppedLines).toBeGreaterThan(50)
    expect(recorder.droppedLines).toBeLessThan(100)
    expect(messages(records, 'warn').filter((m) => m.includes('dropped'))).toEqual([
      'recording: lines dropped (the disk is too slow); the recording goes on with gaps',
    ])
    let stopped = false
    void recorder.stop().then(() => (stopped = true))
    await vi.advanceTimersByTimeAsync(RECORD_STOP_WAIT_MS - 1)
    expect(stopped).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(stopped).toBe(true)
  })

  it('a write that ends short leaves no part of a line: cut back to the last whole line, its lines counted (issue 46 item 4)', async () => {
    const fs = new MemoryFs()
    const { recorder } = await open(fs)
    recorder.page('deck', 'main')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    fs.mode = 'short'
    recorder.input({ type: 'down', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    recorder.input({ type: 'up', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    expect(recorder.failed).toBe('recording stopped: cannot write /rec/show.jsonl: the disk is full (ENOSPC)')
    expect(recorder.droppedLines).toBe(2)
    await recorder.stop()
    const text = fs.files.get('/rec/show.jsonl')!
    expect(text.endsWith('\n')).toBe(true)
    expect(fs.lines('/rec/show.jsonl').map((l) => l.kind)).toEqual(['start', 'page'])
  })

  it('a file moved away (log rotation) is followed by a new one that starts with its own start line', async () => {
    const fs = new MemoryFs()
    const { recorder } = await open(fs)
    recorder.page('deck', 'main')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    await fs.rename('/rec/show.jsonl', '/rec/show.jsonl-20261207')
    recorder.input({ type: 'down', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    await recorder.stop()
    expect(fs.lines('/rec/show.jsonl-20261207').map((l) => l.kind)).toEqual(['start', 'page'])
    const fresh = fs.lines('/rec/show.jsonl')
    expect(fresh.map((l) => l.kind)).toEqual(['start', 'input'])
    expect(fresh[0]).toMatchObject({ continued: true, pages: { deck: 'main' } })
    expect(recorder.droppedLines).toBe(0)
  })

  it('something other than a regular file put in its place stops the recording, said in words', async () => {
    const fs = new MemoryFs()
    const failures: string[] = []
    const recorder = await Recorder.open({
      file: '/rec/show.jsonl',
      config: '/etc/show.yaml',
      log: loggerInto('record').logger,
      fs,
      onFail: (error) => void failures.push(error),
    })
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    await fs.rename('/rec/show.jsonl', '/rec/old.jsonl')
    fs.special.add('/rec/show.jsonl')
    recorder.input({ type: 'down', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    await vi.advanceTimersByTimeAsync(RECORD_FLUSH_MS)
    expect(failures).toEqual([
      'recording stopped: cannot write /rec/show.jsonl: it is not a regular file (a pipe, a device or a socket); a recording is written to a file only',
    ])
    expect(recorder.droppedLines).toBe(1)
    await recorder.stop()
  })

  it('a file that cannot be written refuses the start', async () => {
    const fs = new MemoryFs()
    fs.mode = 'full'
    await expect(open(fs)).rejects.toThrow(/no space/)
  })
})

describe('--record and --record-max-mb', () => {
  it('reads them, and refuses what is wrong', () => {
    expect(recordWanted(undefined, undefined)).toBeUndefined()
    expect(recordWanted('show.jsonl', undefined)).toEqual({ file: 'show.jsonl' })
    expect(recordWanted('show.jsonl', '20')).toEqual({ file: 'show.jsonl', maxMb: 20 })
    expect(() => recordWanted(undefined, '20')).toThrow('--record-max-mb goes with --record FILE')
    for (const bad of ['0', '-1', '1.5', 'ten', '100001'])
      expect(() => recordWanted('show.jsonl', bad)).toThrow(/whole number of MB/)
  })
})

describe('the record file on the real file system (issue 46 item 4)', () => {
  function folder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'pb-record-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }
  const logger = (): ReturnType<typeof loggerInto>['logger'] => loggerInto('record').logger

  it('a FIFO is refused at the start, never waited on', async () => {
    const file = join(folder(), 'show.jsonl')
    execFileSync('mkfifo', [file])
    await expect(Recorder.open({ file, config: '/etc/show.yaml', log: logger() })).rejects.toMatchObject({
      code: 'NOT_REGULAR',
    })
  })

  it('a FIFO put in place of the file mid-recording stops it, and the stop ends at once', async () => {
    const dir = folder()
    const file = join(dir, 'show.jsonl')
    const failures: string[] = []
    const recorder = await Recorder.open({
      file,
      config: '/etc/show.yaml',
      log: logger(),
      onFail: (e) => void failures.push(e),
    })
    await recorder.flush()
    renameSync(file, join(dir, 'moved.jsonl'))
    execFileSync('mkfifo', [file])
    recorder.input({ type: 'down', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    await recorder.flush()
    expect(failures).toHaveLength(1)
    expect(failures[0]).toContain('it is not a regular file')
    await recorder.stop()
  })

  it('a file a crash left with a cut last line: the start line begins a line of its own', async () => {
    const file = join(folder(), 'show.jsonl')
    writeFileSync(file, '{"t":1,"kind":"input","surf')
    const recorder = await Recorder.open({ file, config: '/etc/show.yaml', log: logger() })
    await recorder.stop()
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines[0]).toBe('{"t":1,"kind":"input","surf')
    expect(JSON.parse(lines[1]!)).toMatchObject({ kind: 'start' })
  })

  it('a file moved away is followed: the new file starts with its own start line', async () => {
    const dir = folder()
    const file = join(dir, 'show.jsonl')
    const recorder = await Recorder.open({ file, config: '/etc/show.yaml', log: logger(), fs: nodeRecordFs })
    await recorder.flush()
    renameSync(file, join(dir, 'show.jsonl.1'))
    recorder.input({ type: 'down', surface: 'deck', control: 'key:1', at: 0 }, 'surface')
    await recorder.stop()
    const kinds = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { kind: string }).kind)
    expect(kinds).toEqual(['start', 'input'])
  })
})
