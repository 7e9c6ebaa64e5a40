/**
 * `panelbridge learn` as a real process: it waits for Ctrl+C however little holds the event loop (no
 * device, live hot-plug), then stops with exit 0.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, expect, it } from 'vitest'

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url))
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
})

it('keeps learning until SIGINT, then exits 0', async () => {
  // Port 1 on loopback: no daemon answers there, so learn takes the devices (there are none here).
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, 'learn', '--url', 'http://127.0.0.1:1'], {
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  child.stdout.on('data', (b: Buffer) => (out += b.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const end = Date.now() + 15_000
  while (!out.includes('learning:') && child.exitCode === null && Date.now() < end)
    await new Promise((r) => setTimeout(r, 20))
  expect(out).toContain('learning: press, turn or move a control')
  // The first scan and hot-plug start follow the banner; a learn that gave up would be gone by now.
  await new Promise((r) => setTimeout(r, 1500))
  expect(child.exitCode).toBeNull()
  child.kill('SIGINT')
  expect(await exited).toBe(0)
})
