/**
 * The command client against the application simulator over a real loopback socket (port 0).
 *
 * Every catalogue command is run at least once through `run()` (or `refused()` where the contract's
 * answer is an error), which checks each reply field against its catalogue type and records the
 * command; after the whole file has run, a check finds every catalogue command covered. Each test has a
 * simulator of its own and builds the state it needs (the helpers below), so any one runs alone.
 */
import type { File, Suite, Task } from '@vitest/runner'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CommandClient, type CallArgs } from '../../../src/api/client.js'
import {
  COMMAND_NAMES,
  COMMANDS,
  type CommandName,
  type CommandSpec,
  type FieldSpec,
  type ReplyOf,
  type Shape,
} from '../../../src/api/commands.js'
import { AppError, isCommandError } from '../../../src/api/errors.js'
import { APP_ERRORS, PLAY_STATES } from '../../../src/api/protocol.js'
import { startSimulator } from '../../../src/app-kit/simulator/index.js'

type Sim = Awaited<ReturnType<typeof startSimulator>>
let sim: Sim
let client: CommandClient
let post: CommandClient
const covered = new Set<string>()
const BRACED_UUID = /^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$/i

beforeEach(async () => {
  sim = await startSimulator({ httpPort: 0, host: '127.0.0.1' })
  client = new CommandClient({ baseUrl: sim.httpUrl })
  post = new CommandClient({ baseUrl: sim.httpUrl, transport: 'post' })
})
afterEach(async () => {
  await client?.close()
  await post?.close()
  await sim?.close()
})

function testsOf(task: Task | Readonly<Suite | File>): Task[] {
  return 'tasks' in task ? task.tasks.flatMap(testsOf) : [task]
}
// Coverage is a property of the whole file: checked when every test ran (not under `-t` or `.only`).
// eslint-disable-next-line no-empty-pattern -- vitest reads the first argument as a destructured fixture
afterAll(({}, file) => {
  if (testsOf(file).some((t) => t.mode !== 'run')) return
  expect(COMMAND_NAMES.filter((n) => !covered.has(n))).toEqual([])
})

/** Asserts that a converted value has its catalogue type, recursively. */
function expectFieldType(value: unknown, fs: FieldSpec, path: string): void {
  if (value === undefined) {
    expect(fs.optional, `${path} is required`).toBe(true)
    return
  }
  switch (fs.type) {
    case 'string':
      expect(typeof value, path).toBe('string')
      break
    case 'number':
      expect(typeof value, path).toBe('number')
      break
    case 'integer':
      expect(Number.isInteger(value), path).toBe(true)
      break
    case 'boolean':
      expect(typeof value, path).toBe('boolean')
      break
    case 'flag':
      expect(['0', '1'], path).toContain(value)
      break
    case 'array':
      expect(Array.isArray(value), path).toBe(true)
      for (const [i, item] of (value as unknown[]).entries()) {
        if (typeof fs.items === 'string') expectFieldType(item, { type: fs.items, optional: false }, `${path}[${i}]`)
        else if (fs.items) expectShape(item, fs.items, `${path}[${i}]`)
      }
      break
    case 'object':
      expect(typeof value === 'object' && value !== null && !Array.isArray(value), path).toBe(true)
      if (fs.fields) expectShape(value, fs.fields, path)
      break
  }
}
function expectShape(value: unknown, shape: Shape, path: string): void {
  expect(typeof value, path).toBe('object')
  for (const [key, fs] of Object.entries(shape))
    expectFieldType((value as Record<string, unknown>)[key], fs, `${path}.${key}`)
}

/** Runs a command through a client, checks the reply types and records the command as covered. */
async function runWith<N extends CommandName>(c: CommandClient, name: N, ...args: CallArgs<N>): Promise<ReplyOf<N>> {
  const reply = await (c.call as (n: N, ...a: CallArgs<N>) => Promise<ReplyOf<N>>)(name, ...args)
  expectShape(reply, (COMMANDS[name] as CommandSpec).reply, name)
  covered.add(name)
  return reply
}
function run<N extends CommandName>(name: N, ...args: CallArgs<N>): Promise<ReplyOf<N>> {
  return runWith(client, name, ...args)
}

/** Runs a command the contract answers with an error, checks the exact text and records it. */
async function refused<N extends CommandName>(text: string, name: N, ...args: CallArgs<N>): Promise<void> {
  const err: unknown = await (client.call as (n: N, ...a: CallArgs<N>) => Promise<unknown>)(name, ...args).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isCommandError(err), `${name} should fail`).toBe(true)
  expect((err as AppError).code).toBe('APP_ERROR')
  expect((err as AppError).appMessage).toBe(text)
  covered.add(name)
}

