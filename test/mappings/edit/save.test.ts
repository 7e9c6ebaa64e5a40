import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runNode } from '../../helpers/cli.js'
import { loaderCheck } from '../../../src/mappings/edit/check.js'
import { replaceBinding } from '../../../src/mappings/edit/edit.js'
import { EditHistory } from '../../../src/mappings/edit/history.js'
import { locateBinding, parseForEdit } from '../../../src/mappings/edit/locate.js'
import { readBinding } from '../../../src/mappings/edit/read.js'
import { checkWritable, hashBytes, saveConfig } from '../../../src/mappings/edit/save.js'
import { CONFIG_LIMITS } from '../../../src/mappings/limits.js'

const EXAMPLES = 'config/examples'
const files = [...readdirSync(EXAMPLES).map((f) => join(EXAMPLES, f)), 'test/fixtures/edit/everything.yaml']

let root: string
let config: string
let state: string
const XL = readFileSync('config/examples/streamdeck-xl-titles.yaml', 'utf8')
const KEY0 = { surface: 'titles', control: 'key:0' }

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pb-edit-'))
  config = join(root, 'conf', 'panelbridge.yaml')
  state = join(root, 'state', 'edit-history')
  await mkdir(dirname(config))
  await writeFile(config, XL, { mode: 0o640 })
})

afterEach(async () => {
  await chmod(dirname(config), 0o755).catch(() => undefined)
  await rm(root, { recursive: true, force: true })
})

/** The key-0 binding with its title changed. */
function retitled(text: string, title: string): string {
  const b = structuredClone(locateBinding(parseForEdit(text), KEY0, 'x')!.binding)
  ;(b.press as { params: { title: string } }).params.title = title
  return replaceBinding(text, KEY0, b).text
}

describe('saveConfig', () => {
  for (const file of files) {
    it(`${file}: a no-op save through the whole check writes identical bytes`, async () => {
      const bytes = await readFile(file)
      await writeFile(config, bytes)
      const result = await saveConfig(config, hashBytes(bytes), bytes.toString('utf8'), loaderCheck(config))
      expect(result).toMatchObject({ ok: true, hash: hashBytes(bytes) })
      expect(await readFile(config)).toEqual(bytes)
    })
  }

  it('a one-field edit saved changes only that field’s line; mode and owner are kept, no temp file is left', async () => {
    // Root may give the file away: it is given to another user, whose it must stay.
    const owner = process.getuid?.() === 0 ? 4321 : (await lstat(config)).uid
    if (owner === 4321) await chown(config, 4321, 4321)
    const text = retitled(XL, 'Clock')
    const result = await saveConfig(config, hashBytes(XL), text, loaderCheck(config))
    expect(result.ok).toBe(true)
    const after = await readFile(config, 'utf8')
    const changed = XL.split('\n').flatMap((l, i) => (l === after.split('\n')[i] ? [] : [i + 1]))
    expect(changed).toEqual([16])
    expect(after.split('\n')[15]).toBe(
      "    press: { command: schedule, params: { action: automatic, title: 'Clock' } }",
    )
    const st = await lstat(config)
    expect(st.mode & 0o777).toBe(0o640)
    expect(st.uid).toBe(owner)
    expect(await readdir(dirname(config))).toEqual([basename(config)])
  })

  it('refuses CONFIG_CHANGED with the current hash when the file is not the one edited, file untouched', async () => {
    const handEdited = `${XL}# a hand edit\n`
    await writeFile(config, handEdited)
    const result = await saveConfig(config, hashBytes(XL), retitled(XL, 'Clock'), loaderCheck(config))
    expect(result).toEqual({ ok: false, code: 'CONFIG_CHANGED', hash: hashBytes(handEdited) })
    expect(await readFile(config, 'utf8')).toBe(handEdited)
  })

  it('refuses CONFIG_REFUSED with each problem at its field, file untouched', async () => {
    const bad = XL.replace(
      "press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }",
      "press: { command: schedul, params: { action: automatic, title: 'Lower Third' } }",
    )
    const result = await saveConfig(config, hashBytes(XL), bad, loaderCheck(config))
    expect(result.ok).toBe(false)
    if (result.ok || result.code !== 'CONFIG_REFUSED') throw new Error('expected CONFIG_REFUSED')
    expect(result.problems).toEqual([
      { path: 'bindings.0.press.command', message: expect.stringMatching(/schedul .*did you mean schedule/) },
    ])
    expect(await readFile(config, 'utf8')).toBe(XL)
  })

  it('refuses a read-only file, file untouched', async () => {
    await chmod(config, 0o444)
    const result = await saveConfig(config, hashBytes(XL), retitled(XL, 'Clock'), loaderCheck(config))
    expect(result).toEqual({ ok: false, code: 'NOT_WRITABLE', reason: 'the file is read-only' })
    expect(await readFile(config, 'utf8')).toBe(XL)
    expect((await lstat(config)).mode & 0o777).toBe(0o444)
  })

  it('a crash between the temp write and the rename leaves the old file whole, and the temp file goes', async () => {
    const seen: string[] = []
    const save = saveConfig(config, hashBytes(XL), retitled(XL, 'Clock'), () => [], {
      beforeRename: async (temp) => {
        expect(dirname(temp)).toBe(dirname(config))
        seen.push(await readFile(temp, 'utf8'), await readFile(config, 'utf8'))
        throw new Error('stopped here')
      },
    })
    await expect(save).rejects.toThrow('stopped here')
    expect(seen).toEqual([retitled(XL, 'Clock'), XL])
    expect(await readFile(config, 'utf8')).toBe(XL)
    expect(await readdir(dirname(config))).toEqual([basename(config)])
  })
})

