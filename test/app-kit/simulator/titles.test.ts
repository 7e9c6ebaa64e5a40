import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { APP_ERRORS } from '../../../src/api/protocol.js'
import { useTestSim, titleNames, type Json, pluck } from './helpers.js'

const t = useTestSim()

const BRACED_UUID = /^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$/

describe('starting data', () => {
  it('has several titles on channel 0 with braced UUIDs and typed variables', async () => {
    const r = await t.ok('getTitleControlInfo')
    expect(r.titles.length).toBeGreaterThanOrEqual(5)
    for (const title of r.titles) {
      expect(title.id).toMatch(BRACED_UUID)
      expect(title.status).toBe('Off')
      expect(title.image).toMatch(/^data:image\/png;base64,iVBORw0KGgo/)
    }
    const types = new Set(r.titles.flatMap((x: Json) => pluck(x.variables, 'type')))
    expect(types).toEqual(new Set(['text', 'image', 'color', 'visible']))
  })

  it('getTitleControlInfo lists titles in reverse list order, as the real application does', async () => {
    const info = await t.ok('getTitleControlInfo', { icon: 0 })
    const names = await titleNames(t)
    expect(pluck(info.titles, 'name')).toEqual([...names].reverse())
    expect(info.titles[0].image).toBe('')
  })
})

describe('title round trips', () => {
  it('a title created, copied, renamed, moved, given inputs and deleted is seen so by later commands', async () => {
    const before = await titleNames(t)
    // create
    await t.ok('newTitle', { newName: 'Weather', newId: '{11111111-2222-4333-8444-555555555555}', newPosition: 1 })
    let names = await titleNames(t)
    expect(names).toEqual([before[0], 'Weather', ...before.slice(1)])
    // copy: the reply names the copy, form-encoded like the real application
    const copy = await t.ok('duplicateTitle', { title: 'Weather', newName: 'Weather Late' })
    expect(copy.id).toMatch(BRACED_UUID)
    expect(copy.title).toBe('Weather+Late')
    names = await titleNames(t)
    expect(names.at(-1)).toBe('Weather Late')
    // rename by id
    await t.ok('setTitleName', { id: copy.id, newName: 'Weather Night' })
    expect(await titleNames(t)).toContain('Weather Night')
    expect(await titleNames(t)).not.toContain('Weather Late')
    // move to the top: positions are renumbered 0..n-1
    await t.ok('setTitlePosition', { title: 'Weather Night', position: 0 })
    const read = await t.ok('readTitle', { channel: 0 })
    expect(read.titles[0].name).toBe('Weather Night')
    expect(pluck(read.titles, 'position')).toEqual(read.titles.map((_: unknown, i: number) => i))
    // inputs: replace, merge, remove (answered as setTitleInput)
    await t.ok('setTitleInput', { title: 'Weather Night', input: 'Newsroom' })
    await t.ok('setTitleInput', { title: 'Weather Night', input: 'Scoreboard', merge: 1 })
    let one = await t.ok('readTitle', { title: 'Weather Night' })
    expect(one.titles[0].input).toBe('Newsroom,Scoreboard')
    await t.ok('setTitleInput', { title: 'Weather Night', input: 'Spreadsheet' })
    one = await t.ok('readTitle', { title: 'Weather Night' })
    expect(one.titles[0].input).toBe('Spreadsheet')
    const removed = await t.ok('removeTitleInput', { id: copy.id, input: 'Spreadsheet' })
    expect(removed.command).toBe('setTitleInput')
    expect(removed.reply).toBe('setTitleInput')
    one = await t.ok('readTitle', { title: 'Weather Night' })
    expect(one.titles[0].input).toBe('')
    // the input filter of readTitle sees inputs
    await t.ok('setTitleInput', { id: copy.id, input: 'Traffic' })
    const byInput = await t.ok('readTitle', { input: 'Traffic' })
    expect(pluck(byInput.titles, 'id')).toEqual([copy.id])
    // delete
    const del = await t.ok('deleteTitle', { id: copy.id })
    expect(del.id).toBe(copy.id)
    expect(await titleNames(t)).not.toContain('Weather Night')
    const gone = await t.cmd('getPlayStatus', { id: copy.id })
    expect(gone.error).toBe(APP_ERRORS.timelineNoTitle)
  })

  it('saveTitle writes a real .nbtitle file that loadTitle reads back', async () => {
    const dir = t.sim.state.dataDir
    const saved = await t.ok('saveTitle', { title: 'Score Bug', file: 'bug.nbtitle' })
    expect(saved.id).toMatch(BRACED_UUID)
    const file = JSON.parse(readFileSync(join(dir, 'bug.nbtitle'), 'utf8'))
    expect(file.title.name).toBe('Score Bug')
    await t.ok('loadTitle', { file: join(dir, 'bug.nbtitle'), newName: 'Score Bug B', channel: 1 })
    const ch1 = await t.ok('readTitle', { channel: 1 })
    expect(ch1.titles).toHaveLength(1)
    expect(ch1.titles[0].name).toBe('Score Bug B')
    // the same variables, and a fresh id because the file's id is taken
    const original = (await t.ok('readTitle', { title: 'Score Bug' })).titles[0]
    expect(ch1.titles[0].variables).toEqual(original.variables)
    expect(ch1.titles[0].id).not.toBe(original.id)
  })

  it('loadTitle refuses a wrong extension and a missing file', async () => {
    expect((await t.cmd('loadTitle', { file: 'x.txt' })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('loadTitle', { file: 'nothing-here.nbtitle' })).error).toBe(
      'bad request: the file does not exist or cannot be read',
    )
    expect(existsSync(join(t.sim.state.dataDir, 'nothing-here.nbtitle'))).toBe(false)
  })

  it('newTitle refuses a malformed or taken newId', async () => {
    expect((await t.cmd('newTitle', { newId: 'not-a-uuid' })).error).toBe(APP_ERRORS.invalidParams)
    const taken = (await t.ok('getTitleControlInfo')).titles[0].id
    expect((await t.cmd('newTitle', { newId: taken })).error).toBe(APP_ERRORS.invalidParams)
  })

  it('selectTitle selects one title; openDesigner/closeDesigner track the designer', async () => {
    await t.ok('selectTitle', { title: 'Clock' })
    const read = await t.ok('readTitle', { channel: 0 })
    expect(
      pluck(
        read.titles.filter((x: Json) => x.selected === '1'),
        'name',
      ),
    ).toEqual(['Clock'])
    const open = await t.ok('openDesigner', { title: 'Clock' })
    expect(t.sim.state.designerTitleId).toBe(open.id)
    await t.ok('closeDesigner')
    expect(t.sim.state.designerTitleId).toBe('')
  })

  it('getTimelineDuration answers the title duration in seconds', async () => {
    const r = await t.ok('getTimelineDuration', { title: 'Lower Third' })
    expect(r.duration).toBe(8)
  })
})
