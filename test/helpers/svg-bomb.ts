/**
 * The SVG `<use>` bomb of issue 46: `levels` groups, each drawing the one below `fanout` times with
 * `<use>`, over one rectangle — fanout^levels elements drawn from a file of about two kilobytes (seven
 * levels of ten: ten million). No entity, nothing outside the file: only the expansion costs.
 */
export function useBomb(levels = 7, fanout = 10): string {
  const lines = [
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="72" height="72">',
  ]
  lines.push('<defs>', '<rect id="l0" width="1" height="1" fill="red"/>')
  for (let level = 1; level <= levels; level++) {
    const uses = Array.from({ length: fanout }, () => `<use xlink:href="#l${level - 1}"/>`)
    lines.push(`<g id="l${level}">${uses.join('')}</g>`)
  }
  lines.push('</defs>', `<use xlink:href="#l${levels}"/>`, '</svg>')
  return lines.join('\n')
}

/**
 * An SVG within every bound of the cost scan (`svgCostProblem`: `count` plain elements, no `<use>`, no
 * filter) that still takes the rasteriser a very long time: each element is a path stroked with a dash
 * pattern so fine that Skia cuts it into hundreds of thousands of pieces. A few thousand of them hold a
 * core for minutes, in native code nothing can interrupt.
 */
export function slowSvg(count = 3900): string {
  const paths = Array.from(
    { length: count },
    (_, i) => `<path d="M0 ${i % 256} L256 256 L0 256 L256 0 Z" stroke="red" fill="none" stroke-dasharray="0.002"/>`,
  )
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">\n${paths.join('\n')}\n</svg>\n`
}
