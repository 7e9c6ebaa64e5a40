/**
 * Issue 13, Build 1: `panelbridge send` against the simulator, in-process: the reply as JSON on stdout,
 * values typed by the catalogue, exit 1 on an application error, exit 2 (and nothing sent) on a bad
 * command line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { helpText } from '../../src/cli.js'
import { SUBCOMMANDS } from '../../src/commands/index.js'
import { runSend, sendCommand } from '../../src/commands/send.js'
import { startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'

let sim: SimulatorHandle
let dir: string
beforeAll(async () => {
  sim = await startSimulator({ httpPort: 0, wsPort: 0 })
  dir = mkdtempSync(join(tmpdir(), 'pb-send-'))
})
afterAll(async () => {
  await sim.close()
  rmSync(dir, { recursive: true, force: true })
})

let out = ''
let err: string[] = []
const deps = {
  out: (text: string) => void (out += text),
  err: (line: string) => void err.push(line),
}
beforeEach(() => {
  out = ''
  err = []
})
const send = (...argv: string[]): Promise<number> => runSend([...argv, '--url', sim.httpUrl], deps)
const sent = (name: string): Record<string, unknown>[] => sim.http.commands(name).map((e) => e.parameters)

describe('panelbridge send', () => {
  it('is registered: main dispatches it and --help lists it', () => {
    expect(SUBCOMMANDS.send).toBe(sendCommand)
    expect(helpText()).toContain('send COMMAND [key=value ...]')
    expect(sendCommand.help).toContain('Examples:')
  })

  it('prints the reply as JSON on stdout and exits 0', async () => {
    expect(await send('getAllVideoIns')).toBe(0)
    const reply = JSON.parse(out) as Record<string, unknown>
    expect(reply).toMatchObject({ command: 'getAllVideoIns', success: true })
    expect(reply.videoIns).toContain('Camera 1')
    expect(err).toEqual([])
  })

  it('types values by the catalogue: numeric text, a comma list, a word with spaces', async () => {
    expect(await send('switchVideoIn', 'channel=0', 'video=Camera 2')).toBe(0)
    expect(sent('switchVideoIn').at(-1)).toMatchObject({ channel: '0', video: 'Camera 2' })
    expect(await send('replay_arm_inputs', 'inputs=Camera 1,Camera 2')).toBe(0)
    expect(sent('replay_arm_inputs').at(-1)).toMatchObject({ inputs: 'Camera 1,Camera 2' })
    expect(await send('replay_set_settings', 'settings={"fps":"50"}')).toBe(0)
    expect(sent('replay_set_settings').at(-1)).toMatchObject({ settings: '{"fps":"50"}' })
  })

  it('exits 1 with the application’s message on stderr when the application answers with an error', async () => {
    expect(await send('schedule', 'action=animateIn', 'title=No Such Title')).toBe(1)
    expect(out).toBe('')
    expect(err.join('\n')).toMatch(/application error: .*title/)
    expect(err.join('\n')).toContain('[APP_ERROR]')
  })

  it.each([
    [['nosuchCommand'], "unknown command 'nosuchCommand'"],
    [['switchVideoIn', 'channel=zero', 'video=Camera 1'], 'parameter channel must be a finite number'],
    [['switchVideoIn', 'channel=0', 'colour=red', 'video=Camera 1'], 'unknown parameter colour'],
    [['switchVideoIn', 'video=Camera 1'], 'missing required parameter channel'],
    [['switchVideoIn', 'channel'], "'channel' is not key=value"],
    [['switchVideoIn', 'channel=0', 'channel=1', 'video=Camera 1'], 'given twice'],
    [['schedule', 'action=bogus', 'title=x'], 'parameter action must be one of'],
    [['replay_set_settings', 'settings={oops'], 'takes a JSON object'],
    [[], 'needs the command'],
  ])('exits 2 and sends nothing on a bad command line: %j', async (argv, message) => {
    const before = sim.http.log.length
    expect(await send(...argv)).toBe(2)
    expect(err.join('\n')).toContain(message)
    expect(out).toBe('')
    // The positive signal that the simulator logs what arrives, then the absence of the bad one.
    expect(await send('getAllVideoIns')).toBe(0)
    expect(sim.http.log.slice(before).map((e) => e.name)).toEqual(['getAllVideoIns'])
  })

  /** Each title's play state, as getTitleControlInfo answers it. */
  async function playStates(): Promise<string[]> {
    out = ''
    expect(await send('getTitleControlInfo')).toBe(0)
    const reply = JSON.parse(out) as { titles: { status: string }[] }
    out = ''
    return reply.titles.map((t) => t.status)
  }

  it('refuses a command that acts on every title without naming one, with the reason and exit 2; --all sends it', async () => {
    const titles = (await playStates()).length
    expect(titles).toBeGreaterThan(1)
    const before = sent('schedule').length
    for (const argv of [
      ['schedule', 'action=cutin'],
      ['schedule', 'action=animateOut'],
      ['schedule', 'action=cutin', 'title='],
    ]) {
      err = []
      expect(await send(...argv)).toBe(2)
      expect(err.join('\n')).toContain(
        'schedule without id or title acts on everything: name its title, or add --all to mean everything',
      )
    }
    expect(sent('schedule').length).toBe(before)
    const off = Array<string>(titles).fill('Off')
    expect(await playStates()).toEqual(off)

    expect(await send('schedule', 'action=cutin', '--all')).toBe(0)
    expect(sent('schedule').at(-1)).not.toHaveProperty('title')
    expect(sent('schedule').at(-1)).toMatchObject({ action: 'cutin' })
    // Every title on air (a cut, so held still: the application's Paused), none left off.
    expect(await playStates()).toEqual(Array<string>(titles).fill('Paused'))
    expect(await send('schedule', 'action=cutout', '--all')).toBe(0)
    expect(await playStates()).toEqual(off)
  })

  it('refuses --all beside a target, and on a command that does not act on everything (the file’s rule)', async () => {
    expect(await send('schedule', 'action=cutin', 'title=Lower Third', '--all')).toBe(2)
    expect(err.join('\n')).toContain('--all sends schedule to everything, without title')
    err = []
    expect(await send('getAllVideoIns', '--all')).toBe(2)
    expect(err.join('\n')).toContain('--all: getAllVideoIns does not act on everything; remove --all')
  })

  it('asks --yes for a command a binding sends only after a hold to confirm', async () => {
    const before = sent('clearPlaylist').length
    expect(await send('clearPlaylist')).toBe(2)
    expect(err.join('\n')).toContain('clearPlaylist is destructive on air')
    expect(err.join('\n')).toContain('add --yes')
    expect(sent('clearPlaylist').length).toBe(before)
    expect(await send('clearPlaylist', '--yes')).toBe(0)
    expect(sent('clearPlaylist').length).toBe(before + 1)
  })

  it('sends a command the catalogue lacks only with --unlisted', async () => {
    expect(await send('someNewCommand', 'level=3', 'on=true', 'name=x')).toBe(2)
    expect(await send('someNewCommand', 'level=3', 'on=true', 'name=x', '--unlisted')).toBe(1)
    expect(err.join('\n')).toContain('unknown command')
    expect(sent('someNewCommand')).toMatchObject([{ level: '3', on: 'true', name: 'x' }])
  })

  it('takes the address from --config’s app.url', async () => {
    const file = join(dir, 'config.yaml')
    writeFileSync(file, `version: 1\napp: { url: ${sim.httpUrl} }\n`)
    expect(await runSend(['getAllVideoIns', '--config', file], deps)).toBe(0)
    expect(JSON.parse(out)).toMatchObject({ success: true })
    writeFileSync(file, 'version: 1\napp: { url: nope }\n')
    expect(await runSend(['getAllVideoIns', '--config', file], deps)).toBe(1)
    expect(err.join('\n')).toContain('is refused')
  })

  it('exits 1 and says so when nothing answers at the address', async () => {
    const gone = await startSimulator({ httpPort: 0, wsPort: 0 })
    const url = gone.httpUrl
    await gone.close()
    expect(await runSend(['getAllVideoIns', '--url', url], deps)).toBe(1)
    expect(err.join('\n')).toContain('is the application running?')
  })
})
