/**
 * Client behaviour against a raw loopback server that records each request and answers with a
 * scripted body: encoding, transports, requestIds, envelope variants and type conversion.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CommandClient, type CallRecord } from '../../../src/api/client.js'
import { formDecode } from '../../../src/api/codec.js'
import { CommandError } from '../../../src/api/errors.js'

interface Seen {
  method: string
  url: string
  body: string
}
type Responder = (req: Seen) => unknown

/** A loopback server that answers every request with `respond(req)` as JSON (a string is sent as is). */
class ScriptedServer {
  readonly seen: Seen[] = []
  connections = 0
  respond: Responder = (req) => echo(req)
  private server: Server | undefined

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk: string) => (body += chunk))
      req.on('end', () => {
        const seen = { method: req.method ?? '', url: req.url ?? '', body }
        this.seen.push(seen)
        const out = this.respond(seen)
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(typeof out === 'string' ? out : JSON.stringify(out))
      })
    })
    this.server.on('connection', () => this.connections++)
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => this.server?.close(() => resolve()))
  }
}

/** The command name and requestId of a request, from either transport. */
function requestOf(req: Seen): { command: string; requestId: string | null; params: Record<string, unknown> } {
  if (req.method === 'POST') {
    const body = JSON.parse(req.body) as { command: string; parameters: Record<string, unknown> }
    return { command: body.command, requestId: (body.parameters.requestId as string) ?? null, params: body.parameters }
  }
  const url = new URL(req.url, 'http://x')
  return {
    command: url.pathname.split('/').pop()!,
    requestId: url.searchParams.get('requestId'),
    params: Object.fromEntries(url.searchParams),
  }
}

/** A well-formed success envelope echoing command and requestId, plus `fields`. */
function echo(req: Seen, fields: Record<string, unknown> = {}): unknown {
  const { command, requestId } = requestOf(req)
  return { result: { command, reply: command, success: true, requestId, ...fields } }
}

/** The raw query text after `?`, without the trailing requestId. */
function queryOf(req: Seen): string {
  const q = req.url.slice(req.url.indexOf('?') + 1)
  return q.replace(/&?requestId=[^&]*$/, '')
}

let server: ScriptedServer
let base: string
let client: CommandClient

beforeEach(async () => {
  server = new ScriptedServer()
  base = await server.start()
  client = new CommandClient({ baseUrl: base })
})
afterEach(async () => {
  await client.close()
  await server.stop()
})

describe('GET encoding', () => {
  it('sends GET /api/command/<name> with spaces as %20, never +', async () => {
    await client.call('setTitleName', { title: 'Lower Third', newName: 'New Title & More' })
    const req = server.seen[0]!
    expect(req.method).toBe('GET')
    expect(req.url.startsWith('/api/command/setTitleName?')).toBe(true)
    expect(queryOf(req)).toBe('title=Lower%20Third&newName=New%20Title%20%26%20More')
    expect(req.url).not.toContain('+')
  })

  it('encodes braced UUIDs, numbers, flags and word booleans', async () => {
    await client.call('duplicateTitle', { id: '{abc-1}', newPosition: 3, channel: 0 }).catch(() => undefined)
    expect(queryOf(server.seen[0]!)).toBe('id=%7Babc-1%7D&newPosition=3&channel=0')
    await client.call('setTitleInput', { title: 'T', input: 'Cam 1', merge: true })
    expect(queryOf(server.seen[1]!)).toBe('title=T&input=Cam%201&merge=1')
    await client.call('closeProject', { saveProject: false, closeProject: true }).catch(() => undefined)
    expect(queryOf(server.seen[2]!)).toBe('saveProject=0&closeProject=1')
    await client.call('replay_enable_scrubbing', { enable: true })
    expect(queryOf(server.seen[3]!)).toBe('enable=true')
  })

  it('sends arrays comma-separated and objects as JSON text', async () => {
    await client.call('replay_arm_inputs', { inputs: ['Cam 1', 'USB Camera VID:1133'] })
    expect(queryOf(server.seen[0]!)).toBe('inputs=Cam%201,USB%20Camera%20VID%3A1133')
    const url0 = new URL(server.seen[0]!.url, base)
    expect(url0.searchParams.get('inputs')!.split(',')).toEqual(['Cam 1', 'USB Camera VID:1133'])

    const settings = { bufferLength: 30, transIn: 'Fade In', muteGraphicsOnReplay: true }
    await client.call('replay_set_settings', { settings })
    const url1 = new URL(server.seen[1]!.url, base)
    expect(JSON.parse(url1.searchParams.get('settings')!)).toEqual(settings)
    expect(server.seen[1]!.url).not.toContain('+')
  })

  it('keeps a path prefix of the base URL', async () => {
    const prefixed = new CommandClient({ baseUrl: `${base}/app/` })
    try {
      await prefixed.call('closeDesigner')
      expect(server.seen[0]!.url.startsWith('/app/api/command/closeDesigner?requestId=')).toBe(true)
    } finally {
      await prefixed.close()
    }
  })
})

