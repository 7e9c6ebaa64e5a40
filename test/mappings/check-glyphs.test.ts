/**
 * Issue 22, item 14: `check` warns about a label character no key font draws, at the label's
 * file:line:col, naming the character and what would draw it (a Debian package, or no shipped font).
 */
import { describe, expect, it } from 'vitest'
import { missingGlyphsMessage } from '../../src/mappings/check-glyphs.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { FALLBACK_FONT_FILES } from '../../src/surfaces/render/fonts.js'

const file = (bindings: string): string =>
  ['version: 1', 'surfaces: { desk: { driver: web, rows: 1, columns: 4 } }', 'bindings:', bindings].join('\n')

describe('check: characters no key font draws', () => {
  it('warns at the label with the character and its code point; the file still loads', async () => {
    const text = file(
      ['  - on: desk/key:0', '    label: "Cam 1"', '  - on: desk/key:1', '    label: "Ethiopic ሀ and ༀ"'].join('\n'),
    )
    const r = await loadConfigText(text, 'glyphs.yaml')
    expect(r.config).toBeDefined()
    expect(r.problems).toEqual([
      {
        file: 'glyphs.yaml',
        line: 7,
        col: 12,
        severity: 'warning',
        message: "bindings[1].label: 'ሀ' (U+1200), 'ༀ' (U+0F00) draw as a box on the keys: no shipped font has them",
      },
    ])
  })

  it('Latin, emoji and CJK labels (their fonts installed) draw: no warning', async () => {
    const text = file(
      [
        '  - on: desk/key:0',
        '    label: "Cam 1 → ★"',
        '  - on: desk/key:1',
        '    label: "字幕 🎬"',
        '    labels: { Running: "放送中", Off: "off" }',
        '    feedback: { title: "Lower Third" }',
      ].join('\n'),
    )
    const r = await loadConfigText(text, 'glyphs.yaml')
    expect(r.problems.filter((p) => p.message.includes('box'))).toEqual([])
  })

  it('checks the play-state words of labels:, each at its own node', async () => {
    const text = file(
      [
        '  - on: desk/key:0',
        '    label: "{{play}}"',
        '    labels: { Running: "ON ↈ", Off: "off" }',
        '    feedback: { title: "Lower Third" }',
      ].join('\n'),
    )
    const r = await loadConfigText(text, 'glyphs.yaml')
    const glyph = r.problems.filter((p) => p.message.includes('box'))
    expect(glyph).toHaveLength(1)
    expect(glyph[0]).toMatchObject({ line: 6, col: 24, severity: 'warning' })
    expect(glyph[0]!.message).toMatch(/^bindings\[0\]\.labels\.Running: 'ↈ' \(U\+2188\)/)
  })

  it('only the text around templates is checked: a variable name is never drawn', async () => {
    // The variable's title followed: a variable template needs one (issue 43).
    const text = file(['  - on: desk/key:0', '    label: "{{var.ሀ}}"', '    feedback: { title: Bug }'].join('\n'))
    const r = await loadConfigText(text, 'glyphs.yaml')
    expect(r.problems).toEqual([])
  })

  it('names the Debian package when the fallback font that has the character is not installed', () => {
    const missing = {
      emoji: { path: '/nonexistent/emoji.ttf', package: FALLBACK_FONT_FILES.emoji.package },
      cjk: { path: '/nonexistent/cjk.ttc', package: FALLBACK_FONT_FILES.cjk.package },
    }
    expect(missingGlyphsMessage('label', '字幕', missing)).toBe(
      "label: '字' (U+5B57), '幕' (U+5E55) draw as a box on the keys: install fonts-noto-cjk (docs/install.md)",
    )
    expect(missingGlyphsMessage('label', '🎬 ሀ', missing)).toBe(
      "label: '🎬' (U+1F3AC), 'ሀ' (U+1200) draw as a box on the keys: install fonts-noto-color-emoji " +
        '(docs/install.md); no shipped font has the others',
    )
    expect(missingGlyphsMessage('label', 'Cam 1', missing)).toBeUndefined()
  })

  it('names at most five characters and counts the rest', () => {
    const message = missingGlyphsMessage('label', 'ሀሁሂሃሄህሆ')!
    expect(message).toContain("'ሄ' (U+1204) and 2 more draw as a box")
    expect(message).not.toContain('ህ')
  })
})
