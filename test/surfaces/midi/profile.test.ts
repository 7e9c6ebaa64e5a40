import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { claimMatches } from '../../../src/families/claims.js'
import {
  MidiProfileError,
  loadMidiProfile,
  parseMidiProfile,
  shippedProfileIds,
} from '../../../src/surfaces/midi/profile.js'

function problems(text: string): readonly string[] {
  try {
    parseMidiProfile(text, 'my.yaml')
  } catch (err) {
    if (err instanceof MidiProfileError) return err.problems
    throw err
  }
  throw new Error('the profile was accepted')
}

describe('MIDI profiles', () => {
  it('ships the APC mini mk2, the X-Touch Mini and a generic one, each valid', async () => {
    expect(await shippedProfileIds()).toEqual(['apc-mini-mk2', 'behringer-x-touch-mini', 'generic'])
    const apc = await loadMidiProfile('apc-mini-mk2')
    expect(apc.controls.size).toBe(64 + 8 + 8 + 1 + 9)
    const xtouch = await loadMidiProfile('behringer-x-touch-mini')
    expect(xtouch.controls.get('cc:11:1')).toMatchObject({ ring: { message: 'cc', min: 0, max: 127 } })
    expect(xtouch.controls.get('note:11:8')?.descriptor).toMatchObject({
      row: 0,
      column: 0,
      capabilities: { led: true },
    })
    expect((await loadMidiProfile('generic')).controls.size).toBe(0)
  })

  it('reports each mistake at file:line:col with its path', () => {
    const text = [
      'name: Pad',
      'controls:',
      '  - kind: note',
      '    channel: 17',
      '    first: 120',
      '    count: 10',
      '    rgb: true',
      '    led: { offset: 2, on: { value: 200 } }',
      '',
    ].join('\n')
    expect(problems(text)).toEqual([
      'my.yaml:4:14: controls.0.channel: Too big: expected number to be <=16',
      'my.yaml:8:36: controls.0.led.on.value: Too big: expected number to be <=127',
      'my.yaml:6:12: controls.0.count: the group runs past number 127',
      'my.yaml:8:20: controls.0.led.offset: LED numbers 122..131 leave 0..127',
      'my.yaml:7:10: controls.0.rgb: an rgb group needs led.palette',
    ])
    expect(problems('name: Pad\ncontrols:\n  - kind: note\n    channel: 1\n    first: 120\n    count: 10\n')).toEqual([
      'my.yaml:6:12: controls.0.count: the group runs past number 127',
    ])
    expect(problems('name: Pad\ncontrols:\n  - { kind: note, channel: 1, rgb: true, led: {} }\n')).toEqual([
      'my.yaml:3:36: controls.0.rgb: an rgb group needs led.palette',
    ])
    expect(problems('name: [unclosed\n')[0]).toMatch(/^my\.yaml:\d+:\d+: /)
    expect(problems('nmae: Pad\n')).toEqual([
      'my.yaml:1:1: name: Invalid input: expected string, received undefined',
      'my.yaml:1:1: Unrecognized key: "nmae"',
    ])
  })

  it('loads a user profile from a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-profile-'))
    try {
      const file = join(dir, 'pedal.yaml')
      await writeFile(file, 'name: Foot pedal\ncontrols:\n  - { kind: cc, channel: 1, first: 64 }\n')
      const p = await loadMidiProfile(file)
      expect(p.name).toBe('Foot pedal')
      expect([...p.controls.keys()]).toEqual(['cc:1:64'])
      await expect(loadMidiProfile(join(dir, 'missing.yaml'))).rejects.toThrow('cannot read the profile')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('a claim takes a MIDI device by a part of its port name, in any case', () => {
    const d = { driver: 'midi', id: 'APC mini mk2 20:0', model: 'APC mini mk2 20:0', port: 'APC mini mk2 20:0' }
    expect(claimMatches({ port: 'apc MINI' }, d)).toBe(true)
    expect(claimMatches({ port: 'X-TOUCH' }, d)).toBe(false)
    expect(claimMatches({ port: 'APC' }, { ...d, port: undefined })).toBe(false)
  })
})