/** Creates 'Pb Test Title' on channel 0; returns its id. */
async function newTitle(): Promise<string> {
  await run('newTitle', { newName: 'Pb Test Title', channel: 0 })
  const { titles } = await run('getTitlesPlayStatus', { channel: 0 })
  return titles!.find((x) => x.name === 'Pb Test Title')!.id!
}

/** A copy of a new title, renamed 'Pb Renamed'; returns its id. */
async function renamedCopy(): Promise<string> {
  const { id } = await run('duplicateTitle', { id: await newTitle(), newName: 'Pb Copy Title' })
  await run('setTitleName', { id, newName: 'Pb Renamed' })
  return id
}

describe('titles', () => {
  it('lists seeded titles with braced ids, play states and variables (getTitleControlInfo)', async () => {
    const { titles } = await run('getTitleControlInfo', { icon: false })
    expect(titles.length).toBeGreaterThanOrEqual(3)
    for (const t of titles) {
      expect(t.id).toMatch(BRACED_UUID)
      expect(PLAY_STATES).toContain(t.status)
      expect(Array.isArray(t.variables)).toBe(true)
    }
  })

  it('creates a title that later commands see (newTitle, getTitlesPlayStatus)', async () => {
    await run('newTitle', { newName: 'Pb Test Title', channel: 0 })
    const { titles } = await run('getTitlesPlayStatus', { channel: 0 })
    const t = titles!.find((x) => x.name === 'Pb Test Title')
    expect(t?.play).toBe('Off')
    expect(t?.id).toMatch(BRACED_UUID)
  })

  it('copies it, decoding the +-encoded name echo (duplicateTitle)', async () => {
    const newId = await newTitle()
    const reply = await run('duplicateTitle', { id: newId, newName: 'Pb Copy Title' })
    expect(reply.id).toMatch(BRACED_UUID)
    expect(reply.id).not.toBe(newId)
    expect(reply.title).toBe('Pb Copy Title')
  })

  it('renames and moves the copy (setTitleName, setTitlePosition, readTitle)', async () => {
    const copyId = (await run('duplicateTitle', { id: await newTitle(), newName: 'Pb Copy Title' })).id
    await run('setTitleName', { id: copyId, newName: 'Pb Renamed' })
    await run('setTitlePosition', { id: copyId, position: 0 })
    const { titles } = await run('readTitle', { channel: 0 })
    expect(titles![0]!.id).toBe(copyId)
    expect(titles![0]!.name).toBe('Pb Renamed')
    expect(titles![0]!.position).toBe(0)
  })

  it('gives it inputs, merges and removes one (setTitleInput, removeTitleInput, getInputsPlayStatus)', async () => {
    const copyId = await renamedCopy()
    await run('setTitleInput', { id: copyId, input: 'Cam A' })
    await run('setTitleInput', { id: copyId, input: 'Cam B', merge: true })
    expect((await run('readTitle', { title: 'Pb Renamed' })).titles![0]!.input).toBe('Cam A,Cam B')
    await run('removeTitleInput', { id: copyId, input: 'Cam A' })
    expect((await run('readTitle', { title: 'Pb Renamed' })).titles![0]!.input).toBe('Cam B')
    const { inputs } = await run('getInputsPlayStatus', { channel: 0 })
    expect(inputs.map((i) => (i as { name: string }).name)).toContain('Cam B')
  })

  it('selects it and opens and closes the designer (selectTitle, openDesigner, closeDesigner)', async () => {
    const copyId = await renamedCopy()
    await run('selectTitle', { title: 'Pb Renamed' })
    expect((await run('readTitle', { title: 'Pb Renamed' })).titles![0]!.selected).toBe('1')
    expect(await run('openDesigner', { id: copyId })).toEqual({ id: copyId })
    expect(await run('closeDesigner')).toEqual({})
  })

  it('reports its timeline duration as a number (getTimelineDuration)', async () => {
    const reply = await run('getTimelineDuration', { id: await renamedCopy() })
    expect(typeof reply.duration).toBe('number')
    expect(reply.duration).toBeGreaterThan(0)
  })

  it('saves it to a file and loads it back as a new title (saveTitle, loadTitle)', async () => {
    const copyId = await renamedCopy()
    await run('setTitleInput', { id: copyId, input: 'Cam B' })
    expect(await run('saveTitle', { id: copyId, file: 'pb-copy.nbtitle' })).toEqual({ id: copyId })
    await run('loadTitle', { file: 'pb-copy.nbtitle', newName: 'Pb Loaded', channel: 0 })
    const loaded = (await run('readTitle', { title: 'Pb Loaded' })).titles![0]!
    expect(loaded.input).toBe('Cam B')
    expect(loaded.id).not.toBe(copyId)
  })

  it('plays and stops it (schedule, getPlayStatus)', async () => {
    const copyId = await renamedCopy()
    await run('schedule', { action: 'cutin', id: copyId })
    expect(await run('getPlayStatus', { id: copyId })).toEqual({ id: copyId, play: 'Paused' })
    await runWith(post, 'schedule', { action: 'cutout', title: 'Pb Renamed' })
    expect((await run('getPlayStatus', { id: copyId })).play).toBe('Off')
  })

  it('deletes it, and later commands no longer find it (deleteTitle)', async () => {
    const copyId = await renamedCopy()
    expect(await run('deleteTitle', { id: copyId })).toEqual({ id: copyId })
    await refused(APP_ERRORS.timelineNoTitle, 'getPlayStatus', { id: copyId })
    await refused(APP_ERRORS.selectTitleNoName, 'selectTitle', { title: 'Pb Renamed' })
  })
})

