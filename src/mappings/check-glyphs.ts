/**
 * The loader's warning about label characters no key font draws (they show as boxes, on the hardware
 * keys and the page alike): each label's fixed text and each of its play-state words (`labels:`), read
 * against the fonts by `missingGlyphs` (DejaVu, then the emoji and CJK fallbacks, with the Debian
 * package that would draw a character when it is not installed). What a template fills in is not
 * known before it is drawn, so only the text around templates is checked.
 *
 * The fonts' character tables are read only for a label with a character past DejaVu's fast path, once
 * per font file (a few kB of ranges each): a file of Latin labels reads nothing.
 */
import { missingGlyphs, type MissingGlyph } from '../surfaces/render/fonts.js'
import type { Path, Problems } from './problems.js'
import { pathText } from './problems.js'
import type { Binding } from './schema.js'
import { parseTemplate } from './template.js'

/** The most characters one warning names; the rest are counted. */
const NAMED_PER_LABEL = 5

/** `'ሀ' (U+1200)`. */
function glyphText(g: MissingGlyph): string {
  return `'${g.char}' (U+${g.codePoint.toString(16).toUpperCase().padStart(4, '0')})`
}

/** The warning for one label's missing characters, or undefined when every one is drawn. */
export function missingGlyphsMessage(
  where: string,
  text: string,
  files?: Parameters<typeof missingGlyphs>[1],
): string | undefined {
  const fixed = parseTemplate(text)
    .template.parts.map((p) => ('text' in p ? p.text : ' '))
    .join('')
  const missing = files ? missingGlyphs(fixed, files) : missingGlyphs(fixed)
  if (missing.length === 0) return undefined
  const named = missing.slice(0, NAMED_PER_LABEL).map(glyphText).join(', ')
  const more = missing.length > NAMED_PER_LABEL ? ` and ${missing.length - NAMED_PER_LABEL} more` : ''
  const packages = [...new Set(missing.flatMap((g) => (g.package ? [g.package] : [])))]
  const unshipped = missing.some((g) => g.package === undefined)
  const remedy = [
    packages.length > 0 ? `install ${packages.join(' and ')} (docs/install.md)` : undefined,
    unshipped
      ? 'no shipped font has ' + (packages.length > 0 ? 'the others' : missing.length === 1 ? 'it' : 'them')
      : undefined,
  ]
    .filter((x) => x !== undefined)
    .join('; ')
  return `${where}: ${named}${more} ${missing.length === 1 ? 'draws' : 'draw'} as a box on the keys: ${remedy}`
}

/** Warns at a binding's `label` and each of its `labels:` words about characters no key font draws. */
export function checkLabelGlyphs(problems: Problems, b: Binding, index: number): void {
  const at = (...p: Path): Path => ['bindings', index, ...p]
  const texts: { path: Path; text: string }[] = []
  if (b.label !== undefined) texts.push({ path: at('label'), text: b.label })
  for (const [state, words] of Object.entries(b.labels ?? {})) texts.push({ path: at('labels', state), text: words })
  for (const { path, text } of texts) {
    const message = missingGlyphsMessage(pathText(path), text)
    if (message !== undefined) problems.add(path, 'warning', message)
  }
}
