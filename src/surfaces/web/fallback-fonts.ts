/**
 * The fallback key fonts for the page (emoji, CJK): served at their routes (`FALLBACK_FONTS` in
 * `../../face/key-paint.ts`) from the files Debian installs (`fallbackFontFile` in `../render/fonts.ts`),
 * so the page draws a label DejaVu lacks as the hardware keys do. The page asks for one only when a
 * label needs it (`FontFace` with its `unicode-range`, see `src/page/keys.ts`).
 *
 * The files are large (Noto Sans CJK Bold is a 20 MB collection, Noto Color Emoji 11 MB), so each is
 * streamed from disk, never held: what a request costs is a read buffer. Bounded: a file past
 * `MAX_FALLBACK_FONT_BYTES` is not served (it is not the font we know), at most
 * `MAX_FALLBACK_FONT_STREAMS` are sent at once (a browser asks once per page load and caches the file
 * for a day, as it does the key font), and a client that goes away ends its stream. A font that is
 * not installed is a 404: the page then draws those characters as the browser can.
 */
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { pipeline } from 'node:stream/promises'
import { createLogger } from '../../log.js'
import { fallbackFontFile } from '../render/fonts.js'
import { FALLBACK_FONTS, type FallbackFont } from '../../face/key-paint.js'

const log = createLogger('web')

/** Larger than any fallback font Debian ships (Noto Sans CJK Bold, 20 MB) with room to grow. */
export const MAX_FALLBACK_FONT_BYTES = 64 * 1024 * 1024
/** Fallback font files being sent at once; past this a request is asked to come back (503). */
const MAX_FALLBACK_FONT_STREAMS = 4
/** As the key font: a browser may keep the file for a day. */
export const FALLBACK_FONT_CACHE_CONTROL = 'public, max-age=86400'

/** The fallback font served at `route` (its path under the server's base path), if any. */
export function fallbackFontAt(route: string): FallbackFont | undefined {
  return FALLBACK_FONTS.find((f) => f.route === route)
}

/** The media type of a font file by its route's extension (a collection is `font/collection`). */
export function fallbackFontType(font: FallbackFont): string {
  return font.route.endsWith('.ttc') ? 'font/collection' : font.route.endsWith('.otf') ? 'font/otf' : 'font/ttf'
}

function plain(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  })
  res.end(body)
}

/** Serves fallback font files: one per server, which counts the streams it has open. */
export class FallbackFontFiles {
  private streams = 0

  constructor(
    /** Where each font's file is (tests give their own); undefined when it is not installed. */
    private readonly fileOf: (font: FallbackFont) => string | undefined = (font) => fallbackFontFile(font.id),
    private readonly limits = { maxBytes: MAX_FALLBACK_FONT_BYTES, maxStreams: MAX_FALLBACK_FONT_STREAMS },
  ) {}

  /** How many files are being sent now. */
  get open(): number {
    return this.streams
  }

  /** Replies with `font`'s file, streamed; 404 when it is not installed, 503 when too many are being sent. */
  serve(res: ServerResponse, head: boolean, font: FallbackFont): void {
    const path = this.fileOf(font)
    if (path === undefined) {
      plain(res, 404, `${font.id} font not installed\n`)
      return
    }
    if (this.streams >= this.limits.maxStreams) {
      plain(res, 503, 'busy: try again\n', { 'retry-after': '1' })
      return
    }
    this.streams++
    this.send(res, head, font, path).then(
      () => this.streams--,
      (err: unknown) => {
        this.streams--
        // A browser that leaves mid-file is no fault; a file that cannot be read is one, logged once.
        if (res.destroyed && res.headersSent) return
        log.once(`fallback-font-${font.id}`, 'error', `cannot serve the ${font.id} key font`, { err, path })
        if (!res.headersSent) plain(res, 500, `${font.id} font unavailable\n`)
        else res.destroy()
      },
    )
  }

  private async send(res: ServerResponse, head: boolean, font: FallbackFont, path: string): Promise<void> {
    const type = fallbackFontType(font)
    if (!(await sendFontFile(res, head, path, type, this.limits.maxBytes))) {
      log.once(`fallback-font-size-${font.id}`, 'warn', `the ${font.id} key font file is not served`, {
        path,
        maxBytes: this.limits.maxBytes,
      })
      plain(res, 404, `${font.id} font not served\n`)
    }
  }
}

/**
 * Sends the font file at `path` streamed from disk with back-pressure (read as the socket drains, so a
 * request costs a read buffer, never the file); resolves false, sending nothing, when it is not a
 * regular file of at most `maxBytes`. The key font is sent this way too.
 */
export async function sendFontFile(
  res: ServerResponse,
  head: boolean,
  path: string,
  type: string,
  maxBytes: number,
): Promise<boolean> {
  const file = await open(path, 'r')
  try {
    const { size, isFile } = await file.stat().then((s) => ({ size: s.size, isFile: s.isFile() }))
    if (!isFile || size > maxBytes) return false
    res.writeHead(200, {
      'content-type': type,
      'content-length': size,
      'cache-control': FALLBACK_FONT_CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    if (head || size === 0) {
      res.end()
      return true
    }
    // Exactly the size announced, even if the file grows meanwhile.
    const stream = createReadStream('', { fd: file, autoClose: false, start: 0, end: Math.max(0, size - 1) })
    await pipeline(stream, res)
    return true
  } finally {
    await file.close()
  }
}
