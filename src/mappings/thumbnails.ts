/**
 * Titles' own thumbnails for `feedback: { title: NAME, thumbnail: true }` (issue 26, item 3): the icon
 * the application draws of each title, asked with `getTitleControlInfo` and `icon`, `width`, `height`
 * (protocol notes 4.2; NewBlue's module S1 asks `{icon: 1, width: 72, height: 72}` and reads each
 * title's `image`, a PNG data URL), at the size of the key that shows it.
 *
 * - One call answers every title at one size, so a refresh is one call per key size in use.
 * - Refreshed after a followed title's data changes, at most once a THUMBNAIL_TUNABLES.refreshDebounceMs (a title whose
 *   data changes without pause is refreshed once a period, not never), after a resynchronisation, and
 *   when the mapping asks for a new title or size. Nothing is asked while the link is down.
 * - Low priority: one call at a time, never within THUMBNAIL_TUNABLES.inputQuietMs of an input (a press and its
 *   command go first), with a time-out of its own; the command client has more connections than one.
 * - Kept in an LRU bounded in bytes (THUMBNAIL_TUNABLES.cacheBytes); a thumbnail that cannot be had says why.
 */
import { createHash } from 'node:crypto'
import type { AppState, TitleChanges } from '../api/app-state.js'
import { AppError, CommandError } from '../api/errors.js'
import type { Logger } from '../log.js'
import { LruMap } from '../lru.js'
import { dataUrlBytes, decodePicture, KeyPicture, PictureError, type Box } from '../surfaces/render/picture.js'
import type { Binding } from './schema.js'
import type { CommandPort } from './sender.js'

/** When and how big the titles' thumbnails are fetched. */
export const THUMBNAIL_TUNABLES = {
  /** ASSUMED: NewBlue's module debounces its refresh after a registry change by 1000 ms (protocol notes 5.9). */
  refreshDebounceMs: 1000,
  /** ASSUMED: an input in the last 300 ms holds a thumbnail call back (a press's command goes first). */
  inputQuietMs: 300,
  /** ASSUMED: 8 MiB, over 200 thumbnails of a 96-px key. */
  cacheBytes: 8 * 1024 * 1024,
  /** ASSUMED: a title list with icons takes longer than one command; 5 s, not the client's 2 s. */
  timeoutMs: 5000,
  /** The size asked for when the key's is not known (its surface not open): S1's 72×72. */
  defaultBox: { width: 72, height: 72 },
} as const

export interface ThumbnailOptions {
  client: CommandPort
  state: AppState
  /** Called when a thumbnail (or why there is none) changed: the keys that show one redraw. */
  changed: () => void
  /** The image size of the control `on` (`surface/control`) when known. */
  keySize?: (on: string) => Box | undefined
  debounceMs?: number
  quietMs?: number
  cacheBytes?: number
  log?: Logger
}

/** What a thumbnail key shows: the picture, or why it has none (nothing while the first call runs). */
export type ThumbnailLook = { picture: KeyPicture } | { why: string } | undefined

/** Reasons kept for thumbnails that could not be had, at most (cleared past it at the next mapping). */
const MAX_REASONS = 4096

const sizeKey = (b: Box): string => `${b.width}x${b.height}`

export class Thumbnails {
  private readonly cache: LruMap<string, KeyPicture>
  /** Why the last call for a title at a size gave no picture, by cache key. */
  private readonly failed = new Map<string, string>()
  /** The digest of the data URL each kept thumbnail was decoded from: an unchanged one is not decoded again. */
  private readonly sources = new Map<string, string>()
  /** The title names followed with a thumbnail, and the sizes each is shown at. */
  private wanted = new Map<string, Set<string>>()
  /** Sizes to ask for again. */
  private readonly dirty = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private running = false
  private lastInput = -Infinity
  private stopped = false
  /** Stops a thumbnail drawing when these thumbnails stop (the drawing process killed if it draws one). */
  private readonly stopping = new AbortController()
  private readonly detach: () => void

  constructor(private readonly o: ThumbnailOptions) {
    const cacheBytes = o.cacheBytes ?? THUMBNAIL_TUNABLES.cacheBytes
    this.cache = new LruMap(4096, { maxWeight: cacheBytes, weigh: (p) => p.rgba.byteLength })
    const onTitle = (change: { id: string; changes: TitleChanges }): void => {
      if (change.changes.variables !== undefined) this.titleChanged(change.id)
    }
    const onReset = (): void => this.markAll(0)
    o.state.on('title', onTitle)
    o.state.on('titlesReset', onReset)
    o.state.on('link', onReset)
    this.detach = () => {
      o.state.off('title', onTitle)
      o.state.off('titlesReset', onReset)
      o.state.off('link', onReset)
    }
  }

  /** The bindings of the mapping in force: what to follow, at which sizes. New ones are asked for soon. */
  want(bindings: readonly Binding[]): void {
    const next = new Map<string, Set<string>>()
    for (const b of bindings) {
      const title = b.feedback?.thumbnail === true ? b.feedback.title : undefined
      if (title === undefined) continue
      const size = sizeKey(this.o.keySize?.(b.on) ?? THUMBNAIL_TUNABLES.defaultBox)
      let sizes = next.get(title)
      if (!sizes) next.set(title, (sizes = new Set()))
      sizes.add(size)
      if (!this.wanted.get(title)?.has(size)) this.dirty.add(size)
    }
    this.wanted = next
    // Reasons are kept for the titles followed now (a title list that churns would grow it otherwise).
    if (this.failed.size > MAX_REASONS) this.failed.clear()
    if (this.sources.size > MAX_REASONS) this.sources.clear()
    if (this.dirty.size > 0) this.schedule(0)
  }

