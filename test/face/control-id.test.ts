import { describe, expect, it } from 'vitest'
import {
  ControlIdError,
  controlId,
  formatControlId,
  isControlId,
  parseControlAddress,
  parseControlId,
} from '../../src/face/control-id.js'

describe('control ids', () => {
  it.each([
    ['key:0', { kind: 'key', index: 0 }],
    ['key:31', { kind: 'key', index: 31 }],
    ['encoder:3', { kind: 'encoder', index: 3 }],
    ['lcd:2', { kind: 'lcd', index: 2 }],
    ['button:12', { kind: 'button', index: 12 }],
    ['fader:0', { kind: 'fader', index: 0 }],
    ['jog', { kind: 'jog' }],
    ['shuttle', { kind: 'shuttle' }],
    ['tbar', { kind: 'tbar' }],
    ['joystick:x', { kind: 'joystick', axis: 'x' }],
    ['joystick:y', { kind: 'joystick', axis: 'y' }],
    ['joystick:z', { kind: 'joystick', axis: 'z' }],
    ['note:1:60', { kind: 'note', channel: 1, number: 60 }],
    ['cc:16:127', { kind: 'cc', channel: 16, number: 127 }],
    ['pitchbend:1', { kind: 'pitchbend', channel: 1 }],
    ['pitchbend:16', { kind: 'pitchbend', channel: 16 }],
    ['program:1:0', { kind: 'program', channel: 1, number: 0 }],
    ['program:10:127', { kind: 'program', channel: 10, number: 127 }],
  ])('parses %s and formats it back', (text, parsed) => {
    expect(parseControlId(text)).toEqual(parsed)
    expect(formatControlId(parseControlId(text))).toBe(text)
    expect(isControlId(text)).toBe(true)
  })

  it.each([
    ['', 'empty', 'bad control id "": a control id cannot be empty'],
    ['knob:1', 'unknown-kind', 'unknown control kind "knob"'],
    ['KEY:1', 'not-canonical', 'write the kind in lower case (key)'],
    ['key', 'bad-arguments', 'expected key:N, e.g. key:0'],
    ['key:x', 'bad-arguments', 'the index must be a whole number, got "x"'],
    ['key:-1', 'bad-arguments', 'the index must be a whole number, got "-1"'],
    ['key:03', 'not-canonical', 'write the index without leading zeros (3)'],
    ['key:1:2', 'bad-arguments', 'expected key:N'],
    ['jog:1', 'bad-arguments', 'jog takes no number (write jog)'],
    ['note:0:60', 'out-of-range', 'the MIDI channel must be from 1 to 16, got 0'],
    ['note:17:60', 'out-of-range', 'the MIDI channel must be from 1 to 16, got 17'],
    ['note:1:128', 'out-of-range', 'the note number must be from 0 to 127, got 128'],
    ['cc:1', 'bad-arguments', 'expected cc:CH:N, e.g. cc:1:7'],
    ['pitchbend', 'bad-arguments', 'expected pitchbend:CH, e.g. pitchbend:1'],
    ['pitchbend:1:0', 'bad-arguments', 'expected pitchbend:CH, e.g. pitchbend:1'],
    ['pitchbend:0', 'out-of-range', 'the MIDI channel must be from 1 to 16, got 0'],
    ['pitchbend:01', 'not-canonical', 'write the MIDI channel without leading zeros (1)'],
    ['PitchBend:1', 'not-canonical', 'write the kind in lower case (pitchbend)'],
    ['pitch_bend:1', 'unknown-kind', 'unknown control kind "pitch_bend"'],
    ['program:1', 'bad-arguments', 'expected program:CH:N, e.g. program:1:0'],
    ['program:1:128', 'out-of-range', 'the program number must be from 0 to 127, got 128'],
    ['key:10000', 'out-of-range', 'the index must be from 0 to 9999'],
    ['joystick', 'bad-arguments', 'expected joystick:AXIS (x, y or z), e.g. joystick:x'],
    ['joystick:0', 'bad-arguments', 'the joystick axis must be x, y or z, got "0"'],
    ['joystick:X', 'not-canonical', 'write the joystick axis in lower case (x)'],
    ['joystick:x:1', 'bad-arguments', 'expected joystick:AXIS (x, y or z), e.g. joystick:x'],
  ])('refuses %j (%s)', (text, code, message) => {
    let caught: unknown
    try {
      parseControlId(text)
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(ControlIdError)
    expect((caught as ControlIdError).code).toBe(code)
    expect((caught as ControlIdError).message).toContain(message)
    expect(isControlId(text)).toBe(false)
  })

  it('builds indexed ids', () => {
    expect(controlId('key', 7)).toBe('key:7')
    expect(controlId('encoder', 0)).toBe('encoder:0')
  })

  it('splits addresses', () => {
    expect(parseControlAddress('desk/key:0')).toEqual({
      surface: 'desk',
      control: 'key:0',
      parsed: { kind: 'key', index: 0 },
    })
    expect(() => parseControlAddress('key:0')).toThrow('expected <surface>/<control>')
    expect(() => parseControlAddress('my desk/key:0')).toThrow('letters, digits, _ and - only')
    expect(() => parseControlAddress('desk/key:a')).toThrow('the index must be a whole number')
  })
})
