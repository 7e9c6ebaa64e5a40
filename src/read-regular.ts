/**
 * A file named in the config read without ever blocking on what is at its path (issue 24, item 6): the
 * config file on a reload, its pictures, and `listen.token_file`. A named pipe put in a file's place
 * would block a plain open (and a thread of libuv's pool with it, for as long as no writer comes), so
 * the file is opened with O_NONBLOCK, anything but a regular file is refused from `fstat` before a byte
 * is read, and at most `maxBytes` are read. Each caller says what an outcome means in its own words.
 */
import { constants, type Stats } from 'node:fs'
import { open } from 'node:fs/promises'

/** What reading a file gave: its bytes, or why not. */
export type RegularRead =
  | { bytes: Buffer }
  /** Not a regular file: what it is, in words ("a named pipe"). */
  | { notRegular: string }
  /** More than `maxBytes`: its size by `fstat`, or the bytes read when it grew past that (at least). */
  | { tooLarge: true; size: number }
  /** The open, stat or read failed. */
  | { error: NodeJS.ErrnoException }

/** What a path that is not a regular file is, in words. */
export function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe'
  if (st.isDirectory()) return 'a folder'
  if (st.isSocket()) return 'a socket'
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device'
  return 'not a regular file'
}

function asErrno(err: unknown): NodeJS.ErrnoException {
  return err instanceof Error ? err : new Error(String(err))
}

/** The bytes of the regular file at `path`, at most `maxBytes`, never blocking on what is there. */
export async function readRegularFile(path: string, maxBytes: number): Promise<RegularRead> {
  let handle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (err) {
    return { error: asErrno(err) }
  }
  try {
    const st = await handle.stat()
    if (!st.isFile()) return { notRegular: kindOf(st) }
    if (st.size > maxBytes) return { tooLarge: true, size: st.size }
    // Room for the size its stat gave and one byte more, so that the end is seen; a file that grew since
    // (or a file whose stat says 0, as /proc's) gets room for one more byte than allowed, and is caught.
    let buffer = Buffer.allocUnsafe(st.size + 1)
    let length = 0
    for (;;) {
      if (length === buffer.length) {
        const room = Buffer.allocUnsafe(maxBytes + 1)
        buffer.copy(room, 0, 0, length)
        buffer = room
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
      if (length > maxBytes) return { tooLarge: true, size: length }
    }
    return { bytes: buffer.subarray(0, length) }
  } catch (err) {
    return { error: asErrno(err) }
  } finally {
    await handle.close()
  }
}
