/**
 * Issue 22, item 14: the web surface serves the fallback key fonts (emoji, CJK) from the files Debian
 * installs, streamed, bounded (size, streams at once) and cached as the key font is.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { get, request, type IncomingMessage, createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { fallbackFontFile } from '../../../src/surfaces/render/fonts.js'
import { FALLBACK_FONTS, type FallbackFont } from '../../../src/face/key-paint.js'
import {
  FALLBACK_FONT_CACHE_CONTROL,
  fallbackFontAt,
  FallbackFontFiles,
  fallbackFontType,
} from '../../../src/surfaces/web/fallback-fonts.js'
import { WebSurfaceServer } from '../../../src/surfaces/web/server.js'
import { WebSurface } from '../../../src/surfaces/web/web-surface.js'

interface Reply {
  status: number
  headers: IncomingMessage['headers']
  body: Buffer
}

function fetchRaw(url: string, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

const cjk = FALLBACK_FONTS.find((f) => f.id === 'cjk')!
const emoji = FALLBACK_FONTS.find((f) => f.id === 'emoji')!

describe('the web surface serves the fallback key fonts', () => {
  async function start(): Promise<string> {
    const desk = new WebSurface({ id: 'desk', rows: 1, columns: 2 })
    const server = new WebSurfaceServer({ surfaces: [desk] })
    const url = await server.listen({ port: 0 })
    onTestFinished(async () => {
      await server.close()
      await desk.close()
    })
    return url.replace(/\/$/, '')
  }

  it('the CJK collection and the emoji font, whole, with their type and the key font’s cache headers', async () => {
    const base = await start()
    for (const font of [cjk, emoji]) {
      const path = fallbackFontFile(font.id)
      // ensure-system-deps installs both packages: a missing one is a failure here, never a skip.
      expect(path, `${font.id} font installed`).toBeDefined()
      const reply = await fetchRaw(`${base}${font.route}`)
      expect(reply.status).toBe(200)
      expect(reply.headers['content-type']).toBe(font.id === 'cjk' ? 'font/collection' : 'font/ttf')
      expect(reply.headers['cache-control']).toBe(FALLBACK_FONT_CACHE_CONTROL)
      expect(reply.headers['x-content-type-options']).toBe('nosniff')
      expect(Number(reply.headers['content-length'])).toBe(statSync(path!).size)
      expect(reply.body.length).toBe(statSync(path!).size)
      // A TrueType collection starts with its tag; a TrueType font with its version 1.0.
      const magic = reply.body.subarray(0, 4)
      expect(magic.equals(font.id === 'cjk' ? Buffer.from('ttcf') : Buffer.from([0, 1, 0, 0]))).toBe(true)
    }
    const key = await fetchRaw(`${base}/key-font.ttf`)
    expect(key.headers['cache-control']).toBe(FALLBACK_FONT_CACHE_CONTROL)
  })

  it('HEAD gives the headers without the file', async () => {
    const base = await start()
    const reply = await fetchRaw(`${base}${cjk.route}`, 'HEAD')
    expect(reply.status).toBe(200)
    expect(Number(reply.headers['content-length'])).toBe(statSync(fallbackFontFile('cjk')!).size)
    expect(reply.body.length).toBe(0)
  })

  it('routes and types follow the fallback chain', () => {
    expect(fallbackFontAt('/key-font-cjk.ttc')).toBe(cjk)
    expect(fallbackFontAt('/key-font-emoji.ttf')).toBe(emoji)
    expect(fallbackFontAt('/key-font.ttf')).toBeUndefined()
    expect(fallbackFontType(cjk)).toBe('font/collection')
    expect(fallbackFontType(emoji)).toBe('font/ttf')
  })
})

describe('FallbackFontFiles: bounded', () => {
  /** A server that serves `font` through `files` for every request. */
  async function serving(files: FallbackFontFiles, font: FallbackFont): Promise<string> {
    const server: Server = createServer((req, res) => files.serve(res, req.method === 'HEAD', font))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        }),
    )
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  }

  it('a font that is not installed is a 404', async () => {
    const url = await serving(new FallbackFontFiles(() => undefined), cjk)
    const reply = await fetchRaw(url)
    expect(reply.status).toBe(404)
    expect(reply.body.toString()).toBe('cjk font not installed\n')
  })

  it('a file past the size bound is not served; one within it is, whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-fonts-'))
    const file = join(dir, 'big.ttc')
    writeFileSync(file, Buffer.alloc(2048, 7))
    const small = await serving(new FallbackFontFiles(() => file, { maxBytes: 1024, maxStreams: 4 }), cjk)
    expect((await fetchRaw(small)).status).toBe(404)
    const fits = await serving(new FallbackFontFiles(() => file, { maxBytes: 4096, maxStreams: 4 }), cjk)
    const reply = await fetchRaw(fits)
    expect(reply.status).toBe(200)
    expect(reply.body.equals(Buffer.alloc(2048, 7))).toBe(true)
  })

  it('at most maxStreams files at once: the next is told to come back; a client that leaves frees its stream', async () => {
    // The CJK collection (20 MB) fills the socket's buffers, so a paused reader holds its stream open.
    const files = new FallbackFontFiles(undefined, { maxBytes: 64 * 1024 * 1024, maxStreams: 1 })
    const url = await serving(files, cjk)
    const first = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject))
    first.pause()
    expect(first.statusCode).toBe(200)
    expect(files.open).toBe(1)
    const busy = await fetchRaw(url)
    expect(busy.status).toBe(503)
    expect(busy.headers['retry-after']).toBe('1')
    first.destroy()
    await expect.poll(() => files.open).toBe(0)
    expect((await fetchRaw(url, 'HEAD')).status).toBe(200)
  })
})
