/**
 * What the daemon held of its installed tree at start (src/installed.ts): the build stamp compared with
 * the one on disk, and what may still be loaded from disk once it differs. The whole daemon over a
 * replaced tree is test/daemon/replaced-tree.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  InstalledTree,
  lateImport,
  lateRequire,
  readBuildStamp,
  TreeReplacedError,
  WORKER_BUNDLE_FILES,
} from '../src/installed.js'

/** A tree's dist/ with the build stamp `stamp` (written as is when a string). */
function dist(stamp: object | string | undefined): { dir: string; url: URL; restamp: (s: object | string) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'pb-installed-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  const restamp = (s: object | string): void =>
    writeFileSync(join(dir, 'build.json'), typeof s === 'string' ? s : JSON.stringify(s))
  if (stamp !== undefined) restamp(stamp)
  return { dir, url: pathToFileURL(`${dir}/`), restamp }
}

const A = { version: '1.2.0', id: '0123456789abcdef' }

describe('the installed tree', () => {
  it('is the one it started from while its stamp is unchanged; says the versions once it changed', () => {
    const tree = dist(A)
    const installed = new InstalledTree(tree.url)
    expect(installed.stamp).toEqual(A)
    expect(installed.replaced()).toBeUndefined()
    tree.restamp({ version: '1.3.0', id: 'fedcba9876543210' })
    expect(installed.replaced()).toBe('panelbridge was upgraded on disk (1.2.0 → 1.3.0): restart the service to use it')
    tree.restamp({ ...A, id: 'fedcba9876543210' })
    expect(installed.replaced()).toBe(
      'panelbridge was upgraded on disk (1.2.0 → 1.2.0, another build): restart the service to use it',
    )
    tree.restamp('{ not json')
    expect(installed.replaced()).toContain('(1.2.0 → a tree without a readable build stamp)')
    expect(() => installed.check('cannot load x')).toThrow(TreeReplacedError)
  })

  it('has nothing to compare without a stamp at start (run from sources): never refuses', () => {
    const tree = dist(undefined)
    const installed = new InstalledTree(tree.url)
    expect(installed.stamp).toBeUndefined()
    tree.restamp(A)
    expect(installed.replaced()).toBeUndefined()
  })

  it('reads a stamp only when it is well formed and small', () => {
    const tree = dist(A)
    const at = new URL('build.json', tree.url)
    expect(readBuildStamp(at)).toEqual(A)
    for (const odd of [
      { version: '1.2.0', id: 'short' },
      { version: '1.2.0\n\u001b[2J', id: A.id },
      { version: 3, id: A.id },
      'null',
      JSON.stringify({ ...A, padding: 'x'.repeat(70 * 1024) }),
    ]) {
      tree.restamp(odd)
      expect(readBuildStamp(at)).toBeUndefined()
    }
  })

  it('starts a worker from the bundle read at start, whatever the file holds later', async () => {
    const tree = dist(A)
    const file = join(tree.dir, WORKER_BUNDLE_FILES['config-worker'])
    mkdirSync(join(file, '..'), { recursive: true })
    const bundle = (word: string): Buffer =>
      gzipSync(`require('node:worker_threads').parentPort.postMessage(${JSON.stringify(word)} + ' ' + __pbBase)`)
    writeFileSync(file, bundle('held'))
    const installed = new InstalledTree(tree.url)
    expect(installed.holds('config-worker')).toBe(true)
    writeFileSync(file, bundle('replaced'))
    const worker = installed.startWorker('config-worker')!
    onTestFinished(() => void worker.terminate())
    const said = await new Promise((resolve) => worker.once('message', resolve))
    expect(said).toBe(`held ${pathToFileURL(file).href}`)
    // A tree built without the bundle holds none, and starts no worker.
    const bare = new InstalledTree(dist(A).url)
    expect(bare.holds('config-worker')).toBe(false)
    expect(bare.startWorker('config-worker')).toBeUndefined()
  })

  it('lateImport loads until the tree is replaced, then refuses what it had not loaded and gives what it had', async () => {
    const tree = dist(A)
    const installed = new InstalledTree(tree.url)
    const loaded = { count: 0 }
    const load = (): Promise<{ n: number }> => Promise.resolve({ n: ++loaded.count })
    const name = `module-${Math.random()}`
    const first = await lateImport(name, load, installed)
    tree.restamp({ version: '2.0.0', id: 'fedcba9876543210' })
    expect(await lateImport(name, load, installed)).toBe(first)
    expect(loaded.count).toBe(1)
    await expect(lateImport(`${name}-other`, load, installed)).rejects.toThrow(
      `cannot load ${name}-other: panelbridge was upgraded on disk (1.2.0 → 2.0.0): restart the service to use it`,
    )
    expect(() => lateRequire(`${name}-sync`, () => 1, installed)).toThrow(TreeReplacedError)
    expect(loaded.count).toBe(1)
  })
})