describe('POST transport', () => {
  it('sends {command, parameters} with native arrays, objects and numbers, flags as strings', async () => {
    const post = new CommandClient({ baseUrl: base, transport: 'post' })
    try {
      await post.call('replay_arm_inputs', { inputs: ['Cam 1', 'Cam 2'] })
      await post.call('setTitleInput', { title: 'T', input: 'Cam 1', merge: true })
      await post.call('replay_set_scrub_position', { position: 3.2 })
      const [arm, setInput, scrub] = server.seen
      expect(arm!.method).toBe('POST')
      expect(arm!.url).toBe('/api')
      const armBody = JSON.parse(arm!.body)
      expect(armBody.command).toBe('replay_arm_inputs')
      expect(armBody.parameters.inputs).toEqual(['Cam 1', 'Cam 2'])
      expect(typeof armBody.parameters.requestId).toBe('string')
      expect(JSON.parse(setInput!.body).parameters).toMatchObject({ title: 'T', input: 'Cam 1', merge: '1' })
      expect(JSON.parse(scrub!.body).parameters.position).toBe(3.2)
    } finally {
      await post.close()
    }
  })

  it('puts schedule variables beside the parameters, and can be chosen per call', async () => {
    await client.call(
      'schedule',
      { action: 'update', title: 'Score', variables: { Home: '2', Away: '1' } },
      { transport: 'post' },
    )
    const body = JSON.parse(server.seen[0]!.body)
    expect(body.command).toBe('schedule')
    expect(body.parameters).toMatchObject({ action: 'update', title: 'Score' })
    expect(body.parameters.variables).toBeUndefined()
    expect(body.variables).toEqual({ Home: '2', Away: '1' })
  })
})

describe('requestId', () => {
  it('generates a distinct id for every call and accepts a caller id', async () => {
    await client.call('closeDesigner')
    await client.call('closeDesigner')
    const r = await client.request('closeDesigner', {}, { requestId: 'press 42' })
    const ids = server.seen.map((s) => requestOf(s).requestId)
    expect(ids[0]).toBeTruthy()
    expect(ids[0]).not.toBe(ids[1])
    expect(ids[2]).toBe('press 42')
    expect(server.seen[2]!.url).toContain('requestId=press%2042')
    expect(r.requestId).toBe('press 42')
  })

  it('accepts a reply without a requestId echo', async () => {
    server.respond = () => ({
      result: { command: 'getOutputDevice', reply: 'getOutputDevice', success: true, device: 'NDI' },
    })
    await expect(client.call('getOutputDevice')).resolves.toEqual({ device: 'NDI' })
  })
})

