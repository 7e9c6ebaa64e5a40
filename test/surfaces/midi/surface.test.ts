import { describe, expect, it } from 'vitest'
import { loadMidiProfile, type MidiProfile } from '../../../src/surfaces/midi/profile.js'
import { MidiPortGoneError, MidiSurface } from '../../../src/surfaces/midi/surface.js'
import type { SurfaceEvent } from '../../../src/surfaces/types.js'
import { FakeMidiConnection } from '../helpers/fake-midi.js'

async function open(profileId: string, opts: Partial<ConstructorParameters<typeof MidiSurface>[2]> = {}) {
  const profile: MidiProfile = await loadMidiProfile(profileId)
  const connection = new FakeMidiConnection('in', 'out')
  const surface = new MidiSurface(connection, profile, { id: 'pads', ...opts })
  const events: SurfaceEvent[] = []
  surface.events.on('input', (e) => events.push(e))
  const sentAtOpen = connection.sent.splice(0)
  return { surface, connection, events, sentAtOpen }
}

const strip = (events: SurfaceEvent[]) => events.map(({ at: _at, surface: _s, ...rest }) => rest)

describe('MIDI surface input', () => {
  it('decodes every message kind into control events', async () => {
    const { connection, events } = await open('generic')
    connection.receive([0x90, 60, 127, 0x80, 60, 0, 0x91, 61, 64, 61, 0])
    connection.receive([0xb2, 7, 127, 0xe0, 0x7f, 0x7f, 0xe0, 0, 0x40, 0xe0, 0, 0, 0xc9, 4])
    expect(strip(events)).toEqual([
      { type: 'down', control: 'note:1:60', velocity: 1 },
      { type: 'up', control: 'note:1:60' },
      { type: 'down', control: 'note:2:61', velocity: 64 / 127 },
      { type: 'up', control: 'note:2:61' },
      { type: 'value', control: 'cc:3:7', value: 1, raw: 127 },
      { type: 'value', control: 'pitchbend:1', value: 1, raw: 16383 },
      { type: 'value', control: 'pitchbend:1', value: 0, raw: 8192 },
      { type: 'value', control: 'pitchbend:1', value: -1, raw: 0 },
      { type: 'down', control: 'program:10:4', velocity: 1 },
      { type: 'up', control: 'program:10:4' },
    ])
    expect(events.every((e) => e.surface === 'pads' && typeof e.at === 'number')).toBe(true)
  })

  it.each([
    ['twos-complement', [1, 127, 3, 125], [1, -1, 3, -3]],
    ['sign-magnitude', [1, 65, 3, 67], [1, -1, 3, -3]],
    ['binary-offset', [65, 63, 67, 61], [1, -1, 3, -3]],
  ] as const)('reads a CC as a relative encoder in %s mode, chosen per control', async (mode, values, deltas) => {
    const { connection, events } = await open('generic', { relative: { 'cc:1:16': mode } })
    for (const v of values) connection.receive([0xb0, 16, v])
    connection.receive([0xb0, 17, 1])
    expect(strip(events)).toEqual([
      ...deltas.map((delta) => ({ type: 'rotate', control: 'cc:1:16', delta })),
      { type: 'value', control: 'cc:1:17', value: 1 / 127, raw: 1 },
    ])
  })

  it('reassembles SysEx split across packets without mistaking it for controls', async () => {
    const { connection, events } = await open('generic')
    connection.receive([0xf0, 0x47, 0x90])
    connection.receive([0x01, 0x7f, 0xf7, 0x90, 5, 5])
    // The 0x90 inside the SysEx ends it (a status byte); its note is then read as a note.
    expect(strip(events)).toEqual([
      { type: 'down', control: 'note:1:1', velocity: 1 },
      { type: 'down', control: 'note:1:5', velocity: 5 / 127 },
    ])
    events.length = 0
    connection.receive([0xf0, 0x47, 0x7f])
    connection.receive([0x01, 0x02, 0xf7, 0x90, 5, 5])
    expect(strip(events)).toEqual([{ type: 'down', control: 'note:1:5', velocity: 5 / 127 }])
  })
})

