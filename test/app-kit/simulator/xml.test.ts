/**
 * The legacy XML command reader and writer (`src/app-kit/simulator/xml.ts`): bounded, strict, never a throw
 * other than its own error for any text, and what it writes it reads back.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SIM_LIMITS } from '../../../src/app-kit/simulator/limits.js'
import {
  commandXml,
  legacyScheduleAction,
  parseCommandXml,
  replyXml,
  scheduleCommandXml,
  XmlCommandError,
} from '../../../src/app-kit/simulator/xml.js'
import { expectMapping } from '../../helpers/table.js'

const attrName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/).filter((n) => n !== 'command')
const anyText = fc.string({ unit: 'grapheme', maxLength: 40 })

describe('legacy XML commands', () => {
  it('reads what commandXml writes, whatever the text of names and values', () => {
    fc.assert(
      fc.property(
        attrName,
        fc.dictionary(attrName, anyText, { maxKeys: 6 }),
        fc.dictionary(anyText, anyText, { maxKeys: 6 }),
        (command, params, variables) => {
          const read = parseCommandXml(commandXml({ command, params, variables }))
          expect(read).toEqual({ command, params: { ...params }, variables: { ...variables } })
        },
      ),
    )
  })

  it('any text either reads or fails with XmlCommandError, never anything else', () => {
    const pieces = fc.constantFrom(
      '<',
      '>',
      '/>',
      '</',
      '=',
      '"',
      "'",
      '&',
      '&amp;',
      '&#0;',
      '<!',
      '<?xml',
      ' ',
      'newblue_ext',
      'data',
      'variable',
      'command',
      'name',
      'value',
    )
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 4 })), { maxLength: 40 }), (parts) => {
        const text = parts.join('')
        try {
          parseCommandXml(text)
        } catch (err) {
          expect(err).toBeInstanceOf(XmlCommandError)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('refuses what is unbounded: too long, too many elements, nested too deep', () => {
    expect(() => parseCommandXml(`<newblue_ext command="a" x="${'y'.repeat(SIM_LIMITS.maxXmlChars)}"/>`)).toThrow(
      XmlCommandError,
    )
    const many = `<newblue_ext command="schedule"><data>${'<variable name="a" value="b"/>'.repeat(SIM_LIMITS.maxXmlElements)}</data></newblue_ext>`
    expect(many.length).toBeLessThan(SIM_LIMITS.maxXmlChars)
    expect(() => parseCommandXml(many)).toThrow('too many elements')
    expect(() =>
      parseCommandXml('<newblue_ext command="a"><data><variable name="a"><x/></variable></data></newblue_ext>'),
    ).toThrow('nested too deep')
    expect(() => parseCommandXml('<newblue_ext command="a" b="&#xD800;"/>')).toThrow('bad character reference')
  })

  it('the legacy schedule actions combined with + (notes 4.1) map to one schedule action', () => {
    expectMapping(legacyScheduleAction, {
      'animatein+override+duration': 'animateIn',
      'animateout+override': 'animateOut',
    })
    expectMapping(legacyScheduleAction, {
      update: 'update',
      'update+alert': 'alert',
      CUTIN: 'cutin',
      'update+fly': 'update+fly',
    })
  })

  it('a reply: scalars as attributes, lists as elements, success as 1 or 0, text escaped', () => {
    expect(
      replyXml('getX', {
        result: { command: 'getX', reply: 'getX', success: true, n: 3, s: 'a"<b>&', list: [{ a: '1' }], names: ['x'] },
      }),
    ).toBe(
      '<newblue_ext command="getX" reply="getX" success="1" n="3" s="a&#34;&#60;b&#62;&#38;"><item a="1"/><name>x</name></newblue_ext>',
    )
    expect(replyXml('saveProject', {})).toBe('<newblue_ext command="saveProject" reply="saveProject" success="1"/>')
    expect(replyXml('x', { result: { success: false } })).toContain('success="0"')
  })

  it('scheduleCommandXml runs a command it read and answers an error for text it cannot', async () => {
    const ran: unknown[] = []
    const ok = await scheduleCommandXml('<newblue_ext command="getTime"/>', (cmd) => {
      ran.push(cmd)
      return { result: { command: 'getTime', reply: 'getTime', success: true, time: 1.5 } }
    })
    expect(ok.reply).toBe('<newblue_ext command="getTime" reply="getTime" success="1" time="1.5"/>')
    const bad = await scheduleCommandXml('<newblue_ext', (cmd) => ran.push(cmd))
    expect(bad.command).toBeUndefined()
    expect(bad.reply).toMatch(/success="0" error="invalid xml: /)
    expect(ran).toHaveLength(1)
  })
})
