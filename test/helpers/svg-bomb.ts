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