describe('MIDI LED feedback through profiles', () => {
  it('APC mini mk2: colour from the palette, brightness from the channel, blink channel, off', async () => {
    const { surface, connection, sentAtOpen } = await open('apc-mini-mk2')
    // At open every LED of the profile is put out: 64 pads, 8 track and 8 scene buttons.
    expect(sentAtOpen).toHaveLength(80)
    expect(sentAtOpen[0]).toEqual([0x90, 0, 0])
    surface.setFeedback('note:1:0', { color: '#c00000', led: 'on' })
    expect(connection.sent.pop()).toEqual([0x96, 0, 5]) // channel 7 = 100 %, red
    surface.setBrightness(50)
    expect(connection.sent.pop()).toEqual([0x92, 0, 5]) // channel 3 = 50 %
    surface.setFeedback('note:1:0', { color: '#00ff00', led: 'blink' })
    expect(connection.sent.pop()).toEqual([0x9e, 0, 21]) // channel 15 blinks, green
    surface.setFeedback('note:1:63', { color: '#202020', led: 'off' })
    expect(connection.sent.pop()).toEqual([0x90, 63, 1]) // the dim idle colour, channel 1
    surface.setFeedback('note:1:63', { led: 'off' })
    expect(connection.sent.pop()).toEqual([0x90, 63, 0])
  })

  it('APC mini mk2: one-colour buttons take 0/1/2, and pads sit in the grid from the bottom left', async () => {
    const { surface, connection } = await open('apc-mini-mk2')
    surface.setFeedback('note:1:100', { led: 'on' })
    surface.setFeedback('note:1:112', { led: 'blink' })
    surface.setFeedback('note:1:119', { led: 'off', color: '#ff0000' })
    // The scene LED that is off already (put out at open) is not sent again.
    expect(connection.sent).toEqual([
      [0x90, 100, 1],
      [0x90, 112, 2],
    ])
    const pad0 = surface.description.controls.find((c) => c.id === 'note:1:0')
    const pad63 = surface.description.controls.find((c) => c.id === 'note:1:63')
    expect(pad0).toMatchObject({ row: 7, column: 0, capabilities: { rgb: true } })
    expect(pad63).toMatchObject({ row: 0, column: 7 })
    expect(surface.description).toMatchObject({
      driver: 'midi',
      model: 'Akai APC mini mk2',
      grid: { rows: 9, columns: 9 },
    })
  })

  it('X-Touch Mini: button LEDs on global channel 1 at note - 8, rings from Feedback.value', async () => {
    const { surface, connection, sentAtOpen } = await open('behringer-x-touch-mini')
    expect(sentAtOpen).toHaveLength(16)
    expect(sentAtOpen[0]).toEqual([0x90, 0, 0])
    surface.setFeedback('note:11:8', { led: 'on' })
    surface.setFeedback('note:11:23', { led: 'blink' })
    surface.setFeedback('note:11:9', { color: '#00a000' })
    surface.setFeedback('cc:11:1', { value: 0.5 })
    surface.setFeedback('cc:11:8', { value: 7 })
    surface.setFeedback('cc:11:2', { value: Number.NaN })
    expect(connection.sent).toEqual([
      [0x90, 0, 1],
      [0x90, 15, 2],
      [0x90, 1, 1],
      [0xba, 1, 64],
      [0xba, 8, 127],
    ])
  })

  it('generic: a note LED by note on 127/0, a CC LED by CC; repeated feedback sends nothing', async () => {
    const { surface, connection, sentAtOpen } = await open('generic')
    expect(sentAtOpen).toEqual([])
    surface.setFeedback('note:2:36', { led: 'on' })
    surface.setFeedback('note:2:36', { led: 'on', text: 'x' })
    surface.setFeedback('cc:1:20', { led: 'blink' })
    surface.setFeedback('note:2:36', { led: 'off' })
    surface.setFeedback('pitchbend:1', { led: 'on' })
    expect(connection.sent).toEqual([
      [0x91, 36, 127],
      [0xb0, 20, 127],
      [0x91, 36, 0],
    ])
  })

  it('blanks what it lit when closed, and closes the port', async () => {
    const { surface, connection } = await open('generic')
    const closed: unknown[] = []
    surface.events.on('closed', () => closed.push(1))
    surface.setFeedback('note:1:1', { led: 'on' })
    await surface.close()
    await surface.close()
    expect(connection.sent).toEqual([
      [0x90, 1, 127],
      [0x90, 1, 0],
    ])
    expect(connection.closed).toBe(true)
    expect(closed).toEqual([1])
  })

  it('fails once (for the manager to retry) when a send throws or the port is gone', async () => {
    const { surface, connection } = await open('generic')
    const errors: Error[] = []
    surface.events.on('error', (e) => errors.push(e))
    connection.failSends = true
    surface.setFeedback('note:1:1', { led: 'on' })
    surface.portGone('in')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toContain('device gone')
    const other = await open('generic')
    const errs: Error[] = []
    other.surface.events.on('error', (e) => errs.push(e))
    other.surface.portGone('APC mini mk2 20:0')
    expect(errs[0]).toBeInstanceOf(MidiPortGoneError)
    expect(errs[0]!.message).toBe('MIDI port "APC mini mk2 20:0" vanished')
  })
})
