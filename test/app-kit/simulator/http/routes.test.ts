/** The HTTP side: GET and POST forms, variables, envelopes, status codes, a server that survives bad input. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { APP_ERRORS } from '../../../../src/api/protocol.js'
import { startSimulator } from '../../../../src/app-kit/simulator/index.js'
import { startTestSim, type TestSim } from '../helpers.js'

let t: TestSim
beforeEach(async () => {
  t = await startTestSim(30)
})
afterEach(async () => {
  await t.close()
})

const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'
const variable = (title: string, name: string): string | undefined =>
  t.sim.state.titleByNameOrId(title)?.variables.find((v) => v.name === name)?.value

describe('GET /api/command/<name>', () => {
  it('answers HTTP 200 JSON with the envelope and the echoed requestId', async () => {
    const res = await fetch(`${t.sim.httpUrl}/api/command/getAllVideoIns?requestId=r1`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await res.json()) as { result: { count: unknown } }
    expect(body.result).toMatchObject({
      command: 'getAllVideoIns',
      reply: 'getAllVideoIns',
      success: true,
      requestId: 'r1',
    })
    expect(body.result.count).toBe('5')
  })

  it('loadProject, saveProject and subscribe answer a bare {} even with a requestId', async () => {
    expect(await t.raw('saveProject', { file: 'a.nbproj', requestId: 'x1' })).toEqual({})
    expect(await t.raw('loadProject', { file: 'a.nbproj', requestId: 'x2' })).toEqual({})
    expect(await t.raw('subscribe', { sender: 's', events: 'play', requestId: 'x3' })).toEqual({})
  })

  it('schedule takes variables as extra query parameters or as JSON text in `variables`', async () => {
    await t.ok('schedule', { action: 'still', title: 'Score Bug', 'Home Score': '7' })
    expect(variable('Score Bug', 'Home Score')).toBe('7')
    await t.ok('schedule', { action: 'update', id: SCORE_BUG, variables: JSON.stringify({ 'Away Score': '9' }) })
    expect(variable('Score Bug', 'Away Score')).toBe('9')
  })

  it('plays a title: Running, then Paused once the in-animation is over', async () => {
    // The order is read from the play notifications, not by polling inside the 30 ms animation
    // window: on a loaded machine a poll can land after the animation has ended.
    const seen: string[] = []
    const paused = new Promise<void>((resolve) => {
      t.sim.state.notifications.on('notify', (p) => {
        if ('play' in p && 'id' in p && p.id === SCORE_BUG) seen.push(String(p.play))
        if ('play' in p && p.play === 'Paused') resolve()
      })
    })
    await t.ok('schedule', { action: 'animateIn', title: 'Score Bug' })
    await paused
    expect(seen).toEqual(['Running', 'Paused'])
    expect((await t.ok('getPlayStatus', { id: SCORE_BUG })).play).toBe('Paused')
    const all = await t.ok('getTitlesPlayStatus')
    expect(all.titles.find((x: { id: string }) => x.id === SCORE_BUG).play).toBe('Paused')
    const inputs = await t.ok('getInputsPlayStatus', { channel: -1 })
    expect(inputs.inputs).toContainEqual({ name: 'Scoreboard', play: 'Paused', titles: 1 })
    expect(inputs.inputs).toContainEqual({ name: 'Newsroom', play: 'Off', titles: 2 })
  })

  it('reports Running while the in-animation lasts', async () => {
    const slow = await startSimulator({ httpPort: 0, animationMs: 60_000 })
    try {
      const get = async (command: string, params: Record<string, string>) => {
        const q = new URLSearchParams(params).toString()
        return (
          (await (await fetch(`${slow.httpUrl}/api/command/${command}?${q}`)).json()) as { result: { play?: string } }
        ).result
      }
      await get('schedule', { action: 'animateIn', title: 'Score Bug' })
      expect((await get('getPlayStatus', { title: 'Score Bug' })).play).toBe('Running')
    } finally {
      await slow.close()
    }
  })
})

describe('POST', () => {
  it('POST /api and /api/ run {command, parameters, variables}', async () => {
    for (const path of ['/api', '/api/']) {
      const r = await t.post(path, {
        command: 'schedule',
        parameters: { action: 'still', title: 'Clock', requestId: path },
        variables: { Time: path },
      })
      expect(r.status).toBe(200)
      expect(r.body.result).toMatchObject({ command: 'schedule', requestId: path })
      expect(r.body.result.error).toBeUndefined()
      expect(variable('Clock', 'Time')).toBe(path)
    }
    const top = await t.post('/api', { command: 'getOutputDevice', requestId: 'top' })
    expect(top.body.result).toMatchObject({ device: 'NDI', requestId: 'top' })
  })

  it('POST /api with {action, input, title, variables} is a scheduleAction', async () => {
    const r = await t.post('/api', {
      action: 'cutin',
      title: 'Lower Third',
      variables: [{ name: 'Name', value: 'Jo Park' }],
    })
    expect(r.body.result.error).toBeUndefined()
    expect(t.sim.state.titleByNameOrId('Lower Third')!.playState).toBe('Paused')
    expect(variable('Lower Third', 'Name')).toBe('Jo Park')
    await t.post('/api', { action: 'cutin', input: 'Scoreboard' })
    expect(t.sim.state.titleByNameOrId('Score Bug')!.playState).toBe('Paused')
    expect(t.sim.state.titleByNameOrId('Clock')!.playState).toBe('Off')
  })

  it('POST /api/command/schedule with the variables as the JSON body', async () => {
    const r = await t.post('/api/command/schedule?action=still&title=Score%20Bug&requestId=p1', { Period: '3rd' })
    expect(r.body.result).toMatchObject({ command: 'schedule', requestId: 'p1' })
    expect(variable('Score Bug', 'Period')).toBe('3rd')
  })

  it('bad bodies answer HTTP 200 with bad request, and the server keeps serving', async () => {
    const broken = await t.post('/api', '{"command": ')
    expect(broken.status).toBe(200)
    expect(broken.body.result.error).toBe(APP_ERRORS.badRequest)
    const noCommand = await t.post('/api', { hello: 'world' })
    expect(noCommand.body.result.error).toBe(APP_ERRORS.badRequest)
    const unknown = await t.post('/api', { command: 'frobnicate', parameters: { requestId: 'u' } })
    expect(unknown.body.result).toMatchObject({ error: APP_ERRORS.unknownCommand, requestId: 'u' })
    expect((await t.ok('getOutputDevice')).device).toBe('NDI')
  })
})

it('keeps a data folder it was given', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-given-'))
  const sim = await startSimulator({ dataDir: dir })
  await sim.close()
  expect(existsSync(join(dir, 'Evening News.nbproj'))).toBe(true)
  rmSync(dir, { recursive: true })
})

describe('not a command', () => {
  it('other paths are 404, other methods 405, oversized bodies 413', async () => {
    expect((await fetch(`${t.sim.httpUrl}/nothing`)).status).toBe(404)
    expect((await fetch(`${t.sim.httpUrl}/api/command/getOutputDevice`, { method: 'PUT' })).status).toBe(405)
    expect((await fetch(`${t.sim.httpUrl}/api`)).status).toBe(405)
    expect((await fetch(`${t.sim.httpUrl}/api/command/bad%E0%A4%A`)).status).toBe(400)
    const big = await fetch(`${t.sim.httpUrl}/api`, { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) }).then(
      (r) => r.status,
      () => 413, // the server may cut the upload short: the request fails on the client side
    )
    expect(big).toBe(413)
    expect((await t.ok('getOutputDevice')).device).toBe('NDI')
  })

  it('close() frees the port, stops answering and removes the temporary data folder', async () => {
    const url = t.sim.httpUrl
    const dir = t.sim.state.dataDir
    expect(existsSync(join(dir, 'Evening News.nbproj'))).toBe(true)
    await t.close()
    await expect(fetch(`${url}/api/command/getOutputDevice`)).rejects.toThrow()
    expect(existsSync(dir)).toBe(false)
    t = await startTestSim() // a fresh one for afterEach to close
  })
})
