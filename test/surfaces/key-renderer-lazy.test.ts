/**
 * The canvas library (Skia's native code and font cache, a fifth of the daemon's resident memory) is
 * loaded on the first key drawn, not when the renderer's module is imported: a daemon with no keyed
 * surface, or whose web page nobody has open, never loads it. In a fresh process, since the test
 * runner itself has long loaded it.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const RENDERER = fileURLToPath(new URL('../../src/surfaces/render/key-renderer.ts', import.meta.url))

const SCRIPT = `
import { createRequire } from 'node:module'
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('@napi-rs'))
const { KeyRenderer } = await import(${JSON.stringify(RENDERER)})
const renderer = new KeyRenderer()
const atImport = loaded()
const key = renderer.render({ text: 'On air', color: '#d00000' }, { width: 72, height: 72 })
console.log(JSON.stringify({ atImport, afterRender: loaded(), bytes: key.rgba.length }))
`

describe('key renderer', () => {
  it('loads the canvas library on the first key drawn, not at import', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({ atImport: false, afterRender: true, bytes: 72 * 72 * 4 })
  })
})