describe('a save killed (SIGKILL) between the temp write and the rename', () => {
  it('leaves the old file whole; the next save removes the dead save’s temp file', async () => {
    const save = pathToFileURL('src/mappings/edit/save.ts').href
    const edited = retitled(XL, 'Clock')
    const script = [
      `import { saveConfig } from ${JSON.stringify(save)}`,
      `await saveConfig(${JSON.stringify(config)}, ${JSON.stringify(hashBytes(XL))}, ${JSON.stringify(edited)}, () => [], {`,
      `  beforeRename: () => { console.log('renaming'); process.kill(process.pid, 'SIGKILL') },`,
      `})`,
      `console.log('saved')`,
    ].join('\n')
    const child = runNode(['--input-type=module', '-e', script])
    await child.exited
    expect(child.child.signalCode).toBe('SIGKILL')
    expect(child.out()).toMatch(/renaming/)
    expect(child.out()).not.toMatch(/saved/)
    expect(await readFile(config, 'utf8')).toBe(XL)
    const left = (await readdir(dirname(config))).filter((n) => n !== basename(config))
    expect(left).toHaveLength(1)
    expect(await readFile(join(dirname(config), left[0]!), 'utf8')).toBe(edited)

    expect((await saveConfig(config, hashBytes(XL), edited, () => [])).ok).toBe(true)
    expect(await readFile(config, 'utf8')).toBe(edited)
    expect(await readdir(dirname(config))).toEqual([basename(config)])
  })
})

describe('readBinding', () => {
  it('gives the binding with the hash of the bytes read, or NO_BINDING with that hash', async () => {
    expect(await readBinding(config, { surface: 'titles', control: 'key:24' })).toEqual({
      found: true,
      hash: hashBytes(XL),
      file: config,
      line: 49,
      yaml: [
        '  - on: titles/key:24',
        "    label: 'Cam 1'",
        "    press: { command: switchVideoIn, params: { channel: 0, video: 'Camera 1' } }",
        "    feedback: { input: 'Camera 1', channel: 0 }",
        '',
      ].join('\n'),
      binding: {
        label: 'Cam 1',
        press: { command: 'switchVideoIn', params: { channel: 0, video: 'Camera 1' } },
        feedback: { input: 'Camera 1', channel: 0 },
      },
      editable: true,
    })
    expect(await readBinding(config, { surface: 'titles', control: 'key:31' })).toEqual({
      found: false,
      code: 'NO_BINDING',
      hash: hashBytes(XL),
    })
  })
})

