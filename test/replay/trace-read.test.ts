/**
 * The trace reader (issue 46 item 5): a regular file only, read as a stream of lines split on bytes; a
 * line past its bound skipped whole; a record nested too deep no record; what is kept bounded, a longer
 * trace refused in words. Bounds are lowered through the reader's options so that a few MB stand for
 * the hundreds a hostile file may have.
 */
import { execFileSync } from 'node:child_process'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { Readable } from 'node:stream'
import { describe, expect, it, onTestFinished } from 'vitest'
import { linesOf, readTrace, REPLAY_LIMITS } from '../../src/replay/trace.js'

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-trace-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const START = '{"t":0,"kind":"start","format":"panelbridge-record","version":1,"config":"/x.yaml"}'
const input = (t: number): string =>
  `{"t":${t},"kind":"input","surface":"deck","control":"key:0","type":"down","source":"surface"}`

/** The parts as a stream of chunks, as a file's read stream gives them. */
function chunks(...parts: (string | Buffer)[]): AsyncIterable<Buffer> {
  return Readable.from(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p))))
}

async function all(lines: AsyncIterable<string | undefined>): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = []
  for await (const l of lines) out.push(l)
  return out
}

describe('the byte-level line splitter', () => {
  it('joins lines across chunks, takes off \\r\\n, and gives undefined for a line past the bound (never joined to the next)', async () => {
    expect(await all(linesOf(chunks('ab', 'c\nde\r', '\nf'), 10))).toEqual(['abc', 'de', 'f'])
    expect(await all(linesOf(chunks('x'.repeat(6), 'x'.repeat(6), 'x\nok\n', 'y'.repeat(20)), 10))).toEqual([
      undefined,
      'ok',
      undefined,
    ])
    expect(await all(linesOf(chunks('a\n\nb\n'), 10))).toEqual(['a', '', 'b'])
  })

  it('skips a line of a few MB streamed in chunks, keeping the lines around it', async () => {
    function* long(): Generator<Buffer> {
      yield Buffer.from(`${START}\n{"t":1,"kind":"page","surface":"deck","page":"`)
      const chunk = Buffer.alloc(64 * 1024, 0x70)
      for (let i = 0; i < 64; i++) yield chunk // 4 MiB of one line
      yield Buffer.from(`"}\n${input(2)}\n`)
    }
    const lines = await all(linesOf(Readable.from(long()), 64 * 1024))
    expect(lines.map((l) => (l === undefined ? 'skipped' : (JSON.parse(l) as { kind: string }).kind))).toEqual([
      'start',
      'skipped',
      'input',
    ])
  })
})

describe('a trace file read', () => {
  it('refuses /dev/zero and a FIFO as not regular files, in words, without reading or waiting', async () => {
    await expect(readTrace('/dev/zero')).rejects.toThrow(
      'a device, not a trace file: a trace is read from a regular file only',
    )
    const fifo = join(await folder(), 'show.jsonl')
    execFileSync('mkfifo', [fifo])
    await expect(readTrace(fifo)).rejects.toThrow('a named pipe, not a trace file')
  })

  it('a line past the bound is skipped and counted; a record 20,000 deep is no record; the rest is read', async () => {
    const file = join(await folder(), 'show.jsonl')
    const deep = `{"t":3,"kind":"command","command":"play","origin":"deck/key:0","outcome":"ok","params":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`
    const long = `{"t":1,"kind":"page","surface":"deck","page":"${'p'.repeat(3 * 1024 * 1024)}"}`
    await writeFile(file, [START, input(0), long, deep, input(5)].join('\n') + '\n')
    const trace = await readTrace(file, { maxLineBytes: 1024 * 1024 })
    expect(trace.skipped).toBe(2)
    expect(trace.inputs.map((i) => i.t)).toEqual([0, 5])
    expect(trace.commands).toEqual([])
  })

  it('takes t at any length of show: 1e6, 1e7, 1e9 ms; a negative or unbounded one is no record', async () => {
    const file = join(await folder(), 'show.jsonl')
    await writeFile(file, [START, input(1e6), input(1e7), input(1e9), input(-1), input(1e300)].join('\n') + '\n')
    const trace = await readTrace(file)
    expect(trace.inputs.map((i) => i.t)).toEqual([1e6, 1e7, 1e9])
    expect(trace.skipped).toBe(2)
  })

  it('reads many lines through the stream, and refuses in words a trace that keeps more records than its bound', async () => {
    const dir = await folder()
    const file = join(dir, 'many.jsonl')
    const out = createWriteStream(file)
    out.write(`${START}\n`)
    for (let i = 0; i < 200_000; i++) if (!out.write(`${input(i)}\n`)) await once(out, 'drain')
    out.end()
    await once(out, 'finish')
    const trace = await readTrace(file)
    expect(trace.inputs).toHaveLength(200_000)
    expect(trace.skipped).toBe(0)
    await expect(readTrace(file, { maxRecords: 100_000 })).rejects.toThrow(
      'more than 100000 records or 268435456 characters of them: too long to replay at once; replay it in parts',
    )
    expect(REPLAY_LIMITS.maxRecords).toBeGreaterThan(200_000)
  })
})
