/**
 * The reader of files a config names (`src/read-regular.ts`): room for the size the file's stat gives
 * (not the whole bound for every file), and a file longer than its stat said (one that grew, or a /proc
 * file whose stat says 0) still read to its end or refused past the bound. Its callers' words for each
 * outcome are tested with them (config, pictures, token file).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readRegularFile } from '../src/read-regular.js'

const dir = mkdtempSync(join(tmpdir(), 'pb-read-regular-'))

describe('readRegularFile', () => {
  it('reads a file whole, at its size and at the bound exactly', async () => {
    const file = join(dir, 'ten')
    writeFileSync(file, '0123456789')
    expect(await readRegularFile(file, 100)).toEqual({ bytes: Buffer.from('0123456789') })
    expect(await readRegularFile(file, 10)).toEqual({ bytes: Buffer.from('0123456789') })
    expect(await readRegularFile(file, 9)).toEqual({ tooLarge: true, size: 10 })
  })

  it('reads past what its stat said: a /proc file of size 0, to its end or refused past the bound', async () => {
    const read = await readRegularFile('/proc/self/status', 1 << 20)
    expect('bytes' in read && read.bytes.toString('utf8')).toMatch(/^Name:/)
    const length = 'bytes' in read ? read.bytes.length : 0
    expect(length).toBeGreaterThan(100)
    // Past the bound it stops reading: the size it gives is at least the bound's next byte.
    expect(await readRegularFile('/proc/self/status', 50)).toEqual({ tooLarge: true, size: 51 })
  })

  it('refuses what is not a regular file, and says a missing one', async () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    expect(await readRegularFile(fifo, 100)).toEqual({ notRegular: 'a named pipe' })
    expect(await readRegularFile(dir, 100)).toEqual({ notRegular: 'a folder' })
    const missing = await readRegularFile(join(dir, 'nothing'), 100)
    expect('error' in missing && missing.error.code).toBe('ENOENT')
  })
})
