/** Projects, layer lists and the video format, over real files in the data folder. */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { APP_ERRORS } from '../../../src/api/protocol.js'
import { readZipEntry } from '../../../src/app-kit/simulator/zip.js'
import { pluck, useTestSim, titleNames, type Json } from './helpers.js'

const t = useTestSim()
let dir: string
beforeEach(() => {
  dir = t.sim.state.dataDir
})

async function recent(): Promise<Json[]> {
  return (await t.ok('getRecentProjects')).recentProjects as Json[]
}

describe('projects', () => {
  it('starts with believable recent projects backed by real files', async () => {
    const list = await recent()
    expect(pluck(list, 'filename')).toEqual(['Evening News.nbproj', 'Match Day.zip'])
    for (const p of list) {
      expect(p.filesize).toBe(statSync(join(dir, p.filename as string)).size)
      expect(Number.isInteger(p.filesize)).toBe(true)
      expect(p.creationDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
      expect(p.uri).toMatch(/^file:\/\//)
      expect(Buffer.from(p.thumbnailData as string, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]))
    }
    expect(list[0]).toMatchObject({ name: 'Evening News', extension: 'nbproj', notes: '', tags: [] })
    expect((await t.ok('getCurrentProject')).filePath).toBe(join(dir, 'Evening News.nbproj'))
  })

  it('a project saved to a file is listed in the recent projects and loads back the same titles', async () => {
    await t.ok('newTitle', { newName: 'Sponsor Bug' })
    await t.ok('setTitlePosition', { title: 'Sponsor Bug', position: 0 })
    const names = await titleNames(t)
    const saved = await t.raw('saveProject', { file: 'Show.nbproj', requestId: 'r1' })
    expect(saved).toEqual({})
    expect(existsSync(join(dir, 'Show.nbproj'))).toBe(true)
    const first = (await recent())[0]
    expect(first).toMatchObject({
      filename: 'Show.nbproj',
      name: 'Show',
      filesize: statSync(join(dir, 'Show.nbproj')).size,
    })
    // load another project: the list changes
    expect(await t.raw('loadProject', { file: 'Match Day.zip' })).toEqual({})
    expect(await titleNames(t)).toEqual(['Score Bug', 'Team Lineup', 'Clock'])
    // and back: the same titles in the same order
    expect(await t.raw('loadProject', { file: join(dir, 'Show.nbproj') })).toEqual({})
    expect(await titleNames(t)).toEqual(names)
    expect(pluck(await recent(), 'filename').slice(0, 3)).toEqual([
      'Show.nbproj',
      'Match Day.zip',
      'Evening News.nbproj',
    ])
  })

  it('saves a .zip package that is a real zip archive holding the project', async () => {
    expect(await t.raw('saveProject', { file: 'Pack.zip' })).toEqual({})
    const bytes = readFileSync(join(dir, 'Pack.zip'))
    expect(bytes.readUInt32LE(0)).toBe(0x04034b50)
    const project = JSON.parse(readZipEntry(bytes, 'project.json')!.toString('utf8'))
    expect(pluck(project.titles, 'name')).toEqual(await titleNames(t))
  })

  it('checkProjectEdited tracks edits with string flags; saving clears them', async () => {
    let status = await t.ok('checkProjectEdited')
    expect(status).toMatchObject({
      hasChanged: '0',
      isCached: '0',
      isCustomized: '0',
      isLibraryScene: '0',
      newFilePath: '',
    })
    await t.ok('setTitleName', { title: 'Clock', newName: 'Studio Clock' })
    status = await t.ok('checkProjectEdited')
    expect(status.hasChanged).toBe('1')
    await t.raw('saveProject', {})
    status = await t.ok('checkProjectEdited')
    expect(status.hasChanged).toBe('0')
    expect(status.filePath).toBe(join(dir, 'Evening News.nbproj'))
    await t.raw('loadProject', { file: 'Match Day.zip', autoCache: 1, videoSource: 'Camera 1' })
    expect((await t.ok('checkProjectEdited')).isCached).toBe('1')
  })

  it('closeProject needs the confirm flag, saves first with the save flag, and empties the list', async () => {
    expect((await t.cmd('closeProject', { saveProject: 1 })).error).toBe(
      'bad request: closing the project needs its confirmation (closeProject=1)',
    )
    expect((await titleNames(t)).length).toBeGreaterThan(0)
    await t.ok('setTitleName', { title: 'Clock', newName: 'Saved Clock' })
    const closed = await t.ok('closeProject', { saveProject: 1, closeProject: 1 })
    expect(closed.filePath).toBe(join(dir, 'Evening News.nbproj'))
    expect(await titleNames(t)).toEqual([])
    expect((await t.ok('checkProjectEdited')).filePath).toBe('')
    await t.raw('loadProject', { file: 'Evening News.nbproj' })
    expect(await titleNames(t)).toContain('Saved Clock')
  })

  it('closeProject without the save flag loses the edits', async () => {
    await t.ok('setTitleName', { title: 'Clock', newName: 'Lost Clock' })
    await t.ok('closeProject', { closeProject: 1 })
    await t.raw('loadProject', { file: 'Evening News.nbproj' })
    expect(await titleNames(t)).toContain('Clock')
    expect(await titleNames(t)).not.toContain('Lost Clock')
  })

  it('refuses wrong extensions, missing files and foreign files', async () => {
    expect((await t.cmd('saveProject', { file: 'x.txt' })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('loadProject', { file: 'absent.nbproj' })).error).toBe(
      'bad request: the file does not exist or cannot be read',
    )
    writeFileSync(join(dir, 'foreign.nbproj'), '{"hello": 1}')
    expect((await t.cmd('loadProject', { file: 'foreign.nbproj' })).error).toBe(
      "bad request: the file is not one of the application's, or it is damaged",
    )
    // a folder that does not exist is not created (and a path under /proc must not hang the server)
    expect((await t.cmd('saveProject', { file: join(dir, 'no-such-folder', 'x.nbproj') })).error).toBe(
      'bad request: the folder does not exist',
    )
    // a path outside the data folder is refused before anything is tried (issue 9: files stay in the folder)
    expect((await t.cmd('saveProject', { file: '/proc/pb-nope/x.nbproj' })).error).toBe('file outside the data folder')
    writeFileSync(join(dir, 'broken.zip'), 'PK not really')
    expect((await t.cmd('loadProject', { file: 'broken.zip' })).error).toBe(
      "bad request: the file is not one of the application's, or it is damaged",
    )
    expect((await titleNames(t)).length).toBe(5)
  })
})

describe('layer lists', () => {
  it('a layer list saved to a file loads back the same titles into a channel', async () => {
    const names = await titleNames(t)
    await t.ok('savePlaylist', { file: 'news.nblist', channel: 0 })
    expect(JSON.parse(readFileSync(join(dir, 'news.nblist'), 'utf8')).titles).toHaveLength(names.length)
    await t.ok('clearPlaylist', { channel: 0 })
    expect(await titleNames(t)).toEqual([])
    await t.ok('loadPlaylist', { file: 'news.nblist', channel: 0 })
    expect(await titleNames(t)).toEqual(names)
    // a second copy on channel 2 gets fresh ids
    await t.ok('loadPlaylist', { file: join(dir, 'news.nblist'), channel: 2 })
    const ch2 = (await t.ok('readTitle', { channel: 2 })).titles as Json[]
    expect(pluck(ch2, 'name')).toEqual(names)
    const ids0 = pluck((await t.ok('readTitle', { channel: 0 })).titles, 'id')
    expect(pluck(ch2, 'id').some((id) => ids0.includes(id))).toBe(false)
  })

  it('refuses a wrong extension or a missing file', async () => {
    expect((await t.cmd('savePlaylist', { file: 'news.nbproj', channel: 0 })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('loadPlaylist', { file: 'absent.nblist', channel: 0 })).error).toBe(
      'bad request: the file does not exist or cannot be read',
    )
  })
})

describe('video format', () => {
  it('get/set answer strings and the project remembers the format', async () => {
    expect(await t.ok('getVideoFormat')).toMatchObject({
      width: '1920',
      height: '1080',
      frameRate: '29.97',
      interlaced: '0',
    })
    const set = await t.ok('setVideoFormat', { width: 1280, height: 720, frameRate: 50 })
    expect(set).toMatchObject({ width: '1280', height: '720', frameRate: '50', interlaced: '0' })
    expect(await t.ok('getVideoFormat')).toMatchObject({ width: '1280', height: '720', frameRate: '50' })
    expect((await t.ok('replay_get_play_info')).frameRate).toBe(50)
    await t.raw('saveProject', { file: 'hd.nbproj' })
    await t.raw('loadProject', { file: 'Match Day.zip' })
    expect((await t.ok('getVideoFormat')).width).toBe('1920')
    await t.raw('loadProject', { file: 'hd.nbproj' })
    expect((await t.ok('getVideoFormat')).width).toBe('1280')
  })

  it('refuses missing or silly values', async () => {
    expect((await t.cmd('setVideoFormat', { width: 1280, height: 720 })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('setVideoFormat', { width: -1, height: 720, frameRate: 25 })).error).toBe(
      APP_ERRORS.invalidParams,
    )
    expect((await t.cmd('setVideoFormat', { width: 'wide', height: 720, frameRate: 25 })).error).toBe(
      APP_ERRORS.invalidParams,
    )
  })
})
