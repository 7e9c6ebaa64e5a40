/** Every error string of the contract's Errors table, exactly, in the condition it names. */
import { describe, expect, it } from 'vitest'
import { APP_ERRORS } from '../../../src/api/protocol.js'
import { useTestSim } from './helpers.js'

const t = useTestSim('file')

describe('contract error strings', () => {
  it('getTimelineDuration without a known title', async () => {
    const cases: Record<string, string>[] = [
      {},
      { title: 'No Such Title' },
      { id: '{00000000-0000-4000-8000-000000000000}' },
    ]
    for (const params of cases) {
      const r = await t.cmd('getTimelineDuration', params)
      expect(r.error).toBe("unable to find title from 'title' or 'id' attributes")
      expect(r.success).toBe(true)
    }
  })

  it('selectTitle with an unknown title name', async () => {
    expect((await t.cmd('selectTitle', { title: 'Nope' })).error).toBe('No such title name')
  })

  it('setTitleName without a title found', async () => {
    expect((await t.cmd('setTitleName', { title: 'Nope', newName: 'X' })).error).toBe('no title found.')
    expect((await t.cmd('setTitleName', { newName: 'X' })).error).toBe('no title found.')
  })

  it('getVideoInIcon with width, height or video missing', async () => {
    const full = { width: 64, height: 36, video: 'Camera 1' }
    for (const missing of ['width', 'height', 'video'] as const) {
      const params: Record<string, string | number> = { ...full }
      delete params[missing]
      expect((await t.cmd('getVideoInIcon', params)).error).toBe('missing width or height or video attributes')
    }
    const ok = await t.ok('getVideoInIcon', full)
    const png = Buffer.from(ok.image as string, 'base64')
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    expect(png.readUInt32BE(16)).toBe(64) // IHDR width
    expect(png.readUInt32BE(20)).toBe(36) // IHDR height
  })

  it('setStreamHostServers is always an unknown command', async () => {
    expect((await t.cmd('setStreamHostServers', { containerFormat: 'RTMP' })).error).toBe('unknown command')
  })

  it('replay_set_replay_speed with invalid params', async () => {
    expect((await t.cmd('replay_set_replay_speed', { speed: 'fast' })).error).toBe('invalid params')
    expect((await t.cmd('replay_set_replay_speed')).error).toBe('invalid params')
    await t.ok('replay_set_replay_speed', { speed: -0.5 })
    expect((await t.ok('replay_get_replay_speed')).speed).toBe(-0.5)
  })

  it('unSubscribe of the default sender', async () => {
    const r = await t.cmd('unSubscribe', { sender: '', events: 'play' })
    expect(r.error).toBe('cannot do an unsubscribe with the default notification sender')
  })

  it('an unknown command name, with the request id still echoed', async () => {
    const r = await t.cmd('playTitle', { requestId: 'q7' })
    expect(r).toEqual({
      command: 'playTitle',
      reply: 'playTitle',
      success: true,
      requestId: 'q7',
      error: APP_ERRORS.unknownCommand,
    })
  })
})
