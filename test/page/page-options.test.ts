/**
 * The page's address options and hotkey layout (`src/page/options.ts`, `src/page/hotkeys.ts`), and the one
 * viewer rule the page and the server share (`viewerParam`): pure functions, tested in Node.
 */
import { describe, expect, it } from 'vitest'
import { dialHotkeyLabel, gridHotkey, KEY_ROWS, keyLabel } from '../../src/page/hotkeys.js'
import { allSurfacesHref, pageOptions, surfaceHref } from '../../src/page/options.js'
import { viewerParam } from '../../src/face/protocol.js'

describe('pageOptions', () => {
  it('reads ?surface=NAME and ?view=1', () => {
    expect(pageOptions('')).toEqual({ view: false })
    expect(pageOptions('?surface=desk')).toEqual({ surface: 'desk', view: false })
    expect(pageOptions('?surface=&view=1')).toEqual({ view: true })
    expect(pageOptions('?surface=a%20b%2Fc&view=yes')).toEqual({ surface: 'a b/c', view: true })
  })

  it('a viewer is any view value but 0, false and no; the server reads the same rule', () => {
    for (const on of ['1', 'true', '', 'on', ' YES ']) expect(viewerParam(on)).toBe(true)
    for (const off of ['0', 'false', 'no', 'No ', 'FALSE']) expect(viewerParam(off)).toBe(false)
    expect(viewerParam(null)).toBe(false)
    expect(pageOptions('?view=0').view).toBe(false)
    expect(pageOptions('?view').view).toBe(true)
  })

  it('links to one surface (a viewer stays a viewer) and back to all, relative to the page', () => {
    expect(surfaceHref('desk', false)).toBe('?surface=desk')
    expect(surfaceHref('a b&c', true)).toBe('?surface=a+b%26c&view=1')
    expect(pageOptions(surfaceHref('a b&c', true))).toEqual({ surface: 'a b&c', view: true })
    expect(allSurfacesHref(false)).toBe('./')
    expect(allSurfacesHref(true)).toBe('?view=1')
  })
})

describe('the hotkey layout', () => {
  it('puts the grid on the keyboard by position: four rows of ten', () => {
    expect(KEY_ROWS.map((row) => row.length)).toEqual([10, 10, 10, 10])
    expect(new Set(KEY_ROWS.flat()).size).toBe(40)
    expect([gridHotkey(0, 0), gridHotkey(0, 9), gridHotkey(1, 0), gridHotkey(2, 9), gridHotkey(3, 9)]).toEqual([
      'Digit1',
      'Digit0',
      'KeyQ',
      'Semicolon',
      'Slash',
    ])
    expect([gridHotkey(4, 0), gridHotkey(0, 10)]).toEqual([undefined, undefined])
  })

  it('labels keys as a US keyboard does; dials take Shift and the digit row', () => {
    expect(['KeyQ', 'Digit0', 'Semicolon', 'Comma', 'Period', 'Slash'].map(keyLabel)).toEqual([
      'Q',
      '0',
      ';',
      ',',
      '.',
      '/',
    ])
    expect([dialHotkeyLabel(0), dialHotkeyLabel(9), dialHotkeyLabel(10)]).toEqual(['Shift+1', 'Shift+0', undefined])
  })
})
