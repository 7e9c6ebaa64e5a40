/**
 * The picture checks (issue 46, item 1) read bytes from a file or from the application: any bytes, and
 * any text shaped like an SVG, give a sniffed picture or a PictureError, never another throw; and the
 * SVG cost scan refuses a nest of `<use>` exactly when its expanded count passes the bound.
 */
import { describe, expect, test } from 'vitest'
import { PictureError, sniffPicture } from '../../src/surfaces/render/picture.js'
import { SVG_LIMITS, svgCostProblem } from '../../src/surfaces/render/picture.js'
import { checkProperty, fc, fuzzParser } from './harness.js'

const tagName = fc.constantFrom('g', 'use', 'rect', 'defs', 'symbol', 'mask', 'pattern', 'style', 'x:y', 'svg')
const attribute = fc
  .tuple(
    fc.constantFrom('id', 'href', 'xlink:href', 'fill', 'mask', 'opacity', 'style', 'width', 'filter', 'x'),
    fc.oneof(
      fc.constantFrom('#a', '#b', 'url(#a)', 'url(http://127.0.0.1/x)', 'data:x', '0.5', 'a', ''),
      fc.string({ maxLength: 8 }),
    ),
  )
  .map(([name, value]) => ` ${name}="${value.replace(/"/g, '')}"`)
/** Text made of SVG-ish pieces: tags open, closed and self-closed, comments, CDATA, stray brackets. */
const svgText = fc
  .array(
    fc.oneof(
      fc.tuple(tagName, fc.array(attribute, { maxLength: 3 })).map(([n, a]) => `<${n}${a.join('')}>`),
      fc.tuple(tagName, fc.array(attribute, { maxLength: 3 })).map(([n, a]) => `<${n}${a.join('')}/>`),
      tagName.map((n) => `</${n}>`),
      fc.constantFrom('<!-- c -->', '<![CDATA[ url(#a) ]]>', '<?xml version="1.0"?>', '<', '>', '"', '<!DOCTYPE x>'),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => `<svg xmlns="http://www.w3.org/2000/svg" width="72" height="72">${parts.join('')}</svg>`)

describe('picture checks', () => {
  fuzzParser('sniffPicture (any bytes)', {
    input: fc.uint8Array({ maxLength: 4096 }),
    parse: (bytes) => sniffPicture(bytes),
    typedError: (e) => e instanceof PictureError,
  })
  fuzzParser('sniffPicture (SVG-shaped text)', {
    input: svgText,
    parse: (text) => sniffPicture(Buffer.from(text)),
    typedError: (e) => e instanceof PictureError,
  })

  test('fuzz: a nest of <use> is refused exactly when its expanded count passes the bound', async () => {
    await checkProperty(
      'use nest',
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 12 }), (levels, fanout) => {
        const lines = ['<svg xmlns="http://www.w3.org/2000/svg" width="72" height="72">', '<defs>', '<rect id="l0"/>']
        const drawn = [1]
        for (let l = 1; l <= levels; l++) {
          lines.push(`<g id="l${l}">${`<use href="#l${l - 1}"/>`.repeat(fanout)}</g>`)
          drawn.push(1 + fanout * (1 + drawn[l - 1]!))
        }
        lines.push('</defs>', `<use href="#l${levels}"/>`, '</svg>')
        // The root, the defs with everything in it, and the last use with what it draws.
        const total = 1 + (1 + drawn.reduce((a, b) => a + b, 0)) + (1 + drawn[levels]!)
        const problem = svgCostProblem(lines.join(''))
        expect(problem !== undefined, `${levels}×${fanout}: ${total} drawn`).toBe(total > SVG_LIMITS.maxDrawnElements)
      }),
    )
  })
})
