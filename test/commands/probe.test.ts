/**
 * Issue 20 Build 5 and issue 30 Build 5: `panelbridge probe` against the simulator in every shipped
 * profile. The report's `differs` lines name exactly the facts where the profile differs from the
 * default one (computed from the profile tables), the simulator's command log shows only the
 * read-only commands the issues list (on both transports), and the capture is JSON with the frames
 * and no secret in it.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { QWebChannelClient } from '../../src/api/qwebchannel.js'
import { helpText } from '../../src/cli.js'
import { SUBCOMMANDS } from '../../src/commands/index.js'
import { probeCommand, runProbeCommand } from '../../src/commands/probe.js'
import {
  profileFromCapture,
  profileFromCaptureFile,
  profileToYaml,
} from '../../src/app-kit/simulator/profile-from-capture.js'
import { parseCapture } from '../../src/app-kit/probe-capture.js'
import {
  getProfile,
  loadProfiles,
  PROFILE_FACT_NAMES,
  profileDifferences,
  profileNames,
  type ProfileFact,
  type SimProfile,
} from '../../src/app-kit/simulator/profile.js'
import { startSimulator, type CommandLogEntry, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { closedPort } from '../helpers/link.js'

/**
 * The commands issues 20 and 30 allow probe to send: over HTTP, and through the socket (where
 * `scheduleCommand` logs the command it carries). Written out here, not taken from the code: a
 * changing command added to probe must fail this test.
 */
const READ_ONLY_HTTP = [
  'getTitleControlInfo',
  'getAllVideoIns',
  'getOutputDevice',
  'replay_get_play_info',
  'replay_get_settings',
  'replay_is_trial_mode',
  'getSubscriptions',
]
const READ_ONLY_SOCKET = [...READ_ONLY_HTTP, 'notifyClientConnected', 'getValueForKey', '_cmp_v1_query']

/** Facts one probe session cannot see: a restart is needed, or a call by name. Always `unchecked`. */
const NEEDS_RESTART_OR_NAME: ProfileFact[] = ['method_calls', 'method_order', 'title_ids_on_restart']

/** What the test itself sends (over HTTP, each with a requestId starting `test-`). */
const OWN_PREFIX = 'test-'

/** Whether the test itself sent this entry. */
function ownEntry(e: CommandLogEntry): boolean {
  const id = e.parameters.requestId
  return typeof id === 'string' && id.startsWith(OWN_PREFIX)
}

/** Log entries probe sent that are not on the allow-list of their transport. */
function offenders(log: readonly CommandLogEntry[]): CommandLogEntry[] {
  return log.filter((e) => {
    if (ownEntry(e)) return false
    const allowed = e.transport === 'qwebchannel' ? READ_ONLY_SOCKET : READ_ONLY_HTTP
    return !allowed.includes(e.name)
  })
}

interface Run {
  code: number
  out: string[]
  err: string[]
}

/**
 * Runs probe in-process. With `during`, that runs once the listen window opens, and the window is then
 * ended as Ctrl-C ends it (a margin after the last action): the window lasts as long as the actions
 * take, however loaded the machine, instead of racing a fixed --listen-s.
 */
async function probe(argv: string[], during?: () => Promise<void>): Promise<Run> {
  const out: string[] = []
  const err: string[] = []
  const stop = new AbortController()
  const running = runProbeCommand(argv, {
    out: (l) => void out.push(l),
    err: (l) => void err.push(l),
    signal: stop.signal,
  })
  if (during) {
    // Waits for the window to open (a loop of its own: this runs in beforeAll, where expect.poll cannot).
    const deadline = Date.now() + 10_000
    while (!out.some((l) => l.startsWith('listening'))) {
      if (Date.now() > deadline) throw new Error(`probe never started listening:\n${out.join('\n')}`)
      await sleep(10)
    }
    await during()
    await sleep(200)
    stop.abort()
  }
  return { code: await running, out, err }
}