  /** What a binding's key shows of its title's thumbnail. */
  lookOf(binding: Binding): ThumbnailLook {
    const name = binding.feedback?.title
    if (name === undefined || binding.feedback?.thumbnail !== true) return undefined
    const title = this.o.state.findTitle(name)
    if (!title) return undefined // computeFeedback says "no such title"
    const size = sizeKey(this.o.keySize?.(binding.on) ?? THUMBNAIL_TUNABLES.defaultBox)
    const sizes = this.wanted.get(name)
    if (sizes && !sizes.has(size)) {
      // The key's size became known (its surface opened) after the mapping was applied: asked for now.
      sizes.add(size)
      this.dirty.add(size)
      this.schedule(0)
    }
    const key = `${title.id}@${size}`
    const picture = this.cache.get(key)
    if (picture) return { picture }
    const why = this.failed.get(key)
    return why !== undefined ? { why } : undefined
  }

  /** An input reached the engine: thumbnail calls wait THUMBNAIL_TUNABLES.inputQuietMs. */
  noteInput(): void {
    this.lastInput = Date.now()
  }

  /** Bytes of thumbnails kept (the cache's weight). */
  get cachedBytes(): number {
    return this.cache.totalWeight
  }

  stop(): void {
    this.stopped = true
    this.stopping.abort()
    this.detach()
    clearTimeout(this.timer)
  }

  private titleChanged(id: string): void {
    for (const [name, sizes] of this.wanted) {
      if (this.o.state.findTitle(name)?.id !== id) continue
      for (const s of sizes) this.dirty.add(s)
      this.schedule(this.o.debounceMs ?? THUMBNAIL_TUNABLES.refreshDebounceMs)
    }
  }

  private markAll(delay: number): void {
    for (const sizes of this.wanted.values()) for (const s of sizes) this.dirty.add(s)
    if (this.dirty.size > 0) this.schedule(delay)
  }

  /** A run in `ms` unless one is due already (changes coming without pause still refresh once a period). */
  private schedule(ms: number): void {
    if (this.stopped || this.timer !== undefined) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.run()
    }, ms)
  }

  /** Asks for each dirty size in turn, one call at a time, after the inputs have been quiet. */
  private async run(): Promise<void> {
    if (this.running || this.stopped || this.dirty.size === 0) return
    if (this.o.state.link.status !== 'connected') return // asked again at the next resync
    const wait = this.lastInput + (this.o.quietMs ?? THUMBNAIL_TUNABLES.inputQuietMs) - Date.now()
    if (wait > 0) return this.schedule(wait)
    this.running = true
    try {
      const size = this.dirty.values().next().value as string
      this.dirty.delete(size)
      await this.fetch(size)
    } finally {
      this.running = false
    }
    if (!this.stopped) this.o.changed()
    if (this.dirty.size > 0) this.schedule(0)
  }

  /** One `getTitleControlInfo` at `size`: the followed titles' pictures, or why each has none. */
  private async fetch(size: string): Promise<void> {
    const [width, height] = size.split('x').map(Number) as [number, number]
    const titles = [...this.wanted].filter(([, s]) => s.has(size)).map(([name]) => this.o.state.findTitle(name))
    const keys = titles.flatMap((t) => (t ? [{ id: t.id, name: t.name, key: `${t.id}@${size}` }] : []))
    let items: unknown[]
    try {
      const r = await this.o.client.callByName(
        'getTitleControlInfo',
        { icon: true, width, height },
        { timeoutMs: THUMBNAIL_TUNABLES.timeoutMs },
      )
      items = Array.isArray(r.raw.titles) ? (r.raw.titles as unknown[]) : []
    } catch (err) {
      const why = `thumbnail: ${callFailure(err)}`
      for (const k of keys) if (!this.cache.get(k.key)) this.failed.set(k.key, why)
      this.o.log?.debug('thumbnails not read', { size, error: why })
      return
    }
    for (const k of keys) {
      const item = items.find((x) => isTitle(x) && x.id === k.id) ?? items.find((x) => isTitle(x) && x.name === k.name)
      await this.keep(k.key, isTitle(item) ? item.image : undefined, { width, height })
    }
  }

  /** Decodes one title's image into the cache, or records why it cannot be had. */
  private async keep(key: string, image: unknown, box: Box): Promise<void> {
    try {
      if (typeof image !== 'string' || image === '') throw new PictureError('the application sent none')
      // Most refreshes follow another title's data: this one's icon is then the same text as before.
      const source = createHash('sha1').update(image).digest('hex')
      if (this.sources.get(key) === source && this.cache.get(key)) return
      // Drawn in the drawing process: off the loop, bounded in time (`picture.ts`).
      const picture = await decodePicture(dataUrlBytes(image), box, { signal: this.stopping.signal })
      this.cache.set(key, picture)
      this.sources.set(key, source)
      this.failed.delete(key)
    } catch (err) {
      if (this.stopped) return
      this.cache.delete(key)
      this.sources.delete(key)
      this.failed.set(key, `thumbnail: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
}

/** A failed call in a key's few words: the application's own, else what went wrong on the way. */
function callFailure(err: unknown): string {
  if (err instanceof AppError) return err.appMessage
  if (err instanceof CommandError) return CALL_FAILURES[err.code] ?? err.message
  return err instanceof Error ? err.message : String(err)
}

const CALL_FAILURES: Partial<Record<CommandError['code'], string>> = {
  CONNECTION_REFUSED: 'application not reachable',
  TIMEOUT: 'no reply in time',
  REPLY_TOO_LARGE: 'the reply was too large',
  NETWORK: 'network error',
}

function isTitle(x: unknown): x is { id?: unknown; name?: unknown; image?: unknown } {
  return x !== null && typeof x === 'object'
}
