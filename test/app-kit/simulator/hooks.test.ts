/**
 * The simulator's HTTP test hooks (Groundwork item 7): reply delays, in-flight high-water marks, the
 * command log; `sim --log-commands FILE` in its own process; the cameras open from the start.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { CommandClient } from '../../../src/api/client.js'
import { startSimulator } from '../../../src/app-kit/simulator/index.js'
import { runCli } from '../../helpers/cli.js'

async function setup(options: Parameters<typeof startSimulator>[0] = {}) {
  const sim = await startSimulator(options)
  const client = new CommandClient({ baseUrl: sim.httpUrl, timeoutMs: 5000 })
  onTestFinished(() => sim.close())
  onTestFinished(() => client.close())
  return { sim, client }
}

describe('HTTP hooks', () => {
  it('delays one command, counts what is in flight and keeps the high-water mark', async () => {
    const { sim, client } = await setup()
    // Long enough that all three are held at once even on a loaded machine; the poll ends it early.
    sim.http.setDelay('getVideoFormat', 1500)
    const calls = [client.call('getVideoFormat'), client.call('getVideoFormat'), client.call('getVideoFormat')]
    await expect.poll(() => sim.http.inFlight('getVideoFormat'), { timeout: 1400, interval: 5 }).toBe(3)
    await client.call('getAllVideoIns') // not delayed: answered while the three wait
    expect(sim.http.inFlight('getVideoFormat')).toBe(3)
    await Promise.all(calls)
    expect(sim.http.inFlight('getVideoFormat')).toBe(0)
    expect(sim.http.highWater('getVideoFormat')).toBe(3)
    expect(sim.http.highWater('getAllVideoIns')).toBe(1)
  })

  it('logs every command with its parameters and transport, stream keys redacted', async () => {
    const { sim, client } = await setup()
    await client.call('switchVideoIn', { channel: 0, video: 'Camera 2' })
    await client.call('schedule', { action: 'cutin', title: 'Lower Third' }, { transport: 'post' })
    await client.callByName('startStreaming', {
      choice: 'X',
      serverUrl: 'rtmp://example.invalid/live',
      streamKey: 'sk-secret',
    })
    expect(sim.http.log.map((e) => [e.name, e.transport])).toEqual([
      ['switchVideoIn', 'get'],
      ['schedule', 'api'],
      ['startStreaming', 'get'],
    ])
    expect(sim.http.commands('switchVideoIn')[0]!.parameters).toMatchObject({ channel: '0', video: 'Camera 2' })
    expect(sim.http.commands('schedule')[0]!.parameters).toMatchObject({ action: 'cutin', title: 'Lower Third' })
    expect(JSON.stringify(sim.http.log)).not.toContain('sk-secret')
    expect(sim.http.commands('startStreaming')[0]!.parameters.streamKey).toBe('***')
  })

  it('keeps only the newest commandLogMax entries, and none at 0 while the file still gets every line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-hooks-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const small = await setup({ commandLogMax: 2 })
    for (const channel of [0, 1, 2]) await small.client.call('switchVideoIn', { channel, video: 'Camera 1' })
    expect(small.sim.http.log.map((e) => e.parameters.channel)).toEqual(['1', '2'])

    const file = join(dir, 'commands.jsonl')
    const none = await setup({ commandLogMax: 0, logCommands: file })
    await none.client.call('getAllVideoIns')
    await none.client.call('getVideoFormat')
    expect(none.sim.http.log).toEqual([])
    const lines = (await readFile(file, 'utf8')).trim().split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { name: string }).name)).toEqual(['getAllVideoIns', 'getVideoFormat'])
  })

  it('opens Camera 1 and Camera 2 at start, so switchVideoIn works out of the box', async () => {
    const { sim, client } = await setup()
    await expect(client.call('switchVideoIn', { channel: 0, video: 'Camera 1' })).resolves.toEqual({})
    expect(sim.state.switcher.get(0)).toBe('Camera 1')
  })
})

describe('panelbridge sim --log-commands', () => {
  it('writes one JSON line per received command, readable from another process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-log-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'commands.jsonl')
    const sim = runCli(['sim', '--port', '0', '--ws-port', '0', '--log-commands', file])
    const url = (await sim.waitFor(/listening on (http:\/\/\S+)/))[1]!
    await fetch(`${url}/api/command/switchVideoIn?channel=0&video=Camera%202&requestId=a`)
    await fetch(`${url}/api`, { method: 'POST', body: JSON.stringify({ command: 'getVideoFormat', parameters: {} }) })
    const lines = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => [l.name, l.transport])).toEqual([
      ['switchVideoIn', 'get'],
      ['getVideoFormat', 'api'],
    ])
    expect(lines[0]!.parameters).toEqual({ channel: '0', video: 'Camera 2', requestId: 'a' })
    expect(Date.parse(lines[0]!.time as string)).not.toBeNaN()
    sim.child.kill('SIGTERM')
    expect(await sim.exited).toBe(0)
  })
})
