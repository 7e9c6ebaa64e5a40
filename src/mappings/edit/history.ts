/**
 * The last saves of the mapping file, kept in the daemon's state folder (never beside the config, where
 * they would be read as configs, committed, or lost with a ConfigMap), so the editor can undo the last
 * save. Each save keeps the bytes it replaced and the hash it wrote; undo puts those bytes back only
 * while the file is still the one that save wrote.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { hashBytes, saveConfig, writeAtomic, type CheckText, type SaveResult, type WriteHooks } from './save.js'
import { CONFIG_LIMITS } from '../limits.js'

/** One save: the bytes it replaced are `<seq>.yaml`, this is `<seq>.json`. */
interface Entry {
  /** The hash of the bytes the save wrote. */
  wrote: string
  /** The hash of the bytes it replaced. */
  replaced: string
  at: string
}

export type UndoResult =
  | { ok: true; hash: string }
  | { ok: false; code: 'CONFIG_CHANGED'; hash: string }
  | { ok: false; code: 'NOTHING_TO_UNDO' }

export class EditHistory {
  /**
   * @param configPath the mapping file
   * @param folder where its versions are kept (in the state folder); refused when it is the config's
   *   own folder or inside it
   */
  constructor(
    readonly configPath: string,
    readonly folder: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    const rel = relative(resolve(dirname(configPath)), resolve(folder))
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)))
      throw new Error(`the edit history ${folder} must not be in the config's folder ${dirname(configPath)}`)
  }

  /** The kept entries' numbers, oldest first. */
  private async numbers(): Promise<number[]> {
    let names: string[]
    try {
      names = await readdir(this.folder)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
    return names
      .map((n) => /^(\d{6})\.json$/.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b)
  }

  private name(n: number, ext: 'json' | 'yaml'): string {
    return join(this.folder, `${String(n).padStart(6, '0')}.${ext}`)
  }

  /** Keeps a save: the bytes it replaced and the hash it wrote; the oldest beyond CONFIG_LIMITS.historyVersions go. */
  async record(replaced: Uint8Array, wrote: string): Promise<void> {
    await mkdir(this.folder, { recursive: true, mode: 0o750 })
    const numbers = await this.numbers()
    const next = (numbers.at(-1) ?? 0) + 1
    const entry: Entry = { wrote, replaced: hashBytes(replaced), at: this.now().toISOString() }
    await writeFile(this.name(next, 'yaml'), replaced, { mode: 0o640 })
    await writeFile(this.name(next, 'json'), `${JSON.stringify(entry)}\n`, { mode: 0o640 })
    for (const old of [...numbers, next].slice(0, -CONFIG_LIMITS.historyVersions)) await this.remove(old)
  }

  private async remove(n: number): Promise<void> {
    await rm(this.name(n, 'json'), { force: true })
    await rm(this.name(n, 'yaml'), { force: true })
  }

  /** How many saves can be undone. */
  async size(): Promise<number> {
    return (await this.numbers()).length
  }

  /** Saves as `saveConfig` does, and keeps the version it replaced. */
  async save(expectedHash: string, text: string, check: CheckText, hooks: WriteHooks = {}): Promise<SaveResult> {
    const result = await saveConfig(this.configPath, expectedHash, text, check, hooks)
    if (result.ok) await this.record(result.previous, result.hash)
    return result
  }

  /**
   * Undoes the last save: its replaced bytes written back exactly, if the file is still the one it
   * wrote (`expectedHash`, the hash the editor shows, must be that too).
   */
  async undo(expectedHash: string, hooks: WriteHooks = {}): Promise<UndoResult> {
    const last = (await this.numbers()).at(-1)
    if (last === undefined) return { ok: false, code: 'NOTHING_TO_UNDO' }
    const entry = JSON.parse(await readFile(this.name(last, 'json'), 'utf8')) as Entry
    const current = hashBytes(await readFile(this.configPath))
    if (current !== expectedHash || current !== entry.wrote) return { ok: false, code: 'CONFIG_CHANGED', hash: current }
    const bytes = await readFile(this.name(last, 'yaml'))
    if (hashBytes(bytes) !== entry.replaced) throw new Error(`the kept version ${this.name(last, 'yaml')} is damaged`)
    await writeAtomic(this.configPath, bytes, hooks)
    await this.remove(last)
    return { ok: true, hash: entry.replaced }
  }
}