describe('envelope', () => {
  it('accepts a bare {} for loadProject, saveProject and subscribe', async () => {
    server.respond = () => ({})
    await expect(client.call('loadProject', { file: '/tmp/a.nbproj' })).resolves.toEqual({})
    await expect(client.call('saveProject', {})).resolves.toEqual({})
    const r = await client.request('subscribe', { sender: 'pb', events: 'play,data' })
    expect(r.raw).toEqual({})
  })

  it('refuses a bare {} for any other command', async () => {
    server.respond = () => ({})
    await expect(client.call('closeDesigner')).rejects.toMatchObject({ code: 'BAD_ENVELOPE', command: 'closeDesigner' })
  })

  it('accepts the removeTitleInput → setTitleInput alias, and only for that command', async () => {
    server.respond = (req) => {
      const { requestId } = requestOf(req)
      return { result: { command: 'setTitleInput', reply: 'setTitleInput', success: true, requestId } }
    }
    await expect(client.call('removeTitleInput', { title: 'T', input: 'Cam 1' })).resolves.toEqual({})
    await expect(client.call('setTitleName', { title: 'T', newName: 'U' })).rejects.toMatchObject({
      code: 'BAD_ENVELOPE',
    })
  })

  it('returns the raw result and a latency with request()', async () => {
    server.respond = (req) => echo(req, { device: 'NDI', extra: 'kept' })
    const r = await client.request('getOutputDevice')
    expect(r.command).toBe('getOutputDevice')
    expect(r.reply).toEqual({ device: 'NDI' })
    expect(r.raw.extra).toBe('kept')
    expect(r.latencyMs).toBeGreaterThanOrEqual(0)
  })
})

describe('type conversion', () => {
  it('converts numeric strings to numbers and string booleans to booleans', async () => {
    server.respond = (req) =>
      echo(req, {
        frameRate: '29.97',
        replayDuration: 20,
        replayEnd: '20',
        replayScrubStart: '0',
        replayStart: 0,
        replayTime: '3.2',
      })
    await expect(client.call('replay_get_play_info')).resolves.toEqual({
      frameRate: 29.97,
      replayDuration: 20,
      replayEnd: 20,
      replayScrubStart: 0,
      replayStart: 0,
      replayTime: 3.2,
    })
    for (const [sent, expected] of [
      ['True', true],
      ['false', false],
      [1, true],
      ['0', false],
      [true, true],
    ] as const) {
      server.respond = (req) => echo(req, { isTrial: sent })
      await expect(client.call('replay_is_trial_mode')).resolves.toEqual({ isTrial: expected })
    }
  })

  it("turns numbers into strings where the contract says string, and flags into '0'/'1'", async () => {
    server.respond = (req) => echo(req, { count: 4, videoIns: ['A', 'B', 'C', 'D'] })
    await expect(client.call('getAllVideoIns')).resolves.toEqual({ count: '4', videoIns: ['A', 'B', 'C', 'D'] })
    server.respond = (req) =>
      echo(req, {
        filePath: '/p.nbproj',
        hasChanged: 1,
        isCached: false,
        isCustomized: '0',
        isLibraryScene: 'true',
        newFilePath: '',
      })
    await expect(client.call('checkProjectEdited')).resolves.toEqual({
      filePath: '/p.nbproj',
      hasChanged: '1',
      isCached: '0',
      isCustomized: '0',
      isLibraryScene: '1',
      newFilePath: '',
    })
  })

  it('converts nested objects and keeps their unknown fields', async () => {
    server.respond = (req) =>
      echo(req, {
        recentProjects: [{ name: 'Show', filesize: '2048', tags: [], extra: 'x' }],
      })
    const reply = await client.call('getRecentProjects')
    expect(reply.recentProjects[0]).toEqual({ name: 'Show', filesize: 2048, tags: [], extra: 'x' })
    server.respond = (req) =>
      echo(req, { settings: { bufferLength: '20', muteGraphicsOnReplay: 'false', playSpeed: 1 } })
    const settings = await client.call('replay_get_settings')
    expect(settings.settings).toEqual({ bufferLength: 20, muteGraphicsOnReplay: false, playSpeed: 1 })
  })

  it('decodes the +-encoded echo of duplicateTitle', async () => {
    server.respond = (req) => echo(req, { id: '{new-1}', title: 'New+Title+Name' })
    await expect(client.call('duplicateTitle', { title: 'Old', newName: 'New Title Name' })).resolves.toEqual({
      id: '{new-1}',
      title: 'New Title Name',
    })
  })

  it('formDecode handles percent escapes and leaves a lone % alone', () => {
    expect(formDecode('A+B%26C')).toBe('A B&C')
    expect(formDecode('100%+Live')).toBe('100% Live')
    expect(formDecode('Plain')).toBe('Plain')
  })

  it('leaves out a missing optional field', async () => {
    server.respond = (req) => echo(req)
    await expect(client.call('getCurrentProject')).resolves.toEqual({})
  })
})