describe('checkWritable', () => {
  it('a writable file is writable, and the check leaves the folder as it was', async () => {
    expect(await checkWritable(config)).toEqual({ writable: true })
    expect(await readdir(dirname(config))).toEqual([basename(config)])
  })

  it('says why for a read-only file, a read-only folder, a symlink and another user’s file', async () => {
    await chmod(config, 0o444)
    expect(await checkWritable(config)).toEqual({ writable: false, reason: 'the file is read-only' })
    await chmod(config, 0o644)

    const link = join(root, 'link.yaml')
    await symlink(config, link)
    expect((await checkWritable(link)).reason).toMatch(/symbolic link \(as a ConfigMap mounts it\)/)

    expect(await checkWritable(config, 99_999)).toEqual({
      writable: false,
      reason: `the file belongs to another user (uid ${(await lstat(config)).uid}); panelbridge runs as uid 99999`,
    })

    await chmod(dirname(config), 0o555)
    expect((await checkWritable(config)).reason).toMatch(/^the folder .* is read-only: a save writes a new file/)
    expect(await readFile(config, 'utf8')).toBe(XL)
  })
})

describe('EditHistory', () => {
  it('undo restores the previous bytes exactly, one save at a time', async () => {
    const history = new EditHistory(config, state)
    const one = retitled(XL, 'Clock')
    const two = retitled(one, 'Score Bug')
    const r1 = await history.save(hashBytes(XL), one, loaderCheck(config))
    const r2 = await history.save(hashBytes(one), two, loaderCheck(config))
    expect([r1.ok, r2.ok]).toEqual([true, true])
    expect(await readFile(config, 'utf8')).toBe(two)
    expect(await history.undo(hashBytes(two))).toEqual({ ok: true, hash: hashBytes(one) })
    expect(await readFile(config, 'utf8')).toBe(one)
    expect(await history.undo(hashBytes(one))).toEqual({ ok: true, hash: hashBytes(XL) })
    expect(await readFile(config)).toEqual(Buffer.from(XL))
    expect(await history.undo(hashBytes(XL))).toEqual({ ok: false, code: 'NOTHING_TO_UNDO' })
  })

  it('refuses undo when the file changed since the save, file untouched', async () => {
    const history = new EditHistory(config, state)
    const one = retitled(XL, 'Clock')
    await history.save(hashBytes(XL), one, () => [])
    const hand = `${one}# by hand\n`
    await writeFile(config, hand)
    expect(await history.undo(hashBytes(hand))).toEqual({ ok: false, code: 'CONFIG_CHANGED', hash: hashBytes(hand) })
    expect(await history.undo(hashBytes(one))).toEqual({ ok: false, code: 'CONFIG_CHANGED', hash: hashBytes(hand) })
    expect(await readFile(config, 'utf8')).toBe(hand)
  })

  it(`keeps the last ${CONFIG_LIMITS.historyVersions} saves, in the state folder only`, async () => {
    const history = new EditHistory(config, state)
    let text = XL
    for (let i = 0; i < CONFIG_LIMITS.historyVersions + 5; i++) {
      const next = retitled(text, `Title ${i}`)
      expect((await history.save(hashBytes(text), next, () => [])).ok).toBe(true)
      text = next
    }
    expect(await history.size()).toBe(CONFIG_LIMITS.historyVersions)
    expect(await readdir(state)).toHaveLength(2 * CONFIG_LIMITS.historyVersions)
    expect(await readdir(dirname(config))).toEqual([basename(config)])
    expect(() => new EditHistory(config, join(dirname(config), 'history'))).toThrow(
      /must not be in the config's folder/,
    )
    expect(() => new EditHistory(config, dirname(config))).toThrow(/must not be in the config's folder/)
  })

  it('a refused save keeps no version', async () => {
    const history = new EditHistory(config, state)
    const result = await history.save(hashBytes(XL), 'version: 2\n', loaderCheck(config))
    expect(result.ok).toBe(false)
    expect(await history.size()).toBe(0)
    expect(await readFile(config, 'utf8')).toBe(XL)
  })
})
