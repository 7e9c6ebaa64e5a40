/**
 * `check` warns (never refuses) when an absolute `record.file` is where the packaged service may not
 * write: outside its state folder, or in the /tmp of its own that no one else sees. A relative file, or
 * one under the state folder, draws no warning.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT } from '../../src/commands/subcommand.js'
import { checkText, type CheckRun } from './check-helpers.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pb-check-record-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const check = (file: string): Promise<CheckRun> =>
  checkText(
    dir,
    `version: 1\nsurfaces:\n  console: { driver: web, rows: 1, columns: 2 }\nrecord:\n  max_mb: 5\n  file: ${file}\n`,
  )

describe('check and the record file', () => {
  it('warns at record.file when the packaged service may not write there, and still accepts the file', async () => {
    const r = await check('/srv/show/show.jsonl')
    expect(r.out).toBe(
      `${r.path}:6:3: warning: record.file /srv/show/show.jsonl: the packaged service may write only under ` +
        `/var/lib/panelbridge (where a relative file name goes), so it would run without recording\n` +
        `${r.path}: ok: 0 bindings on 1 surface, 1 warning\n`,
    )
    expect(r.code).toBe(EXIT.ok)
  })

  it('warns that /tmp and /var/tmp are the service’s own', async () => {
    for (const tmp of ['/tmp', '/var/tmp']) {
      const r = await check(`${tmp}/show.jsonl`)
      expect(r.out).toContain(
        `${r.path}:6:3: warning: record.file ${tmp}/show.jsonl: the packaged service has a ${tmp} of its own, ` +
          'which no one else sees and which is emptied when it stops; use a relative file name (kept in ' +
          '/var/lib/panelbridge)\n',
      )
      expect(r.code).toBe(EXIT.ok)
    }
  })

  it('says nothing of a relative file, or one under the state folder', async () => {
    for (const file of ['show.jsonl', 'rec/show.jsonl', '/var/lib/panelbridge/show.jsonl', '/var/lib/panelbridge']) {
      const r = await check(file)
      expect(r.out).toBe(`${r.path}: ok: 0 bindings on 1 surface\n`)
    }
    // A folder that only begins like the state folder is not under it.
    expect((await check('/var/lib/panelbridge-old/show.jsonl')).out).toContain('may write only under')
  })
})
