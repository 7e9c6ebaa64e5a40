/**
 * `npm run bench pictures` (issue 46, item 1): what pictures cost the daemon, on this machine.
 *
 * Rows (wall time, median of RUNS, and whether a reload finished within RELOAD_TIMEOUT_MS):
 * - reload adding 64 distinct 4096² PNGs, on each box `BENCH_BOX` asks for (`small-box.ts`: two cores,
 *   the smallest box, or both): the daemon in a process of its own (`own-daemon.ts`, no hardware, the
 *   simulator, its reload bound the real one), reloaded by SIGHUP, reloads a file whose 64 keys each
 *   have their own 4096×4096 PNG (about 75 KB each: one picture, each file made distinct by a text
 *   chunk of its own). Above the side a picture may declare, each is refused from its header and the
 *   reload ends at once. The row says how many pictures were drawn (the rest refused, each key saying why).
 * - reload adding 64 distinct 2048² PNGs: the largest side allowed; eight fit the pixels one file's
 *   pictures may declare and are drawn (in the drawing process, `picture.ts`), the rest refused.
 *   This is the most drawing one reload does.
 * - one 4096² PNG through the rasteriser: what each of the 64 cost before the side was lowered (the
 *   reload decoded them one after another: 64 times this).
 * - check of the SVG <use> bomb: `loadConfigFile` of a file whose key's image is the bomb (refused).
 * - the bomb as a thumbnail: `decodePicture` of it (refused), with the event loop's longest stall.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { RELOAD_TIMEOUT_MS } from '../src/daemon/reload.js'
import { setLogSink } from '../src/log.js'
import { loadConfigFile } from '../src/mappings/load.js'
import { decodePicture, PictureError } from '../src/surfaces/render/picture.js'
import { useBomb } from '../test/helpers/svg-bomb.js'
import { ownKind, startOwnDaemon } from './own-daemon.js'
import { benchBoxes } from './small-box.js'
import { median } from './stats.js'

const RUNS = process.env.BENCH_QUICK === '1' ? 1 : 3
const PICTURES = 64

const require = createRequire(import.meta.url)

/** A PNG of `side` pixels a side, mostly one colour (a small file, a large picture). */
function bigPng(side: number): Buffer {
  const { createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')
  const canvas = createCanvas(side, side)
  const ctx = canvas.getContext('2d')
  ctx.fillStyle = '#123456'
  ctx.fillRect(0, 0, side, side)
  ctx.fillStyle = '#abcdef'
  ctx.fillRect(side / 8, side / 8, side / 2, (side * 3) / 4)
  return canvas.encodeSync('png')
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32(bytes: Buffer): number {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

/** `png` with a tEXt chunk saying `n` after its header: a distinct file of the same picture. */
function distinct(png: Buffer, n: number): Buffer {
  const body = Buffer.from(`Comment\0picture ${n}`, 'latin1')
  const typeAndBody = Buffer.concat([Buffer.from('tEXt', 'latin1'), body])
  const chunk = Buffer.alloc(12 + body.length)
  chunk.writeUInt32BE(body.length, 0)
  typeAndBody.copy(chunk, 4)
  chunk.writeUInt32BE(crc32(typeAndBody), 8 + body.length)
  const afterHeader = 8 + 25 // the signature, then IHDR (length, type, 13 bytes, CRC)
  return Buffer.concat([png.subarray(0, afterHeader), chunk, png.subarray(afterHeader)])
}

function configText(images: number): string {
  const lines = [
    'version: 1',
    'app: { url: http://127.0.0.1:0, simulate: true }',
    'listen: { host: 127.0.0.1, port: 0 }',
    'surfaces:',
    '  desk: { driver: web, rows: 8, columns: 8 }',
    'bindings:',
  ]
  if (images === 0) lines.push('  - on: desk/key:0', '    label: "K"')
  for (let i = 0; i < images; i++) lines.push(`  - on: desk/key:${i}`, `    label: "K${i}"`, `    image: p${i}.png`)
  return `${lines.join('\n')}\n`
}

/** How many of the keys show their picture: a key without one says why in its detail (`withPicture`). */
async function picturesShown(base: string): Promise<number> {
  const states = await Promise.all(
    Array.from({ length: PICTURES }, (_, i) =>
      fetch(new URL(`api/surfaces/desk/controls/key:${i}`, base)).then((r) => r.json() as Promise<{ detail?: string }>),
    ),
  )
  return states.filter((s) => s.detail === undefined).length
}

async function timed(work: () => Promise<unknown>): Promise<{ ms: number; loopMaxMs: number; result: unknown }> {
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  const t0 = performance.now()
  const result = await work()
  const ms = performance.now() - t0
  await new Promise((resolve) => setTimeout(resolve, 20))
  h.disable()
  return { ms, loopMaxMs: h.max / 1e6, result }
}

export default async function bench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-bench-pictures-'))
  const file = join(dir, 'config.yaml')
  const restore = setLogSink(() => undefined)
  const rows: string[] = []
  try {
    const png = new Map([4096, 2048].map((side) => [side, bigPng(side)]))
    for (const box of benchBoxes()) {
      for (const side of [4096, 2048]) {
        for (let i = 0; i < PICTURES; i++) await writeFile(join(dir, `p${i}.png`), distinct(png.get(side)!, i))
        await writeFile(file, configText(0))
        // The real reload bound: the row is whether the reload ends within it.
        const own = await startOwnDaemon(file, dir, undefined, box, RELOAD_TIMEOUT_MS)
        const ms: number[] = []
        const ok: string[] = []
        const drawn: number[] = []
        try {
          for (let r = 0; r < RUNS; r++) {
            await writeFile(file, configText(PICTURES))
            const run = await timed(() =>
              own.reload().then(
                () => 'yes',
                () => 'no',
              ),
            )
            ms.push(run.ms)
            ok.push(run.result as string)
            drawn.push(run.result === 'yes' ? await picturesShown(own.base) : 0)
            await writeFile(file, configText(0))
            await own.reload()
          }
        } finally {
          await own.stop()
        }
        rows.push(
          `reload adding ${PICTURES} distinct ${side}² PNGs (${(png.get(side)!.length / 1024).toFixed(0)} KB each), ` +
            `${box.name} (${box.how}) | ${median(ms).toFixed(0)} ms (max ${Math.max(...ms).toFixed(0)}) | ` +
            `finished within ${RELOAD_TIMEOUT_MS} ms: ${ok.every((o) => o === 'yes') ? 'yes' : `no (${ok.join(', ')})`}, ` +
            `pictures drawn ${median(drawn)} of ${PICTURES}`,
        )
      }
    }
    // What one 4096² picture cost the rasteriser before the side was lowered (decoded at 2048, then 4096).
    const { loadImage } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')
    const png4096 = bigPng(4096)
    const one: number[] = []
    for (let r = 0; r < RUNS; r++) one.push((await timed(() => loadImage(png4096))).ms)
    rows.push(
      `one 4096² PNG through the rasteriser | ${median(one).toFixed(0)} ms ` +
        `(× ${PICTURES} = ${((median(one) * PICTURES) / 1000).toFixed(1)} s, against the reload's ${RELOAD_TIMEOUT_MS / 1000} s)`,
    )
    const bomb = useBomb(7, 10)
    await writeFile(join(dir, 'bomb.svg'), bomb)
    await writeFile(file, configText(0).replace('label: "K"', 'image: bomb.svg'))
    const check: number[] = []
    for (let r = 0; r < RUNS; r++) check.push((await timed(() => loadConfigFile(file))).ms)
    const refused = (await loadConfigFile(file)).problems.map((p) => p.message).join('; ')
    rows.push(`check of the SVG <use> bomb (${bomb.length} B) | ${median(check).toFixed(0)} ms | ${refused}`)
    const thumb: { ms: number; loopMaxMs: number }[] = []
    for (let r = 0; r < RUNS; r++) {
      thumb.push(
        await timed(() =>
          decodePicture(Buffer.from(bomb), { width: 72, height: 72 }).then(
            () => 'decoded',
            (err: unknown) => (err instanceof PictureError ? 'refused' : String(err)),
          ),
        ),
      )
    }
    rows.push(
      `the bomb as a thumbnail | ${median(thumb.map((t) => t.ms)).toFixed(1)} ms | ` +
        `loop stall max ${median(thumb.map((t) => t.loopMaxMs)).toFixed(0)} ms (target < 50)`,
    )
  } finally {
    setLogSink(restore)
    await rm(dir, { recursive: true, force: true })
  }
  console.log(`the daemon's own process: ${ownKind()}`)
  console.log(`row | wall (median of ${RUNS}) | notes`)
  for (const row of rows) console.log(row)
}
