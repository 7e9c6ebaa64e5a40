/**
 * Writes an edited mapping file: only over the version the editor read (its hash), only when the whole
 * check passes, and atomically (a temp file in the same folder, fsynced, renamed over the file, the
 * folder fsynced), so a crash at any point leaves the old file or the new one, never a part of either.
 * Also whether the file can be written at all, found without changing it.
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { access, lstat, open, readdir, readFile, rename, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** SHA-256 of the bytes, hex: what every read of the file carries and every save names. */
export function hashBytes(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** The file's bytes and their hash. */
export async function readWithHash(path: string): Promise<{ bytes: Buffer; hash: string }> {
  const bytes = await readFile(path)
  return { bytes, hash: hashBytes(bytes) }
}

/** A problem of a refused edit, at its field. */
export interface EditProblem {
  path: string
  message: string
}

/** Runs the whole check on the new text: its errors (none: the text may be written). */
export type CheckText = (text: string) => Promise<EditProblem[]> | EditProblem[]

export type SaveResult =
  | { ok: true; hash: string; previous: Buffer }
  | { ok: false; code: 'CONFIG_CHANGED'; hash: string }
  | { ok: false; code: 'CONFIG_REFUSED'; problems: EditProblem[] }
  | { ok: false; code: 'NOT_WRITABLE'; reason: string }

export interface WriteHooks {
  /**
   * Called after the temp file is written and fsynced, before it is renamed over the file: a test
   * stops the process here to show a crash leaves the old file whole.
   */
  beforeRename?: (tempPath: string) => void | Promise<void>
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Whether an error is the one the system gives for a permission (not a missing file or a full disk). */
function isPermission(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code
  return code === 'EPERM' || code === 'EACCES'
}

/** An unlink of a file another process removed first is done. */
function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
}

/** Whether process `pid` is running (one of another user still is: EPERM). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/** The temp file names of `path`'s saves: `.<name>.<pid>.<random>.tmp`. */
function tempName(path: string, pid: number): string {
  return `.${basename(path)}.${pid}.${randomBytes(6).toString('hex')}.tmp`
}

/**
 * Removes the temp files a save left when its process was killed before its rename (the old file is
 * whole then, and the temp file is of no use): those of processes no longer running.
 */
async function removeStaleTemps(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`
  for (const name of await readdir(dirname(path))) {
    if (!name.startsWith(prefix)) continue
    const pid = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length))?.[1]
    if (pid !== undefined && !alive(Number(pid))) await unlink(join(dirname(path), name)).catch(ignoreMissing)
  }
}

/**
 * Writes `bytes` over `path` atomically, keeping its mode and (where the process may) its owner.
 * The temp file is removed when anything fails before the rename.
 */
export async function writeAtomic(path: string, bytes: Uint8Array | string, hooks: WriteHooks = {}): Promise<void> {
  const dir = dirname(path)
  const st = await lstat(path)
  await removeStaleTemps(path)
  const temp = join(dir, tempName(path, process.pid))
  let handle: FileHandle | undefined
  let renamed = false
  try {
    handle = await open(temp, 'wx', st.mode & 0o7777)
    await handle.writeFile(bytes)
    // The umask may have narrowed the mode `open` was given.
    await handle.chmod(st.mode & 0o7777)
    try {
      await handle.chown(st.uid, st.gid)
    } catch (err) {
      // Only root may give a file away; the owner is kept where permitted, as the issue asks.
      if (!isPermission(err)) throw err
    }
    await handle.sync()
    await handle.close()
    handle = undefined
    await hooks.beforeRename?.(temp)
    await rename(temp, path)
    renamed = true
    await syncFolder(dir)
  } finally {
    await handle?.close()
    // The failure that brought us here is the one to report; a temp file left behind is removed by the
    // next save (removeStaleTemps) once this process is gone.
    if (!renamed) await unlink(temp).catch(ignoreMissing)
  }
}

/**
 * Saves `text` over `path` if the file is still the one hashed `expectedHash` and `check` finds no
 * problem; the file is untouched otherwise. There is a moment between the hash check and the rename
 * in which a hand edit could land; it is the width of one write, and the next save's hash sees it.
 */
export async function saveConfig(
  path: string,
  expectedHash: string,
  text: string,
  check: CheckText,
  hooks: WriteHooks = {},
): Promise<SaveResult> {
  const current = await readWithHash(path)
  if (current.hash !== expectedHash) return { ok: false, code: 'CONFIG_CHANGED', hash: current.hash }
  const writable = await checkWritable(path)
  if (!writable.writable) return { ok: false, code: 'NOT_WRITABLE', reason: writable.reason! }
  const problems = await check(text)
  if (problems.length > 0) return { ok: false, code: 'CONFIG_REFUSED', problems }
  const bytes = Buffer.from(text, 'utf8')
  await writeAtomic(path, bytes, hooks)
  return { ok: true, hash: hashBytes(bytes), previous: current.bytes }
}

export interface Writability {
  writable: boolean
  reason?: string
}

/**
 * Whether the editor may write the file, found without changing it: a symbolic link (a Kubernetes
 * ConfigMap is one, and a rename would replace the link), a file of another user (the rename would
 * give it to this one), a read-only file or folder, a read-only mount (a probe file made and removed
 * in the folder says so). `uid` is the process's (a test names another).
 */
export async function checkWritable(path: string, uid = process.getuid?.()): Promise<Writability> {
  const no = (reason: string): Writability => ({ writable: false, reason })
  let st
  try {
    st = await lstat(path)
  } catch (err) {
    return no(`the file cannot be read: ${(err as Error).message}`)
  }
  if (st.isSymbolicLink())
    return no('the file is a symbolic link (as a ConfigMap mounts it): edit the file it points to, or its source')
  if (!st.isFile()) return no('the path is not a regular file')
  if (uid !== undefined && uid !== 0 && st.uid !== uid)
    return no(`the file belongs to another user (uid ${st.uid}); panelbridge runs as uid ${uid}`)
  // The mode bits too: root may write a file whose mode says read-only, and that mode is the owner's word.
  if ((st.mode & 0o222) === 0) return no('the file is read-only')
  try {
    await access(path, constants.W_OK)
  } catch {
    return no('the file is read-only')
  }
  const dir = dirname(path)
  try {
    if (((await lstat(dir)).mode & 0o222) === 0) throw new Error('read-only folder')
    await access(dir, constants.W_OK)
  } catch {
    return no(`the folder ${dir} is read-only: a save writes a new file beside the old one`)
  }
  const probe = join(dir, `.panelbridge-probe.${process.pid}.${randomBytes(6).toString('hex')}`)
  try {
    const handle = await open(probe, 'wx', 0o600)
    await handle.close()
    await unlink(probe)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EROFS') return no(`the folder ${dir} is on a read-only file system`)
    if (isPermission(err)) return no(`no file can be made in the folder ${dir}`)
    return no(`no file can be made in the folder ${dir}: ${(err as Error).message}`)
  }
  return { writable: true }
}