describe('parameters checked before sending', () => {
  it('refuses unknown commands, unknown or missing parameters and wrong types, sending nothing', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['noSuchCommand', {}],
      ['toString', {}],
      ['replay_set_scrub_position', {}],
      ['replay_set_scrub_position', { position: 'abc' }],
      ['replay_set_scrub_position', { position: 1, extra: 2 }],
      ['replay_arm_inputs', { inputs: 'Cam 1' }],
      ['schedule', { action: 'playNow' }],
      ['setTitleInput', { merge: 'yes' }],
      ['replay_set_settings', { settings: [1, 2] }],
    ]
    for (const [name, params] of cases) {
      const err: unknown = await client.callByName(name, params).catch((e: unknown) => e)
      expect(err, `${name} ${JSON.stringify(params)}`).toBeInstanceOf(CommandError)
      expect((err as CommandError).code, name).toBe('BAD_PARAMS')
    }
    expect(server.seen).toHaveLength(0)
  })

  it('accepts numeric text for a number at run time and sends it as a number', async () => {
    const r = await client.callByName('replay_set_scrub_position', { position: '2.5' })
    expect(r.command).toBe('replay_set_scrub_position')
    expect(queryOf(server.seen[0]!)).toBe('position=2.5')
  })

  it('checks parameters at compile time', async () => {
    // @ts-expect-error position must be a number
    await client.call('replay_set_scrub_position', { position: 'three' }).catch(() => undefined)
    // @ts-expect-error action must be one of the schedule actions
    await client.call('schedule', { action: 'playNow' }).catch(() => undefined)
    // The run-time check refused both, so nothing reached the server.
    expect(server.seen).toHaveLength(0)
  })
})

describe('connections and observers', () => {
  it('reuses keep-alive connections across sequential calls', async () => {
    for (let i = 0; i < 50; i++) await client.call('closeDesigner')
    expect(server.seen).toHaveLength(50)
    // The pool may open a second socket while the first is being released; it never opens one per call.
    expect(server.connections).toBeLessThanOrEqual(2)
  })

  it('reports each call to onCall with its outcome', async () => {
    const records: CallRecord[] = []
    const observed = new CommandClient({ baseUrl: base, onCall: (r) => records.push(r) })
    try {
      await observed.call('closeDesigner')
      server.respond = (req) => echo(req, { error: 'No such title name' })
      await observed.call('selectTitle', { title: 'X' }).catch(() => undefined)
      expect(records.map((r) => [r.command, r.ok, r.code])).toEqual([
        ['closeDesigner', true, undefined],
        ['selectTitle', false, 'APP_ERROR'],
      ])
      expect(records.every((r) => r.latencyMs >= 0 && typeof r.requestId === 'string')).toBe(true)
    } finally {
      await observed.close()
    }
  })

  it('ignores an observer that throws', async () => {
    const observed = new CommandClient({
      baseUrl: base,
      onCall: () => {
        throw new Error('observer fault')
      },
    })
    try {
      await expect(observed.call('closeDesigner')).resolves.toEqual({})
    } finally {
      await observed.close()
    }
  })
})
