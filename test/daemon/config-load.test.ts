/**
 * A reload reads and checks the config off the event loop (issue 24, item 3): the worker thread's
 * result is the loader's own (the config is plain data, whole after the copy), and a reload of a
 * 1,900-binding file (near the file's size bound) leaves the loop free (on the loop, the loader held it for seconds here).
 * The worker never draws a picture itself (issue 46): it asks the daemon's thread, whose drawing process
 * is killed when the reload stops.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ConfigLoadAborted, loadConfigOffLoop, loadInWorker } from '../../src/daemon/config-load.js'
import { INSTALLED } from '../../src/installed.js'
import { iconDataUrl } from '../../src/app-kit/simulator/png.js'
import { dataUrlBytes, PictureProcess } from '../../src/surfaces/render/picture.js'
import { until, running } from '../helpers/until.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { testDir } from '../helpers/files.js'

const REFERENCE = fileURLToPath(new URL('../../config/reference.yaml', import.meta.url))

/** A valid file of `count` bindings on one 8×8 web surface over 64 pages. */
function manyBindings(count: number): string {
  const pages = Array.from({ length: 64 }, (_, i) => `p${i}`)
  let text = `version: 1\napp: { url: http://127.0.0.1:0, simulate: true }\nlisten: { host: 127.0.0.1, port: 0 }\n`
  text += `surfaces:\n  desk: { driver: web, rows: 8, columns: 8 }\npages:\n  desk: [${pages.join(', ')}]\nbindings:\n`
  for (let n = 0; n < count; n++) {
    text += `  - on: desk/key:${n % 64}\n    page: p${Math.floor(n / 64)}\n    label: "T${n}"\n`
    text += `    press: { command: schedule, params: { action: cutin, title: "Title ${n}" } }\n`
  }
  return text
}

describe('the reload’s load in a worker thread', () => {
  it('gives what the loader gives on the main thread: the reference file whole', async () => {
    const text = await readFile(REFERENCE, 'utf8')
    const [off, on] = [await loadConfigOffLoop(REFERENCE), await loadConfigText(text, REFERENCE)]
    expect(off.config).toBeDefined()
    expect(off).toEqual(on)
  })

  it('gives every problem of a refused file, placed', async () => {
    const file = join(await testDir('config-load'), 'bad.yaml')
    const text = 'version: 1\nsurfaces:\n  desk: { driver: web, rows: 99, columns: 1 }\nbindings:\n  - on: nope/key:0\n'
    await writeFile(file, text)
    const off = await loadConfigOffLoop(file)
    expect(off.config).toBeUndefined()
    expect(off.problems.length).toBeGreaterThan(0)
    expect(off).toEqual(await loadConfigText(text, file))
  })

  it('a daemon’s reload of 1,900 bindings keeps its loop turning', async () => {
    const file = join(await testDir('config-load'), 'config.yaml')
    await writeFile(file, manyBindings(1))
    const prev = setLogSink(() => undefined)
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: 100_000 })
    onTestFinished(async () => {
      await daemon.stop()
      setLogSink(prev)
    })
    await writeFile(file, manyBindings(1900))
    const h = monitorEventLoopDelay({ resolution: 5 })
    h.enable()
    const started = performance.now()
    expect(await daemon.reload()).toBe(true)
    const took = performance.now() - started
    // One more turn of the sampler's timer, so that a stall at the reload's very end is counted too.
    await new Promise((resolve) => setTimeout(resolve, 20))
    h.disable()
    expect(daemon.controlState('desk', 'key:59')).toMatchObject({ label: 'T59' })
    // Against the reload's own length, measured in the same run (a busy machine stretches both): the loader
    // on the loop held it for nearly all of the reload; in its worker the loop turns throughout. The
    // stall's figure itself is `npm run bench config-reload`'s.
    expect(h.max / 1e6).toBeLessThan(took / 2)
  })

  it('a reload stopped while a picture draws ends, and its drawing process with it', async () => {
    const dir = await testDir('config-load')
    const file = join(dir, 'config.yaml')
    await writeFile(join(dir, 'key.png'), dataUrlBytes(iconDataUrl(8, 8, '#00ff00')))
    const text = `version: 1\napp: { url: http://127.0.0.1:0, simulate: true }\nlisten: { host: 127.0.0.1, port: 0 }\nsurfaces:\n  desk: { driver: web, rows: 1, columns: 1 }\nbindings:\n  - on: desk/key:0\n    image: key.png\n`
    // A drawing process that never answers stands for a rasteriser inside native code.
    const drawer = new PictureProcess({
      program: () => `process.send({ ready: true }); process.on('message', () => { for (;;) {} })`,
      drawMs: 600_000,
    })
    onTestFinished(() => drawer.close())
    const stop = new AbortController()
    const loaded = loadInWorker(text, file, stop.signal, INSTALLED, drawer.draw)
    await until('the worker’s picture handed to the drawing process', () => drawer.drawing)
    stop.abort()
    await expect(loaded).rejects.toThrow(ConfigLoadAborted)
    expect(drawer.drawing).toBe(false)
    await until('the drawing process gone', () => !running(drawer.started[0]!))
  })
})
