/**
 * The simulator's project packages (src/app-kit/simulator/zip.ts, through fflate): what it writes is a plain
 * zip with stored entries; it reads stored and deflated entries, bounded.
 */
import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { SIM_LIMITS } from '../../../src/app-kit/simulator/limits.js'
import { readZipEntry, writeZip } from '../../../src/app-kit/simulator/zip.js'

const LOCAL_SIG = 0x04034b50

describe('writeZip', () => {
  it('writes stored entries in order, readable back, with 1980-01-01 as their date', () => {
    const zip = writeZip([
      { name: 'project.json', data: Buffer.from('{"a":1}') },
      { name: 'thumbnail.jpg', data: Buffer.from([0xff, 0xd8, 0xff]) },
    ])
    expect(zip.readUInt32LE(0)).toBe(LOCAL_SIG)
    expect(zip.readUInt16LE(8)).toBe(0) // stored
    expect(zip.readUInt16LE(12)).toBe((0 << 9) | (1 << 5) | 1) // DOS date 1980-01-01
    expect(zip.toString('utf8', 30, 30 + zip.readUInt16LE(26))).toBe('project.json')
    expect(readZipEntry(zip, 'project.json')?.toString('utf8')).toBe('{"a":1}')
    expect([...readZipEntry(zip, 'thumbnail.jpg')!]).toEqual([0xff, 0xd8, 0xff])
    expect(readZipEntry(zip, 'other.json')).toBeUndefined()
  })

  it('stores the data as it is: the raw bytes appear in the archive', () => {
    const zip = writeZip([{ name: 'a.txt', data: Buffer.from('plain text, not compressed') }])
    expect(zip.includes(Buffer.from('plain text, not compressed'))).toBe(true)
  })
})

describe('readZipEntry', () => {
  it('reads a deflated entry, as zip tools write them', () => {
    const text = 'Evening News '.repeat(500)
    const zip = Buffer.from(zipSync({ 'project.json': Buffer.from(text), 'b.bin': new Uint8Array(10) }, { level: 9 }))
    expect(zip.length).toBeLessThan(text.length)
    expect(readZipEntry(zip, 'project.json')?.toString('utf8')).toBe(text)
  })

  it('stops a zip bomb with a RangeError before unpacking it', () => {
    const zeros = new Uint8Array(SIM_LIMITS.maxZipEntryBytes + 1)
    const zip = Buffer.from(zipSync({ 'project.json': zeros }, { level: 9 }))
    expect(zip.length).toBeLessThan(100_000)
    expect(() => readZipEntry(zip, 'project.json')).toThrow(RangeError)
    expect(() => readZipEntry(writeZip([{ name: 'x', data: Buffer.alloc(11) }]), 'x', 10)).toThrow(RangeError)
  })

  it('unpacks no further than an entry declares, whatever its data holds', () => {
    const zip = Buffer.from(zipSync({ 'x.txt': Buffer.from('abcdef') }, { level: 9 }))
    // Declare 3 bytes unpacked (local header and central directory) for deflated data of 6.
    zip.writeUInt32LE(3, 22)
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    zip.writeUInt32LE(3, central + 24)
    expect(readZipEntry(zip, 'x.txt')?.length ?? 0).toBeLessThanOrEqual(3)
  })

  it('refuses what is not a zip archive, and zip64 archives', () => {
    expect(() => readZipEntry(Buffer.from('PK not really'), 'project.json')).toThrow('not a zip archive')
    expect(() => readZipEntry(Buffer.alloc(0), 'project.json')).toThrow('not a zip archive')
    const zip = writeZip([{ name: 'x', data: Buffer.from('1') }])
    const end = zip.length - 22
    const locator = Buffer.alloc(20)
    locator.writeUInt32LE(0x07064b50, 0)
    const zip64 = Buffer.concat([zip.subarray(0, end), locator, zip.subarray(end)])
    expect(() => readZipEntry(zip64, 'x')).toThrow('zip64')
  })
})
