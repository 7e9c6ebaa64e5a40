/**
 * The loader's reading of each binding's `image:` (issue 26, item 3): the file, relative to the config
 * file's folder, read once per load (a reload reads it again) without ever blocking on what is at the
 * path (opened non-blocking, regular files only, bounded: MAX_PICTURE_BYTES each, PICTURE_BUDGET_BYTES
 * for all), recognised as PNG, JPEG or SVG and decoded to the pixels a key shows (`picture.ts`).
 *
 * A reload runs the loader in the config worker, so the reading and decoding are off the daemon's loop.
 * The pictures travel with the config (`picturesOf`): a property the structured clone keeps and JSON
 * leaves out (a Map), so the engine's identities of bindings and the API's config never carry pixels.
 *
 * `check` refuses a missing file or one that is not an image (an error at the `image:` value); the
 * daemon (`imageProblems: 'warning'`) starts anyway, warns, and the key shows its text and says why.
 */
import { dirname, resolve } from 'node:path'
import {
  decodePicture,
  type DecodeOptions,
  KeyPicture,
  MAX_PICTURE_BYTES,
  PICTURE_PROCESS,
  PictureError,
  PICTURE_STORE_SIDE,
  sniffPicture,
} from '../surfaces/render/picture.js'
import { readRegularFile } from '../read-regular.js'
import type { Problems, Severity } from './problems.js'
import type { Config } from './schema.js'

/**
 * The bytes of every picture file read by one load and their pixels, together. ASSUMED: 64 MiB, a
 * hundred-odd distinct 256-px pictures; a file past it is a problem like a missing one.
 */
const PICTURE_BUDGET_BYTES = 64 * 1024 * 1024
/**
 * The pixels all the raster pictures of one load may declare, decoded whole before they are scaled
 * down. ASSUMED: 32 Mpx, eight pictures of the largest side. Sixteen (64 Mpx) took most of the time all
 * pictures may take to draw on the smallest box (one core at half its time, `BENCH_BOX=small npm run
 * bench pictures`), so a reload of them finished with little to spare; eight leave room for a slower
 * box. A picture past it is a problem.
 */
const PICTURE_BUDGET_PIXELS = 32 * 1024 * 1024

/**
 * The time all the pictures of one load may take to draw, ms (each picture has its own bound as well,
 * `PICTURE_PROCESS.drawMs`). ASSUMED: 6 s, well below a reload's time limit, so that a file whose pictures
 * are slow still loads (the pictures past it refused, their keys saying why) rather than timing out.
 */
const PICTURE_BUDGET_DRAW_MS = 6000

/** What one load has left of its budgets. */
interface Budget {
  left: number
  pixels: number
  drawMs: number
}

/** A binding's picture file: its pixels, or why there are none (the key says it). */
export type FilePicture = { picture: KeyPicture } | { problem: string }

/** The pictures of a config, by the binding's `image` as written. */
export type ConfigPictures = Map<string, FilePicture>

type WithPictures = Config & { pictures?: ConfigPictures }

/** The pictures the loader read for this config (none when no binding has `image:`). */
export function picturesOf(config: Config): ConfigPictures | undefined {
  const pictures = (config as WithPictures).pictures
  return pictures instanceof Map ? pictures : undefined
}

/** Hands the pictures on with the config (see the header). */
export function attachPictures(config: Config, pictures: ConfigPictures): void {
  if (pictures.size > 0) (config as WithPictures).pictures = pictures
}

/** A file's bytes, at most MAX_PICTURE_BYTES, never blocking on a FIFO or device in its place. */
async function readPictureFile(path: string): Promise<Uint8Array> {
  const read = await readRegularFile(path, MAX_PICTURE_BYTES)
  if ('bytes' in read) return read.bytes
  if ('notRegular' in read) throw new PictureError('not a regular file')
  if ('tooLarge' in read) throw new PictureError(`larger than ${MAX_PICTURE_BYTES} bytes`)
  const { code } = read.error
  throw new PictureError(code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? read.error.message})`)
}

/** One picture file read and decoded, or why not; `budget` counts what the load has left. */
async function loadPicture(path: string, budget: Budget, decode: DecodeOptions): Promise<FilePicture> {
  try {
    if (budget.left <= 0) throw new PictureError(`past the ${PICTURE_BUDGET_BYTES} bytes all pictures may take`)
    if (budget.drawMs <= 0)
      throw new PictureError(`past the ${PICTURE_BUDGET_DRAW_MS} ms all pictures of a file may take to draw`)
    const bytes = await readPictureFile(path)
    budget.left -= bytes.byteLength
    const sniffed = sniffPicture(bytes)
    if (sniffed.kind !== 'svg') {
      const pixels = sniffed.width * sniffed.height
      if (pixels > budget.pixels)
        throw new PictureError(`past the ${PICTURE_BUDGET_PIXELS} pixels all pictures of a file may declare`)
      budget.pixels -= pixels
    }
    const started = performance.now()
    const left = budget.drawMs
    try {
      const bound = { ...decode, drawMs: Math.min(decode.drawMs ?? Infinity, left) }
      const picture = await decodePicture(bytes, { width: PICTURE_STORE_SIDE, height: PICTURE_STORE_SIDE }, bound)
      budget.left -= picture.rgba.byteLength
      return { picture }
    } catch (err) {
      // Stopped by what the load had left, not by the picture's own bound: the budget says why.
      if (err instanceof PictureError && /took longer than/.test(err.message) && left < PICTURE_PROCESS.drawMs)
        throw new PictureError(`past the ${PICTURE_BUDGET_DRAW_MS} ms all pictures of a file may take to draw`)
      throw err
    } finally {
      budget.drawMs -= performance.now() - started
    }
  } catch (err) {
    if (err instanceof PictureError) return { problem: err.message }
    return { problem: `cannot read the file (${err instanceof Error ? err.message : String(err)})` }
  }
}

/**
 * Reads the picture of every binding with `image:` (each file once), reporting each one that cannot be
 * had at its `image:` value with `severity`. `rawBindings` are the bindings as written (their index is
 * the problem's place); only a string `image` is read (the schema reports any other). `decode`: who
 * draws the pictures and what stops them.
 */
export async function checkImages(
  problems: Problems,
  rawBindings: readonly unknown[],
  configFile: string,
  severity: Severity,
  decode: DecodeOptions = {},
): Promise<ConfigPictures> {
  const pictures: ConfigPictures = new Map()
  const byPath = new Map<string, FilePicture>()
  const budget: Budget = { left: PICTURE_BUDGET_BYTES, pixels: PICTURE_BUDGET_PIXELS, drawMs: PICTURE_BUDGET_DRAW_MS }
  for (const [i, raw] of rawBindings.entries()) {
    const image = raw !== null && typeof raw === 'object' ? (raw as { image?: unknown }).image : undefined
    if (typeof image !== 'string' || image === '' || image.length > 4096) continue
    const path = resolve(dirname(configFile), image)
    let got = byPath.get(path)
    if (!got) byPath.set(path, (got = await loadPicture(path, budget, decode)))
    pictures.set(image, got)
    if ('problem' in got) problems.add(['bindings', i, 'image'], severity, `image ${image}: ${got.problem}`)
  }
  return pictures
}