/** The fact lines of a report: fact → verdict. */
function verdicts(out: string[]): Map<string, string> {
  const lines = out.slice(out.findIndex((l) => l.startsWith('Compatibility with')) + 1)
  const map = new Map<string, string>()
  for (const l of lines) {
    const m = /^([a-z_]+) (ok|differs|unchecked):/.exec(l)
    if (m && (PROFILE_FACT_NAMES as string[]).includes(m[1]!)) map.set(m[1]!, m[2]!)
  }
  return map
}

const sorted = (s: Iterable<string>): string[] => [...s].sort()

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pb-probe-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A simulator for this test only: closed when the test ends, passed or failed. */
async function simulator(options?: Parameters<typeof startSimulator>[0]): Promise<SimulatorHandle> {
  const sim = await startSimulator(options)
  onTestFinished(() => sim.close())
  return sim
}

describe('panelbridge probe', () => {
  it('is registered: main dispatches it and --help lists it', () => {
    expect(SUBCOMMANDS.probe).toBe(probeCommand)
    expect(helpText()).toContain('probe [--url URL] [--notifications URL] [--listen-s N] [--out FILE]')
    expect(probeCommand.help).toContain('--listen-s N')
  })

  it.each([
    [['--listen-s', 'soon'], '--listen-s takes seconds'],
    [['--listen-s=-1'], '--listen-s takes seconds'],
    [['--listen-s', '3601'], '--listen-s takes seconds'],
    [['--url', 'ftp://host'], '--url must be an http:// URL'],
    [['--notifications', 'http://host:9023'], '--notifications must be a ws:// URL'],
    [['--out', ''], '--out needs a file name'],
    [['extra'], 'takes no arguments'],
  ])('exits 2 on a bad command line: %j', async (argv, message) => {
    const run = await probe(argv)
    expect(run.code).toBe(2)
    expect(run.err.join('\n')).toContain(message)
    expect(run.out).toEqual([])
  })

  it('exits 2 on an unknown option', async () => {
    const run = await probe(['--subscribe'])
    expect(run.code).toBe(2)
  })

  it('exits 1 when neither transport answers, and says so', async () => {
    const http = await closedPort()
    const ws = await closedPort()
    const run = await probe([
      '--url',
      `http://127.0.0.1:${http}`,
      '--notifications',
      `ws://127.0.0.1:${ws}`,
      '--listen-s',
      '0',
    ])
    expect(run.code).toBe(1)
    expect(run.err.join('\n')).toContain('nothing answers')
    expect(run.out.some((l) => l.startsWith('Compatibility'))).toBe(false)
  })
})

