/**
 * Pictures on keys load nothing unless a binding has one (issue 26: a daemon's idle resident memory
 * with no picture configured is unchanged): the loader, the engine and its picture source run a mapping
 * without `image:` or `thumbnail:` without loading the canvas library. The first `image:` is drawn (no
 * problem reported) by the drawing process, so the daemon's own process never loads it. In a fresh
 * process, since the test runner itself has long loaded it.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'

const src = (path: string): string => JSON.stringify(fileURLToPath(new URL(`../../src/${path}`, import.meta.url)))

/** A mapping on a web surface, key:1 with an `image:` when `image` is given. */
const mapping = (image?: string): string => `version: 1
surfaces:
  desk: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: desk/key:0
    label: "LT"
    feedback: { title: Lower Third }
${image !== undefined ? `  - on: desk/key:1\n    image: ${image}\n` : ''}`

const script = (dir: string): string => `
import { createRequire } from 'node:module'
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('@napi-rs'))
const { loadConfigText } = await import(${src('mappings/load.ts')})
const { Engine } = await import(${src('mappings/engine.ts')})
const { KeyPictures } = await import(${src('mappings/pictures.ts')})
const { AppState } = await import(${src('api/app-state.ts')})
const state = new AppState()
const client = { callByName: () => Promise.reject(new Error('not called')) }
const engine = new Engine({ client, state, surfaces: { setFeedback() {} }, pictures: new KeyPictures({ client, state }) })
const file = ${JSON.stringify(join(dir, 'config.yaml'))}
engine.apply((await loadConfigText(${JSON.stringify(mapping())}, file)).config)
const without = loaded()
const withImage = await loadConfigText(${JSON.stringify(mapping('dot.svg'))}, file)
engine.apply(withImage.config)
engine.stop()
console.log(JSON.stringify({ without, withImage: loaded(), problems: withImage.problems.length }))
`

describe('pictures on keys', () => {
  it('never load the canvas library into the daemon: a picture is drawn in a process of its own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-pictures-lazy-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(
      join(dir, 'dot.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><circle cx="2" cy="2" r="2"/></svg>',
    )
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(dir)], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ without: false, withImage: false, problems: 0 })
  })
})