/** The name of the first video input. */
async function firstVideoIn(): Promise<string> {
  return (await run('getAllVideoIns', { verbose: false })).videoIns[0]!
}

describe('video inputs', () => {
  it('lists inputs with count as a string (getAllVideoIns)', async () => {
    const reply = await run('getAllVideoIns', { verbose: false })
    expect(reply.videoIns.length).toBeGreaterThanOrEqual(4)
    expect(reply.count).toBe(String(reply.videoIns.length))
  })

  it("describes an input with '0'/'1' flags (getVideoInInfo)", async () => {
    const first = await firstVideoIn()
    const { videoIns } = await run('getVideoInInfo', { videoIn: first })
    expect(videoIns).toHaveLength(1)
    expect(videoIns[0]!.name).toBe(first)
    expect(['0', '1']).toContain(videoIns[0]!.video)
  })

  it('opens, switches and closes an input (openVideoIn, switchVideoIn, getOpenedVideoIns, closeVideoIn)', async () => {
    const first = await firstVideoIn()
    await run('openVideoIn', { video: first })
    await run('switchVideoIn', { channel: 0, video: first })
    const opened = (await run('getOpenedVideoIns')).videoIns as { name: string }[]
    expect(opened.map((v) => v.name)).toContain(first)
    await run('closeVideoIn', { video: first })
    const after = (await run('getOpenedVideoIns')).videoIns as { name: string }[]
    expect(after.map((v) => v.name)).not.toContain(first)
  })

  it('draws a PNG icon at the requested size and refuses a missing size (getVideoInIcon)', async () => {
    const { image } = await run('getVideoInIcon', { width: 32, height: 18, video: await firstVideoIn() })
    const png = Buffer.from(image!, 'base64')
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(png.readUInt32BE(16)).toBe(32)
    expect(png.readUInt32BE(20)).toBe(18)
    await refused(APP_ERRORS.videoInIconMissing, 'getVideoInIcon', { width: 32, height: 18 })
  })
})

describe('output and streaming', () => {
  it('sets and reads the output device (setOutputDevice, getOutputDevice)', async () => {
    await run('setOutputDevice', { device: 'Fullscreen Display 2', channels: ['0'] })
    expect(await run('getOutputDevice')).toEqual({ device: 'Fullscreen Display 2' })
  })

  it('starts and stops a stream, never echoing the key (startStreaming, getStreamHostServer, stopStreaming)', async () => {
    await run('startStreaming', { choice: 'Custom', serverUrl: 'rtmp://127.0.0.1/live', streamKey: 'pb-key-1' })
    const on = await client.request('getStreamHostServer')
    expectShape(on.reply, COMMANDS.getStreamHostServer.reply, 'getStreamHostServer')
    covered.add('getStreamHostServer')
    expect(on.reply.streaming).toBe(true)
    expect(on.reply.serverUrl).toBe('rtmp://127.0.0.1/live')
    expect(JSON.stringify(on.raw)).not.toContain('pb-key-1')
    const stopped = await run('stopStreaming')
    expect(stopped.folder.length).toBeGreaterThan(0)
    expect(typeof stopped.subfolder).toBe('string')
    expect((await run('getStreamHostServer')).streaming).toBe(false)
  })

  it("answers setStreamHostServers with the contract's own 'unknown command'", async () => {
    await refused(APP_ERRORS.unknownCommand, 'setStreamHostServers', { containerFormat: 'RTMP' })
  })
})

