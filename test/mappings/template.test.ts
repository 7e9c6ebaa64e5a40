/** Templates: names up to `}}` with spaces, missing values render empty, a sole template keeps its type. */
import { describe, expect, it } from 'vitest'
import { fillParam, parseTemplate, renderTemplate, soleTemplate } from '../../src/mappings/template.js'

describe('templates', () => {
  it('renders name, play, variables with spaces in their names, and continuous values', () => {
    const { template, problems } = parseTemplate(
      '{{name}} {{play}}: {{var.Home Score}}-{{var.Away Score}} at {{speed}}×',
    )
    expect(problems).toEqual([])
    expect(
      renderTemplate(template, {
        name: 'Score Bug',
        play: 'Paused',
        variables: { 'Home Score': '2', 'Away Score': '1' },
        speed: 0.5,
      }),
    ).toBe('Score Bug Paused: 2-1 at 0.5×')
    expect(renderTemplate(template, {})).toBe(' : - at ×')
    expect(template.dynamic).toBe(true)
    expect(parseTemplate('plain').template.dynamic).toBe(false)
  })

  it('a parameter that is exactly one template takes the value with its type; anything else is text', () => {
    expect(fillParam('{{value}}', { value: 1.5 })).toBe(1.5)
    expect(fillParam('{{delta}}', { delta: -3 })).toBe(-3)
    expect(fillParam('x{{value}}', { value: 1.5 })).toBe('x1.5')
    expect(fillParam('{{var.Home Score}}', { variables: { 'Home Score': '7' } })).toBe('7')
    expect(fillParam({ a: ['{{step}}', 'Cam {{step}}'] }, { step: 2 })).toEqual({ a: [2, 'Cam 2'] })
    expect(fillParam('{{value}}', {})).toBe('')
    expect(soleTemplate('{{value}} {{value}}')).toBeUndefined()
    expect(soleTemplate('{{nmae}}')).toBeUndefined()
  })

  it('names every unknown template, and never evaluates anything', () => {
    expect(parseTemplate('{{constructor}} {{process.exit()}}').problems).toHaveLength(2)
    expect(renderTemplate(parseTemplate('{{constructor}}').template, {})).toBe('{{constructor}}')
  })
})
