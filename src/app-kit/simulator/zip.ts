/**
 * Project packages (`.zip`) through fflate: written with stored entries (the project is small text and
 * a tiny JPEG; no compression keeps them readable by any tool), read stored or deflated, as ordinary
 * zip tools make them. What fflate does not bound is checked here first: the archive's size, its entry
 * count (no zip64: a package never needs it) and the unpacked size of the entry read.
 */
import { unzipSync, zipSync, type Zippable } from 'fflate'
import { SIM_LIMITS } from './limits.js'

const END_SIG = 0x06054b50
const ZIP64_LOCATOR_SIG = 0x07064b50
/** The end-of-central-directory record's size without its comment. */
const END_BYTES = 22
/** The longest comment an end record may carry, so the farthest it can sit from the archive's end. */
const MAX_COMMENT_BYTES = 0xffff
/** 1980-01-01 00:00, the first date a zip entry can carry: the entries carry no meaningful time. */
const ENTRY_TIME = new Date(1980, 0, 1)

export function writeZip(entries: { name: string; data: Buffer }[]): Buffer {
  const files: Zippable = {}
  for (const { name, data } of entries) files[name] = data
  return Buffer.from(zipSync(files, { level: 0, mtime: ENTRY_TIME }))
}

/** Throws unless `zip` ends with an end record fflate can walk in bounded time (no zip64). */
function checkEnd(zip: Buffer): void {
  for (let i = zip.length - END_BYTES; i >= Math.max(0, zip.length - END_BYTES - MAX_COMMENT_BYTES); i--) {
    if (zip.readUInt32LE(i) !== END_SIG) continue
    if (i >= 20 && zip.readUInt32LE(i - 20) === ZIP64_LOCATOR_SIG) throw new Error('zip64 archives are not read')
    return
  }
  throw new Error('not a zip archive')
}

/** The data of entry `name`, or undefined when the archive lacks it. Throws on a damaged archive. */
export function readZipEntry(
  zip: Buffer,
  name: string,
  maxBytes: number = SIM_LIMITS.maxZipEntryBytes,
): Buffer | undefined {
  checkEnd(zip)
  let tooLarge = false
  const files = unzipSync(zip, {
    filter: (file) => {
      if (file.name !== name) return false
      // fflate unpacks into a buffer of the declared size and never past it: the declaration bounds it.
      if (file.originalSize > maxBytes) tooLarge = true
      return !tooLarge
    },
  })
  if (tooLarge) throw new RangeError(`zip entry ${name} unpacks past ${maxBytes} bytes`)
  const data = files[name]
  return data === undefined ? undefined : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
}