/** The names of the replay inputs. */
async function replayInputs(): Promise<string[]> {
  return ((await run('replay_get_inputs')).inputs as { name: string }[]).map((i) => i.name)
}

/** Arms the first two replay inputs and enables replay with scrubbing; returns the two names. */
async function replayWithScrubbing(): Promise<string[]> {
  const armed = (await replayInputs()).slice(0, 2)
  await run('replay_arm_inputs', { inputs: armed })
  await run('replay_enable')
  await run('replay_enable_scrubbing', { enable: true })
  return armed
}

describe('instant replay', () => {
  it('lists its commands, licence and inputs (replay_commands, replay_is_trial_mode, replay_get_inputs)', async () => {
    const { commands } = await run('replay_commands')
    for (const name of COMMAND_NAMES.filter((n) => n.startsWith('replay_'))) expect(commands).toContain(name)
    expect((await run('replay_is_trial_mode')).isTrial).toBe(false) // the simulator is licensed
    expect((await replayInputs()).length).toBeGreaterThanOrEqual(2)
  })

  it('arms two inputs, seen in the settings (replay_arm_inputs, replay_get_settings)', async () => {
    const inputs = await replayInputs()
    await refused('bad request: instant replay is not armed: no input is armed', 'replay_enable')
    await run('replay_arm_inputs', { inputs: inputs.slice(0, 2) })
    const { settings } = await run('replay_get_settings')
    expect((settings.armedPortList as { name: string }[]).map((p) => p.name)).toEqual(inputs.slice(0, 2))
    expect(settings.bufferLength).toBe(20)
  })

  it('enables replay and scrubbing; the scrub position set is the one play info reports', async () => {
    await run('replay_arm_inputs', { inputs: (await replayInputs()).slice(0, 2) })
    await run('replay_enable')
    await run('replay_enable_scrubbing', { enable: true })
    await run('replay_set_scrub_position', { position: 10 })
    await runWith(post, 'replay_set_in_point', { position: 2.5 })
    await run('replay_set_out_point', { position: 12 })
    expect(await run('replay_get_play_info')).toEqual({
      frameRate: 29.97,
      replayDuration: 9.5,
      replayEnd: 12,
      replayScrubStart: 10,
      replayStart: 2.5,
      replayTime: 10,
    })
  })

  it('sets the speed and settings (replay_set_replay_speed, replay_get_replay_speed, replay_set_settings)', async () => {
    await run('replay_set_replay_speed', { speed: -0.5 })
    expect(await run('replay_get_replay_speed')).toEqual({ speed: -0.5 })
    await run('replay_set_settings', { settings: { transIn: 'Fade In', muteGraphicsOnReplay: true } })
    await runWith(post, 'replay_set_settings', { settings: { bufferLength: 30 } })
    const { settings } = await run('replay_get_settings')
    expect(settings).toMatchObject({
      transIn: 'Fade In',
      muteGraphicsOnReplay: true,
      bufferLength: 30,
      playSpeed: -0.5,
    })
    await refused(APP_ERRORS.invalidParams, 'replay_set_settings', { settings: { bufferLength: -1 } })
  })

  it('toggles play/pause only in replay mode, and enters and leaves playback', async () => {
    await replayWithScrubbing()
    await run('replay_play_pause')
    await run('replay_enter_playback')
    await refused('bad request: instant replay is not in replay mode', 'replay_play_pause')
    await run('replay_exit_playback')
    await run('replay_play_pause')
    await run('replay_enable_scrubbing', { enable: false })
    await refused('bad request: instant replay is not in replay mode', 'replay_set_scrub_position', { position: 1 })
  })

  it('disarming the last inputs disables replay (replay_disarm_inputs)', async () => {
    const armed = await replayWithScrubbing()
    await runWith(post, 'replay_disarm_inputs', { inputs: armed })
    const { inputs: after } = await run('replay_get_inputs')
    expect((after as { armed: boolean }[]).every((i) => !i.armed)).toBe(true)
    await refused('bad request: instant replay is not enabled', 'replay_enter_playback')
  })
})

