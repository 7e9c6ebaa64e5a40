/**
 * The drawing process (issue 46, item 1): pictures are drawn in a child process that is killed when a
 * picture overruns its bound, when whoever asked stops it, and that never keeps this process alive while
 * idle. A program that never answers a job stands for a rasteriser inside native code (SIGKILL ends it
 * whatever it runs); a test that is about the bound itself sets a short one (the program never answers,
 * so the bound decides, not the machine's speed).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  dataUrlBytes,
  decodePicture,
  DrawError,
  PictureError,
  PictureProcess,
} from '../../../src/surfaces/render/picture.js'
import { iconDataUrl } from '../../../src/app-kit/simulator/png.js'
import { until, running } from '../../helpers/until.js'

/** A child that says it is ready and then never answers: a draw that never returns. */
const STUCK = (): string => `process.send({ ready: true }); process.on('message', () => { for (;;) {} })`

function stuckProcess(drawMs = 60_000): PictureProcess {
  const p = new PictureProcess({ program: STUCK, drawMs })
  onTestFinished(() => p.close())
  return p
}

describe('the drawing process', () => {
  it('draws a picture in a child process and gives its pixels', async () => {
    const p = new PictureProcess()
    onTestFinished(() => p.close())
    const picture = await decodePicture(
      dataUrlBytes(iconDataUrl(16, 16, '#ff0000')),
      { width: 16, height: 16 },
      { draw: p.draw },
    )
    expect([picture.width, picture.height]).toEqual([16, 16])
    expect([...picture.rgba.subarray(0, 4)]).toEqual([255, 0, 0, 255])
    expect(p.started).toHaveLength(1)
    expect(p.started[0]).not.toBe(process.pid)
  })

  it('kills a draw that overruns its bound: refused, and its process gone', async () => {
    const p = stuckProcess(200)
    const drawn = p.draw(new Uint8Array([1]), { width: 1, height: 1 })
    await expect(drawn).rejects.toThrow(new DrawError('took longer than 200 ms to draw'))
    expect(p.started).toHaveLength(1)
    await until('the stuck process gone', () => !running(p.started[0]!))
  })

  it('kills the draw when its signal aborts, and the next picture gets a process of its own', async () => {
    const p = stuckProcess()
    const stop = new AbortController()
    const drawn = p.draw(new Uint8Array([1]), { width: 1, height: 1 }, stop.signal)
    await until('the picture handed to the process', () => p.drawing)
    // Queued behind the first: it starts in a new process once the first is killed.
    const next = p.draw(new Uint8Array([2]), { width: 1, height: 1 })
    stop.abort()
    await expect(drawn).rejects.toThrow('was not drawn (stopped)')
    await until('the first process gone', () => !running(p.started[0]!))
    await until('a second process for the next picture', () => p.started.length === 2)
    p.close()
    await expect(next).rejects.toThrow('was not drawn (stopped)')
    await until('the second process gone', () => !running(p.started[1]!))
  })

  it('a picture asked for while an idle process is on its way out goes to a new process', async () => {
    // A child that answers every job, and on losing its channel marks a file and lingers until this test
    // kills it: the window between the idle disconnect and its exit, held open.
    const dir = mkdtempSync(join(tmpdir(), 'pb-picture-'))
    const marker = join(dir, 'disconnected')
    const lingering = (): string => `
const fs = require('node:fs')
process.on('disconnect', () => { fs.writeFileSync(${JSON.stringify(marker)}, 'x'); setInterval(() => undefined, 1 << 30) })
process.on('message', (job) => process.send({ id: job.id, rgba: new Uint8Array(job.width * job.height * 4).fill(7) }))
process.send({ ready: true })
`
    const p = new PictureProcess({ program: lingering, idleMs: 20 })
    onTestFinished(() => {
      p.close()
      for (const pid of p.started) if (running(pid)) process.kill(pid, 'SIGKILL')
      rmSync(dir, { recursive: true, force: true })
    })
    expect([...(await p.draw(new Uint8Array([1]), { width: 1, height: 1 }))]).toEqual([7, 7, 7, 7])
    await until('the idle process let go of', () => existsSync(marker))
    expect(running(p.started[0]!)).toBe(true)
    expect([...(await p.draw(new Uint8Array([2]), { width: 1, height: 1 }))]).toEqual([7, 7, 7, 7])
    expect(p.started).toHaveLength(2)
  })

  it('refuses a picture whose drawing overran as a PictureError, in the sentence of its kind', async () => {
    const p = stuckProcess(100)
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="4" height="4"/></svg>',
    )
    await expect(decodePicture(svg, { width: 8, height: 8 }, { draw: p.draw })).rejects.toThrow(
      new PictureError('the SVG took longer than 100 ms to draw'),
    )
  })
})
