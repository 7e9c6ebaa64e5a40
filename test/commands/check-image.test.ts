/**
 * `panelbridge check` and `image:` (issue 26, item 3): a picture file that is missing or is not a PNG,
 * JPEG or SVG image refuses the file, reported as `file:line:col` at the `image:` value; one that is
 * there passes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT } from '../../src/commands/subcommand.js'
import { checkText, type CheckRun } from './check-helpers.js'

const require = createRequire(import.meta.url)
const { createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pb-check-image-'))
  await writeFile(join(dir, 'logo.png'), createCanvas(8, 8).encodeSync('png'))
  await writeFile(join(dir, 'notes.txt'), 'not a picture')
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const check = (image: string): Promise<CheckRun> =>
  checkText(
    dir,
    `version: 1\nsurfaces:\n  console: { driver: web, rows: 1, columns: 2 }\nbindings:\n  - on: console/key:0\n    image: ${image}\n`,
  )

describe('check and image:', () => {
  it('refuses a missing file at its image: value', async () => {
    const r = await check('missing.png')
    expect(r.out).toBe(`${r.path}:6:12: image missing.png: file not found\n${r.path}: refused: 1 error, 0 warnings\n`)
    expect(r.code).toBe(EXIT.failure)
  })

  it('refuses a file that is not an image', async () => {
    const r = await check('notes.txt')
    expect(r.out).toContain(`${r.path}:6:12: image notes.txt: not a PNG, JPEG or SVG image\n`)
    expect(r.code).toBe(EXIT.failure)
  })

  it('passes a picture that is there, relative to the file', async () => {
    const r = await check('logo.png')
    expect(r.out).toBe(`${r.path}: ok: 1 binding on 1 surface\n`)
    expect(r.code).toBe(EXIT.ok)
  })
})
