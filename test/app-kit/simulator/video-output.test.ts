/** Video inputs, the output device and streaming. */
import { describe, expect, it } from 'vitest'
import { APP_ERRORS } from '../../../src/api/protocol.js'
import { setLogSink, type LogRecord } from '../../../src/log.js'
import { pluck, useTestSim } from './helpers.js'

const t = useTestSim()

describe('video inputs', () => {
  it('getAllVideoIns: count as a string, names as strings; verbose adds details', async () => {
    const r = await t.ok('getAllVideoIns')
    expect(r.count).toBe(String(r.videoIns.length))
    expect(r.videoIns.length).toBeGreaterThanOrEqual(4)
    expect(r.details).toBeUndefined()
    const v = await t.ok('getAllVideoIns', { verbose: 1 })
    expect(pluck(v.details, 'name')).toEqual(r.videoIns)
  })

  it('starts with both cameras open; an input opened is listed by getOpenedVideoIns and gone after closeVideoIn', async () => {
    expect(pluck((await t.ok('getOpenedVideoIns')).videoIns, 'name')).toEqual(['Camera 1', 'Camera 2'])
    await t.ok('closeVideoIn', { video: 'Camera 1' })
    await t.ok('openVideoIn', { video: 'HDMI Capture' })
    let opened = (await t.ok('getOpenedVideoIns')).videoIns
    expect(pluck(opened, 'name')).toEqual(['Camera 2', 'HDMI Capture'])
    expect(opened[0]).toMatchObject({ type: 'SDI' })
    expect((await t.ok('getVideoInInfo', { videoIn: 'Camera 2' })).videoIns[0].add).toBe('0')
    await t.ok('closeVideoIn', { video: 'Camera 2' })
    opened = (await t.ok('getOpenedVideoIns')).videoIns
    expect(pluck(opened, 'name')).toEqual(['HDMI Capture'])
    expect((await t.cmd('closeVideoIn', { video: 'Camera 2' })).error).toBe(
      "bad request: video input 'Camera 2' is not opened",
    )
    expect((await t.cmd('openVideoIn', { video: 'Camera 99' })).error).toBe(APP_ERRORS.invalidParams)
    // closeVideoIn takes `video`, not `videoIn`
    expect((await t.cmd('closeVideoIn', { videoIn: 'HDMI Capture' })).error).toBe(APP_ERRORS.invalidParams)
  })

  it('getVideoInInfo items carry the contract fields as strings', async () => {
    const items = (await t.ok('getVideoInInfo')).videoIns
    expect(items.length).toBeGreaterThanOrEqual(4)
    for (const i of items) {
      expect(Object.keys(i).sort()).toEqual(['add', 'audio', 'config', 'name', 'setup', 'type', 'video'])
      expect(i.config).toMatch(/^[0-9a-f-]{36}$/)
      for (const k of ['add', 'audio', 'setup', 'video']) expect(['0', '1']).toContain(i[k])
    }
  })

  it('switchVideoIn needs a channel and an opened device', async () => {
    expect((await t.cmd('switchVideoIn', { video: 'Camera 1' })).error).toBe(APP_ERRORS.invalidParams)
    await t.ok('closeVideoIn', { video: 'Camera 1' })
    expect((await t.cmd('switchVideoIn', { video: 'Camera 1', channel: 0 })).error).toBe(
      "bad request: video input 'Camera 1' is not opened",
    )
    await t.ok('openVideoIn', { video: 'Camera 1' })
    await t.ok('switchVideoIn', { video: 'Camera 1', channel: 1 })
    const opened = (await t.ok('getOpenedVideoIns')).videoIns
    expect(opened.find((v: { name: string }) => v.name === 'Camera 1').activeChannels).toEqual([1])
  })

  it('getVideoInIcon refuses sizes that are not positive numbers', async () => {
    expect((await t.cmd('getVideoInIcon', { width: 'big', height: 10, video: 'Camera 1' })).error).toBe(
      APP_ERRORS.invalidParams,
    )
    expect((await t.cmd('getVideoInIcon', { width: 0, height: 10, video: 'Camera 1' })).error).toBe(
      APP_ERRORS.invalidParams,
    )
    expect((await t.cmd('getVideoInIcon', { width: 10, height: 10, video: 'Camera 99' })).error).toBe(
      APP_ERRORS.invalidParams,
    )
  })
})

describe('output and streaming', () => {
  it('setOutputDevice changes what getOutputDevice answers', async () => {
    expect((await t.ok('getOutputDevice')).device).toBe('NDI')
    await t.ok('setOutputDevice', { device: 'Blackmagic DeckLink Duo 2', channels: '0,1' })
    expect((await t.ok('getOutputDevice')).device).toBe('Blackmagic DeckLink Duo 2')
    expect(t.sim.state.output.channels).toEqual([0, 1])
    expect((await t.cmd('setOutputDevice', { device: 'Toaster' })).error).toBe(APP_ERRORS.invalidParams)
    expect((await t.cmd('setOutputDevice', { device: 'NDI', channels: 'one' })).error).toBe(APP_ERRORS.invalidParams)
  })

  it('startStreaming/stopStreaming move the stream state and never log or echo the stream key', async () => {
    const records: LogRecord[] = []
    const previous = setLogSink((r) => records.push(r))
    try {
      const key = 'live_8f3k2-SECRET-key'
      expect((await t.cmd('stopStreaming')).error).toBe('bad request: not streaming')
      expect((await t.cmd('startStreaming', { serverUrl: 'http://x', streamKey: key })).error).toBe(
        APP_ERRORS.invalidParams,
      )
      expect((await t.cmd('startStreaming', { serverUrl: 'rtmp://a.rtmp.youtube.com/live2' })).error).toBe(
        APP_ERRORS.invalidParams,
      )
      const started = await t.ok('startStreaming', {
        choice: 'YouTube',
        serverUrl: 'rtmp://a.rtmp.youtube.com/live2',
        streamKey: key,
      })
      const info = await t.ok('getStreamHostServer')
      expect(info).toMatchObject({ streaming: true, choice: 'YouTube', serverUrl: 'rtmp://a.rtmp.youtube.com/live2' })
      expect((await t.cmd('startStreaming', { serverUrl: 'rtmp://x/y', streamKey: key })).error).toBe(
        'bad request: already streaming',
      )
      const stopped = await t.ok('stopStreaming')
      expect(typeof stopped.folder).toBe('string')
      expect(stopped.subfolder).toMatch(/^\d{4}-\d\d-\d\dT/)
      expect((await t.ok('getStreamHostServer')).streaming).toBe(false)
      const everything = JSON.stringify([records, started, info, stopped, t.sim.state.stream])
      expect(everything).not.toContain(key)
    } finally {
      setLogSink(previous)
    }
  })
})