describe.each(profileNames())('probe against the simulator playing %s', (name) => {
  let sim: SimulatorHandle
  let run: Run
  let profile: SimProfile
  const out = (): string => join(dir, `capture-${name}.json`)
  /** What the test sends during the listen window, in order. */
  const own: string[] = []

  beforeAll(async () => {
    profile = getProfile(name)
    sim = await startSimulator({ profile: name, animationMs: 50 })
    // A stream key where a reply carries it: a title variable named so, and one inside an RTMP URL.
    const lower = sim.state.titles.find((t) => t.name === 'Lower Third')!
    lower.variables.push({ name: 'Stream Key', value: 'live_SECRET_a1b2c3', type: 'text' })
    lower.variables.push({ name: 'Ingest', value: 'rtmp://a.rtmp.youtube.com/live2/SECRET-d4e5-f6', type: 'text' })
    const send = async (command: string, query: string): Promise<void> => {
      const id = `${OWN_PREFIX}${own.length + 1}`
      own.push(command)
      const res = await fetch(`${sim.httpUrl}/api/command/${command}?${query}&requestId=${id}`)
      expect(res.status).toBe(200)
    }
    run = await probe(
      ['--url', sim.httpUrl, '--notifications', sim.wsUrl, '--listen-s', '60', '--out', out()],
      async () => {
        // In, out and in again (the title ends on air, and a feedback signal that alternates shows
        // both its forms), a variable changed, a title added.
        await send('schedule', 'action=cutin&title=Lower%20Third')
        await send('schedule', 'action=cutout&title=Lower%20Third')
        await send('schedule', 'action=cutin&title=Lower%20Third')
        await send('schedule', 'action=update&title=Score%20Bug&Home%20Score=7')
        await send('duplicateTitle', 'title=Breaking%20News')
      },
    )
  })
  afterAll(async () => {
    await sim.close()
  })

  it('exits 0 and prints one line per profile fact', () => {
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    expect(sorted(verdicts(run.out).keys())).toEqual(sorted(PROFILE_FACT_NAMES))
  })

  it('names in `differs` exactly the facts where the profile differs from captivate (among those probe can see)', () => {
    const v = verdicts(run.out)
    const expected = profileDifferences(profile).filter((f) => !NEEDS_RESTART_OR_NAME.includes(f))
    const differs = [...v].filter(([, verdict]) => verdict === 'differs').map(([f]) => f)
    expect(sorted(differs)).toEqual(sorted(expected))
    // Every other fact was seen (the window's activity gave each its evidence), except the three.
    const unchecked = [...v].filter(([, verdict]) => verdict === 'unchecked').map(([f]) => f)
    expect(sorted(unchecked)).toEqual(sorted(NEEDS_RESTART_OR_NAME))
  })

  it('sends only the read-only commands, on both transports', () => {
    const log = sim.http.log
    // The socket's calls are in the log (else this test would pass without looking).
    expect(log.some((e) => e.transport === 'qwebchannel' && e.name === 'getTitleControlInfo')).toBe(true)
    expect(log.some((e) => e.transport === 'get' && e.name === 'getTitleControlInfo')).toBe(true)
    expect(offenders(log)).toEqual([])
    // Besides probe's, the log has exactly what the test sent.
    const mine = log.filter(ownEntry).map((e) => e.name)
    expect(mine).toEqual(own)
    expect(log.some((e) => e.name === 'subscribe')).toBe(false)
  })

  it('prints the signals that arrive while it listens', () => {
    const listening = run.out.findIndex((l) => l.startsWith('listening'))
    const listened = run.out.findIndex((l) => l.startsWith('listened'))
    expect(listening).toBeGreaterThan(-1)
    const signalLines = run.out.slice(listening + 1, listened).filter((l) => /^ {2}\+\d+\.\ds \S+/.test(l))
    expect(signalLines.some((l) => l.includes(' onNotify '))).toBe(true)
    expect(run.out[listened]).toMatch(/^listened: \d+ signals \(/)
  })

  it('writes a capture: JSON with the init reply, the exchanges and the frames, the stream key redacted', () => {
    const text = readFileSync(out(), 'utf8')
    const capture = JSON.parse(text) as {
      format: string
      init: { connection: number; data: Record<string, unknown> }[]
      exchanges: { transport: string; command: string; reply?: unknown }[]
      frames: { t: number; connection: number; text: string }[]
      signals: { signal: string }[]
      facts: { fact: string; verdict: string }[]
    }
    expect(capture.format).toBe('panelbridge-probe-capture')
    expect(capture.init.map((i) => i.connection)).toEqual([1, 2])
    expect(capture.init[0]!.data).toHaveProperty('scheduler')
    expect(capture.frames.length).toBeGreaterThan(10)
    expect(capture.frames.every((f) => typeof f.text === 'string' && f.t >= 0)).toBe(true)
    expect(capture.exchanges.some((e) => e.transport === 'http' && e.command === 'getTitleControlInfo')).toBe(true)
    expect(capture.exchanges.some((e) => e.transport === 'socket' && e.command === 'scheduleCommand')).toBe(true)
    expect(capture.signals.some((s) => s.signal === 'onNotify')).toBe(true)
    expect(new Map(capture.facts.map((f) => [f.fact, f.verdict]))).toEqual(verdicts(run.out))
    // The variables were in the replies (so the redaction had something to do)...
    expect(text).toContain('Stream Key')
    expect(text).toContain('rtmp://a.rtmp.youtube.com/live2/***')
    // ...and no secret is left anywhere in the file, nor in what was printed.
    expect(text).not.toContain('SECRET')
    expect(run.out.join('\n')).not.toContain('SECRET')
  })

  it('turns its capture into a profile that plays the facts it saw, the rest as captivate', async () => {
    const file = out()
    const fromCapture = await profileFromCaptureFile(file)
    const base = getProfile('captivate')
    const started = parseCapture(readFileSync(file, 'utf8')).started
    for (const fact of PROFILE_FACT_NAMES) {
      if (NEEDS_RESTART_OR_NAME.includes(fact)) {
        expect(fromCapture.facts[fact]).toBe(base.facts[fact])
        expect(fromCapture.sources[fact]).toContain('from captivate')
      } else {
        expect(fromCapture.facts[fact], fact).toBe(profile.facts[fact])
        expect(fromCapture.sources[fact]).toContain(`capture capture-${name}.json ${started}`)
      }
    }
    expect(fromCapture.clientInfo).toEqual(profile.clientInfo)
  })
})

describe('a capture as a profile file', () => {
  it('writes YAML that loads as a profile of the folder, and the simulator plays it', async () => {
    const capture = {
      format: 'panelbridge-probe-capture' as const,
      version: 1 as const,
      started: '2025-01-02T03:04:05.000Z',
      targets: { http: 'http://127.0.0.5:9022', socket: 'ws://127.0.0.5:9023' },
      application: JSON.stringify({
        buildDate: 'Jan 1 2025',
        buildTime: '10:00:00',
        host: 'Captivate',
        platform: 'windows',
        sku: 'SKU',
        version: '6.0.1',
      }),
      facts: [
        { fact: 'socket_reply' as const, verdict: 'differs' as const, value: 'wrapped-object', seen: 'wrapped ×3' },
        { fact: 'values' as const, verdict: 'differs' as const, value: 'strings', seen: 'text' },
        { fact: 'layer_state' as const, verdict: 'differs' as const, value: false, seen: 'not published' },
        // A value the fact does not take is not taken.
        { fact: 'http_reply' as const, verdict: 'differs' as const, value: 'sideways', seen: '?' },
        { fact: 'method_order' as const, verdict: 'unchecked' as const, seen: 'needs a restart' },
      ],
    }
    const profile = profileFromCapture(capture, '/home/op/My Capture.json')
    expect(profile.name).toBe('capture-my-capture')
    expect(profile.facts).toMatchObject({ socket_reply: 'wrapped-object', values: 'strings', layer_state: false })
    expect(profile.facts.http_reply).toBe(getProfile('captivate').facts.http_reply)
    expect(profile.sources.socket_reply).toBe('capture My Capture.json 2025-01-02T03:04:05.000Z: wrapped ×3')
    expect(profile.clientInfo.version).toBe('6.0.1')

    const folder = mkdtempSync(join(dir, 'profiles-'))
    writeFileSync(join(folder, `${profile.name}.yaml`), profileToYaml(profile))
    const loaded = loadProfiles(folder).get(profile.name)!
    expect(loaded.facts).toEqual(profile.facts)
    expect(loaded.sources).toEqual(profile.sources)
    expect(loaded.clientInfo).toEqual(profile.clientInfo)

    const sim = await simulator({ profile: loaded })
    const client = new QWebChannelClient({ url: sim.wsUrl })
    await client.connect()
    const reply = await new Promise<unknown>((resolve, reject) => {
      client.invoke('scheduler', 'scheduleCommand', ['getOutputDevice', {}, {}], { onReply: resolve }).catch(reject)
    })
    client.close()
    // wrapped-object, as the capture said: the reply carries `result` (parsed or not, an object).
    expect(reply).toMatchObject({ result: { command: 'getOutputDevice' } })
  })

  it('refuses a file that is not a capture, naming it; reads a regular file only (issue 46 item 5)', async () => {
    const file = join(dir, 'not-a-capture.json')
    writeFileSync(file, JSON.stringify({ format: 'something-else' }))
    await expect(profileFromCaptureFile(file)).rejects.toThrow(/not-a-capture\.json: not a capture: format/)
    await expect(profileFromCaptureFile(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: ENOENT/)
    // Only a regular file is read: a device is refused at once (never read without end), a FIFO never waited on.
    await expect(profileFromCaptureFile('/dev/zero')).rejects.toThrow('/dev/zero: a device, not a capture file')
    const fifo = join(dir, 'capture.fifo')
    execFileSync('mkfifo', [fifo])
    await expect(profileFromCaptureFile(fifo)).rejects.toThrow(`${fifo}: a named pipe, not a capture file`)
  })
})

describe('the read-only check itself', () => {
  it('catches a changing command sent over the socket (the log sees the socket)', async () => {
    const sim = await simulator()
    const client = new QWebChannelClient({ url: sim.wsUrl })
    await client.connect()
    await client.invoke('scheduler', 'scheduleCommand', ['schedule', { action: 'cutin', title: 'Lower Third' }, {}])
    client.close()
    expect(offenders(sim.http.log).map((e) => `${e.transport} ${e.name}`)).toEqual(['qwebchannel schedule'])
  })
})

describe('the listen window', () => {
  it('ends by itself after --listen-s, and says what it could not see with nothing happening', async () => {
    const sim = await simulator()
    const started = Date.now()
    const run = await probe(['--url', sim.httpUrl, '--notifications', sim.wsUrl, '--listen-s', '0.4'])
    expect(Date.now() - started).toBeGreaterThanOrEqual(400)
    expect(run.code).toBe(0)
    expect(run.out).toContain('listened: no signal arrived')
    expect(run.out.find((l) => l.startsWith('play_notification'))).toMatch(
      /^play_notification unchecked: nothing to see: play a title/,
    )
    expect(run.out.find((l) => l.startsWith('broadcast-notifications'))).toContain('unchecked')
    // It read the titles while it listened (at least once more than before).
    const reads = sim.http.log.filter((e) => e.transport === 'qwebchannel' && e.name === 'getTitleControlInfo')
    expect(reads.length).toBeGreaterThanOrEqual(3)
  })
})

describe('probe with one transport down', () => {
  it('exits 0 on HTTP alone: the socket facts are unchecked, saying why', async () => {
    const sim = await simulator()
    const ws = await closedPort()
    const run = await probe(['--url', sim.httpUrl, '--notifications', `ws://127.0.0.1:${ws}`, '--listen-s', '0'])
    expect(run.code).toBe(0)
    const v = verdicts(run.out)
    expect(v.get('http_reply')).toBe('ok')
    expect(v.get('socket_reply')).toBe('unchecked')
    expect(run.out.find((l) => l.startsWith('socket_reply'))).toContain('socket was not reached')
    expect(run.out.some((l) => l.startsWith('socket ') && l.includes('not reached'))).toBe(true)
  })

  it('exits 1 when the capture cannot be written', async () => {
    const sim = await simulator()
    const run = await probe([
      '--url',
      sim.httpUrl,
      '--notifications',
      sim.wsUrl,
      '--listen-s',
      '0',
      '--out',
      join(dir, 'no-such-folder', 'capture.json'),
    ])
    expect(run.code).toBe(1)
    expect(run.err.join('\n')).toContain('cannot write')
  })
})

describe.each(['flat-string', 'wrapped-string', 'flat-object', 'wrapped-object'] as const)(
  'a socket answering %s',
  (shape) => {
    it('is reported as such', async () => {
      const base = getProfile('captivate')
      const sim = await simulator({ profile: { ...base, facts: { ...base.facts, socket_reply: shape } } })
      const run = await probe(['--url', sim.httpUrl, '--notifications', sim.wsUrl, '--listen-s', '0'])
      const line = run.out.find((l) => l.startsWith('socket_reply '))
      expect(line).toMatch(
        shape === 'flat-string' ? /^socket_reply ok: flat-string/ : new RegExp(`^socket_reply differs: ${shape} `),
      )
    })
  },
)
