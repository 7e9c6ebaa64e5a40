/**
 * `panelbridge sim --replay-capture FILE` (issue 20, Build 5): the simulator plays the application a
 * probe capture shows (the facts it observed, the others as the default profile), and
 * `--write-profile` writes that profile as a file of `config/app-profiles/`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseSimArgs } from '../../src/commands/sim.js'
import { loadProfiles } from '../../src/app-kit/simulator/profile.js'
import { runCli } from '../helpers/cli.js'
import { SAFETY_MS } from '../helpers/until.js'

const dir = mkdtempSync(join(tmpdir(), 'pb-replay-capture-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A capture as `probe --out` writes it, with three facts observed. */
function captureFile(): string {
  const file = join(dir, 'Box 2 probe.json')
  writeFileSync(
    file,
    JSON.stringify({
      format: 'panelbridge-probe-capture',
      version: 1,
      started: '2026-11-20T10:00:00.000Z',
      targets: { http: 'http://127.0.0.1:9022', socket: 'ws://127.0.0.1:9023' },
      facts: [
        { fact: 'socket_reply', verdict: 'differs', value: 'wrapped-string', seen: 'wrapped ×4' },
        { fact: 'values', verdict: 'differs', value: 'strings', seen: 'text' },
        { fact: 'play_notification', verdict: 'ok', value: 'id-play', seen: '{id, play} ×2' },
      ],
    }),
  )
  return file
}

describe('sim --replay-capture', () => {
  it('refuses a command line that names the application twice, or writes a profile without a capture', () => {
    expect(parseSimArgs(['--profile', 'captivate', '--replay-capture', 'x.json'])).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/name the application twice/),
    })
    expect(parseSimArgs(['--write-profile', 'p.yaml'])).toMatchObject({ kind: 'error' })
    expect(parseSimArgs(['--replay-capture', 'x.json'])).toMatchObject({ kind: 'sim', replayCapture: 'x.json' })
  })

  it('plays the capture: its profile is named in the start-up lines and its facts are what the simulator answers', async () => {
    const sim = runCli(['sim', '--port', '0', '--ws-port', '0', '--replay-capture', captureFile()])
    await expect.poll(() => sim.lines.length, { timeout: SAFETY_MS, interval: 25 }).toBeGreaterThanOrEqual(4)
    expect(sim.lines[3]).toBe('application profile: capture-box-2-probe')
    const url = /listening on (http:\/\/\S+)/.exec(sim.lines[0]!)![1]!
    // values: strings, as the capture saw: a number of the contract comes as text.
    const info = (await (await fetch(`${url}/api/command/replay_get_play_info`)).json()) as {
      result: Record<string, unknown>
    }
    expect(typeof info.result.frameRate).toBe('string')
    expect(info.result.success).toBe('true')
    sim.child.kill('SIGTERM')
    expect(await sim.exited).toBe(0)
  })

  it('--write-profile writes the capture as a profile file that loads, and never over an existing file', async () => {
    const folder = mkdtempSync(join(dir, 'profiles-'))
    const out = join(folder, 'capture-box-2-probe.yaml')
    const first = runCli(['sim', '--replay-capture', captureFile(), '--write-profile', out])
    expect(await first.exited).toBe(0)
    expect(first.lines).toContain(`wrote the profile capture-box-2-probe to ${out}`)
    const profile = loadProfiles(folder).get('capture-box-2-probe')!
    expect(profile.facts).toMatchObject({ socket_reply: 'wrapped-string', values: 'strings' })
    expect(profile.sources.values).toBe('capture Box 2 probe.json 2026-11-20T10:00:00.000Z: text')
    const before = readFileSync(out, 'utf8')
    const again = runCli(['sim', '--replay-capture', captureFile(), '--write-profile', out])
    expect(await again.exited).toBe(1)
    expect(again.lines.join('\n')).toMatch(/cannot write .*EEXIST/)
    expect(readFileSync(out, 'utf8')).toBe(before)
  })

  it('a file that is no capture: exit 1, naming it', async () => {
    const bad = join(dir, 'not-a-capture.json')
    writeFileSync(bad, '{"format": "other"}')
    const sim = runCli(['sim', '--port', '0', '--ws-port', '0', '--replay-capture', bad])
    expect(await sim.exited).toBe(1)
    expect(sim.lines.join('\n')).toMatch(/cannot play the capture: .*not-a-capture\.json/)
  })
})