describe('projects and layer lists', () => {
  it('sets the video format, answered as strings, and marks the project edited', async () => {
    expect(await run('getVideoFormat')).toEqual({ frameRate: '29.97', height: '1080', interlaced: '0', width: '1920' })
    expect(await run('setVideoFormat', { width: 1280, height: 720, frameRate: 50 })).toEqual({
      frameRate: '50',
      height: '720',
      interlaced: '0',
      width: '1280',
    })
    expect((await run('getVideoFormat')).width).toBe('1280')
    expect((await run('checkProjectEdited')).hasChanged).toBe('1')
  })

  it('saves a layer list, clears the channel and loads it back (savePlaylist, clearPlaylist, loadPlaylist)', async () => {
    const before = (await run('getTitlesPlayStatus', { channel: 0 })).titles!.map((t) => t.name)
    expect(before.length).toBeGreaterThan(0)
    await run('savePlaylist', { file: 'pb-list.nblist', channel: 0 })
    await run('clearPlaylist', { channel: 0 })
    expect((await run('getTitlesPlayStatus', { channel: 0 })).titles).toEqual([])
    await run('loadPlaylist', { file: 'pb-list.nblist', channel: 0 })
    expect((await run('getTitlesPlayStatus', { channel: 0 })).titles!.map((t) => t.name)).toEqual(before)
  })

  it('saves the project; it is current and listed in the recent projects (saveProject, getRecentProjects)', async () => {
    expect(await run('saveProject', { file: 'pb-show.nbproj' })).toEqual({})
    const current = await run('getCurrentProject')
    expect(current.filePath).toMatch(/pb-show\.nbproj$/)
    const { recentProjects } = await run('getRecentProjects')
    const entry = recentProjects.find((p) => p.filename === 'pb-show.nbproj')
    expect(entry?.name).toBe('pb-show')
    expect(Number.isInteger(entry?.filesize)).toBe(true)
    expect(entry!.filesize).toBeGreaterThan(0)
  })

  it('closes the project and loads it back with the same titles (closeProject, loadProject)', async () => {
    await run('saveProject', { file: 'pb-show.nbproj' })
    const before = (await run('getTitleControlInfo', { icon: false })).titles.map((t) => t.name)
    const closed = await run('closeProject', { saveProject: false, closeProject: true })
    expect(closed.filePath).toMatch(/pb-show\.nbproj$/)
    expect((await run('getTitleControlInfo', { icon: false })).titles).toEqual([])
    expect(await run('loadProject', { file: 'pb-show.nbproj', autoCache: true })).toEqual({})
    expect((await run('getTitleControlInfo', { icon: false })).titles.map((t) => t.name)).toEqual(before)
    const status = await run('checkProjectEdited')
    expect(status.isCached).toBe('1')
    expect(status.hasChanged).toBe('0')
  })
})

describe('notifications', () => {
  it('creates a sender and appends to it (subscribe, getSubscriptions)', async () => {
    expect(await run('subscribe', { sender: 'pb', events: 'play', id: '', input: '' })).toEqual({})
    await runWith(post, 'subscribe', { sender: 'pb', events: 'data' })
    const reply = await run('getSubscriptions', { sender: 'pb' })
    expect(reply.sender).toBe('pb')
    expect(reply.senders).toHaveLength(1)
    expect(reply.senders[0]).toMatchObject({ name: 'pb', events: 'play,data', is_default: '0' })
  })

  it('removes events and refuses the default sender (unSubscribe)', async () => {
    await run('subscribe', { sender: 'pb', events: 'play,data', id: '', input: '' })
    expect(await run('unSubscribe', { sender: 'pb', events: 'data' })).toEqual({ id: '' })
    expect((await run('getSubscriptions', { sender: 'pb' })).senders[0]!.events).toBe('play')
    await refused(APP_ERRORS.unsubscribeDefault, 'unSubscribe', { sender: '', events: 'play' })
    const all = await run('getSubscriptions', { sender: '' })
    expect(all.senders.find((s) => s.is_default === '1')?.name).toBe('')
  })
})

describe('requestId', () => {
  it('is echoed in result.requestId over GET and POST', async () => {
    const viaGet = await client.request('getOutputDevice', {}, { requestId: 'get 1' })
    expect(viaGet.raw.requestId).toBe('get 1')
    const viaPost = await post.request('getOutputDevice', {}, { requestId: 'post-1' })
    expect(viaPost.raw.requestId).toBe('post-1')
    expect(viaPost.reply.device).toBe(viaGet.reply.device)
  })
})
