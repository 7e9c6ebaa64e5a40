/**
 * The recorder (`run --record`, issue 28 item 1) against an in-memory file system at the transport
 * boundary, on fake timers: lines wait in memory and are written at least every RECORD_FLUSH_MS and at
 * stop; the file rotates by size; a slow disk (a write that never ends) drops lines and says so once;
 * a full one (ENOSPC) or an I/O error stops the recording, said once; the input path never waits;
 * secrets never reach the file.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  RECORD_FLUSH_MS,
  RECORD_KEEP,
  RECORD_STOP_WAIT_MS,
  Recorder,
  recordWanted,
  type RecordFs,
} from '../../src/daemon/recorder.js'
import type { SentCommand } from '../../src/mappings/sender.js'
import { loggerInto, messages } from '../helpers/logs.js'

/** Files in memory; `mode` makes the disk slow (writes never end), full (ENOSPC) or failing (EIO). */
class MemoryFs implements RecordFs {
  readonly files = new Map<string, string>()
  writes = 0
  mode: 'ok' | 'slow' | 'full' | 'eio' = 'ok'
  appendFile(path: string, data: string): Promise<void> {
    this.writes++
    if (this.mode === 'slow') return new Promise(() => {})
    if (this.mode === 'full')
      return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))
    if (this.mode === 'eio') return Promise.reject(Object.assign(new Error('i/o error'), { code: 'EIO' }))
    this.files.set(path, (this.files.get(path) ?? '') + data)
    return Promise.resolve()
  }
  rename(from: string, to: string): Promise<void> {
    const text = this.files.get(from)
    if (text === undefined) return Promise.reject(Object.assign(new Error('absent'), { code: 'ENOENT' }))
    this.files.delete(from)
    this.files.set(to, text)
    return Promise.resolve()
  }
  size(path: string): Promise<number> {
    return Promise.resolve(Buffer.byteLength(this.files.get(path) ?? ''))
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
