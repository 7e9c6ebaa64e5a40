/**
 * An SVG's cost to draw, bounded before the rasteriser sees it (issue 46, item 1): the `<use>` bomb,
 * references that loop or leave the file, entities and DOCTYPEs are refused by the scan; real icons
 * (gradients, symbols used a few times, style sheets with local references) pass it.
 */
import { describe, expect, it } from 'vitest'
import { sniffPicture } from '../../../src/surfaces/render/picture.js'
import { SVG_LIMITS, svgCostProblem } from '../../../src/surfaces/render/picture.js'
import { useBomb } from '../../helpers/svg-bomb.js'

const svg = (body: string): string => `<svg xmlns="http://www.w3.org/2000/svg" width="72" height="72">${body}</svg>`

describe('svgCostProblem', () => {
  it('refuses the <use> bomb (seven levels of ten) by its expanded count, from a file of about 2 KB', () => {
    const bomb = useBomb(7, 10)
    expect(bomb.length).toBeLessThan(2500)
    expect(svgCostProblem(bomb)).toBe(
      `an SVG that draws more than ${SVG_LIMITS.maxDrawnElements} elements once its <use> references are expanded is not read`,
    )
    // As the header reader sees it: the picture is refused before anything decodes it.
    expect(() => sniffPicture(Buffer.from(bomb))).toThrow('once its <use> references are expanded')
  })

  it('lets a small expansion through (three levels of ten: about a thousand elements)', () => {
    expect(svgCostProblem(useBomb(3, 10))).toBeUndefined()
  })

  it('passes a real icon: a gradient, a symbol used twice, a style sheet naming a local gradient', () => {
    const icon = svg(
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#000"/></linearGradient>' +
        '<symbol id="dot"><circle cx="4" cy="4" r="4"/></symbol></defs>' +
        '<style>.a { fill: url(#g) }</style><!-- a comment <use href="#nowhere"/> -->' +
        '<rect class="a" width="72" height="72"/><use href="#dot"/><use xlink:href="#dot" x="10"/>' +
        '<path d="M0 0 L72 72" stroke="url(\'#g\')"/>',
    )
    expect(svgCostProblem(icon)).toBeUndefined()
  })

  it('refuses a reference that loops back to itself', () => {
    expect(svgCostProblem(svg('<g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g>'))).toBe(
      'an SVG whose references lead back to themselves is not read',
    )
    expect(svgCostProblem(svg('<g id="a"><use href="#a"/></g>'))).toContain('lead back to themselves')
  })

  it('refuses a pattern bomb made with fill="url(#…)" as it refuses one made with <use>', () => {
    const levels = ['<pattern id="p0"><rect width="1" height="1"/></pattern>']
    for (let l = 1; l <= 7; l++) {
      const rects = Array.from({ length: 10 }, () => `<rect width="1" height="1" fill="url(#p${l - 1})"/>`).join('')
      levels.push(`<pattern id="p${l}">${rects}</pattern>`)
    }
    expect(
      svgCostProblem(svg(`<defs>${levels.join('')}</defs><rect width="9" height="9" fill="url(#p7)"/>`)),
    ).toContain('once its <use> references are expanded')
  })

  it('refuses anything outside the file: a URL, a file, a data: picture, an @import', () => {
    for (const body of [
      '<image href="http://127.0.0.1/x.png" width="9" height="9"/>',
      '<image xlink:href="file:///etc/passwd"/>',
      '<image href="data:image/png;base64,AAAA"/>',
      '<rect fill="url(other.svg#p)"/>',
      '<style>@import url(#a);</style>',
      '<use href="other.svg#a"/>',
    ]) {
      expect(svgCostProblem(svg(body)), body).toContain('names anything but an element of the file (#id)')
    }
  })

  it('refuses filters, and counts a masked or translucent element as a layer of its own', () => {
    for (const body of [
      '<filter id="b"><feGaussianBlur stdDeviation="50"/></filter><rect filter="url(#b)"/>',
      '<rect style="fill: red; filter: blur(4px)"/>',
      '<style>rect { filter: url(#b) }</style><rect/>',
    ]) {
      expect(svgCostProblem(svg(body)), body).toBe('an SVG with filters is not read')
    }
    const layers = Math.floor(SVG_LIMITS.maxDrawnElements / SVG_LIMITS.layerCost)
    const masked = (n: number): string =>
      svg('<mask id="m"><rect width="9" height="9" fill="white"/></mask>' + '<rect mask="url(#m)"/>'.repeat(n))
    expect(svgCostProblem(masked(Math.floor(layers / 2)))).toBeUndefined()
    expect(svgCostProblem(masked(layers + 1))).toContain('once its <use> references are expanded')
    expect(svgCostProblem(svg('<g opacity="0.5"><rect/></g>'.repeat(layers + 1)))).toContain('are expanded')
  })

  it('refuses a DOCTYPE and entity declarations', () => {
    expect(svgCostProblem(`<!DOCTYPE svg [<!ENTITY a "aaaa">]>${svg('')}`)).toBe('an SVG with a DOCTYPE is not read')
    expect(svgCostProblem(`<!DOCTYPE svg>${svg('')}`)).toBe('an SVG with a DOCTYPE is not read')
  })

  it('refuses more elements than its bound, and nesting deeper than its bound, without expanding anything', () => {
    const many = svg('<rect/>'.repeat(SVG_LIMITS.maxElements + 1))
    expect(svgCostProblem(many)).toBe(`an SVG of more than ${SVG_LIMITS.maxElements} elements is not read`)
    const deep = svg('<g>'.repeat(SVG_LIMITS.maxDepth + 1) + '</g>'.repeat(SVG_LIMITS.maxDepth + 1))
    expect(svgCostProblem(deep)).toBe(`an SVG nested more than ${SVG_LIMITS.maxDepth} deep is not read`)
  })

  it('refuses text that is not made of tags it can read', () => {
    expect(svgCostProblem('<svg width="9" height="9"><rect x="1"y="2"/></svg>')).toBe('the SVG is not well-formed')
  })
})
