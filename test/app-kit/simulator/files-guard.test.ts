/**
 * Every file parameter stays inside the simulator's data folder (issue 9, finding 6): `..`, absolute
 * paths elsewhere and symbolic links out of the folder are refused with a clear error, and nothing is
 * written or read outside.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'

interface Setup {
  sim: SimulatorHandle
  dataDir: string
  /** A folder beside the data folder that nothing may touch. */
  outside: string
  cmd: (name: string, params: Record<string, string>) => Promise<{ error?: string; command: string }>
}

async function setup(): Promise<Setup> {
  const root = mkdtempSync(join(tmpdir(), 'panelbridge-guard-'))
  onTestFinished(() => rmSync(root, { recursive: true, force: true }))
  const dataDir = join(root, 'data')
  const outside = join(root, 'outside')
  mkdirSync(dataDir)
  mkdirSync(outside)
  const sim = await startSimulator({ dataDir, animationMs: 10 })
  onTestFinished(() => sim.close())
  const cmd = async (name: string, params: Record<string, string>) => {
    const res = await fetch(`${sim.httpUrl}/api/command/${name}?${new URLSearchParams(params).toString()}`)
    // saveProject and loadProject answer success with the bare `{}` (contract: envelope rule 2).
    const body = (await res.json()) as { result?: { error?: string; command: string } }
    return body.result ?? { command: name }
  }
  return { sim, dataDir, outside, cmd }
}

const TITLE = 'Lower Third'
/** The reply's error text (the simulator's own, `src/app-kit/simulator/files.ts`). */
const FILE_OUTSIDE_DATA_DIR = 'file outside the data folder'

describe('file parameters stay in the data folder', () => {
  it.each([
    ['saveTitle', 'x.nbtitle', { title: TITLE }],
    ['savePlaylist', 'x.nblist', { channel: '0' }],
    ['saveProject', 'x.nbproj', {}],
    ['saveProject', 'x.zip', {}],
  ] as const)(
    '%s refuses ../ and absolute paths outside, and writes nothing there (%s)',
    async (command, name, extra) => {
      const { dataDir, outside, cmd } = await setup()
      const byDots = join(relative(dataDir, outside), name)
      expect(byDots.startsWith('..')).toBe(true)
      const r1 = await cmd(command, { ...extra, file: byDots })
      expect(r1.error).toBe(FILE_OUTSIDE_DATA_DIR)
      const r2 = await cmd(command, { ...extra, file: join(outside, `abs-${name}`) })
      expect(r2.error).toBe(FILE_OUTSIDE_DATA_DIR)
      const deep = await cmd(command, { ...extra, file: `../../../../../../../../tmp/${name}` })
      expect(deep.error).toBe(FILE_OUTSIDE_DATA_DIR)
      expect(existsSync(join(outside, name))).toBe(false)
      expect(existsSync(join(outside, `abs-${name}`))).toBe(false)
      // The same command inside the folder works (so the refusals above are the guard, not a broken command).
      const ok = await cmd(command, { ...extra, file: name })
      expect(ok.error).toBeUndefined()
      expect(existsSync(join(dataDir, name))).toBe(true)
    },
  )

  it.each([
    ['loadTitle', 'x.nbtitle', 'saveTitle', { title: TITLE }],
    ['loadPlaylist', 'x.nblist', 'savePlaylist', { channel: '0' }],
    ['loadProject', 'x.nbproj', 'saveProject', {}],
  ] as const)('%s refuses a real file outside the folder', async (load, name, save, extra) => {
    const { dataDir, outside, cmd } = await setup()
    expect((await cmd(save, { ...extra, file: name })).error).toBeUndefined()
    writeFileSync(join(outside, name), readFileSync(join(dataDir, name)))
    expect((await cmd(load, { file: join(relative(dataDir, outside), name) })).error).toBe(FILE_OUTSIDE_DATA_DIR)
    expect((await cmd(load, { file: join(outside, name) })).error).toBe(FILE_OUTSIDE_DATA_DIR)
    expect((await cmd(load, { file: name })).error).toBeUndefined()
  })

  it('a folder link out of the data folder is refused', async () => {
    const { dataDir, outside, cmd } = await setup()
    symlinkSync(outside, join(dataDir, 'escape'))
    const r = await cmd('saveTitle', { title: TITLE, file: 'escape/x.nbtitle' })
    expect(r.error).toBe(FILE_OUTSIDE_DATA_DIR)
    expect(existsSync(join(outside, 'x.nbtitle'))).toBe(false)
  })

  it('a file link out of the data folder is refused, and the file it points at is untouched', async () => {
    const { dataDir, outside, cmd } = await setup()
    const victim = join(outside, 'victim.nbtitle')
    writeFileSync(victim, 'precious')
    symlinkSync(victim, join(dataDir, 'link.nbtitle'))
    const r = await cmd('saveTitle', { title: TITLE, file: 'link.nbtitle' })
    expect(r.error).toBe(FILE_OUTSIDE_DATA_DIR)
    expect(readFileSync(victim, 'utf8')).toBe('precious')
    expect((await cmd('loadTitle', { file: 'link.nbtitle' })).error).toBe(FILE_OUTSIDE_DATA_DIR)
  })

  it('links that stay inside, sub-folders and absolute paths inside are accepted', async () => {
    const { dataDir, cmd } = await setup()
    mkdirSync(join(dataDir, 'sub'))
    symlinkSync(join(dataDir, 'sub'), join(dataDir, 'alias'))
    expect((await cmd('saveTitle', { title: TITLE, file: 'alias/a.nbtitle' })).error).toBeUndefined()
    expect(existsSync(join(dataDir, 'sub', 'a.nbtitle'))).toBe(true)
    expect((await cmd('saveTitle', { title: TITLE, file: join(dataDir, 'sub', 'b.nbtitle') })).error).toBeUndefined()
    expect((await cmd('saveTitle', { title: TITLE, file: 'sub/../c.nbtitle' })).error).toBeUndefined()
    expect(existsSync(join(dataDir, 'c.nbtitle'))).toBe(true)
  })

  it('a missing sub-folder is refused for that reason (the application does not create folders)', async () => {
    const { cmd } = await setup()
    expect((await cmd('saveTitle', { title: TITLE, file: 'nope/x.nbtitle' })).error).toBe(
      'bad request: the folder does not exist',
    )
  })
})
