/**
 * Keys fit the screen: the stylesheet sizes a surface's keys so that its grid fits the width of the
 * page and the height of the screen below the page's own header (`--chrome`, kept here: the header,
 * the status strip and the surface list above the surfaces, and a surface's own header and padding).
 * So a surface never needs a sideways scroll, and a grid is never taller than the screen.
 */

/** A surface's own header, padding and bottom margin around its keys, when none is on the page yet. */
const SURFACE_CHROME_PX = 32 + 24 + 16
/** The page's bottom padding. */
const PAGE_BOTTOM_PX = 16

function measure(main: HTMLElement): void {
  const top = main.getBoundingClientRect().top + window.scrollY
  const head = main.querySelector<HTMLElement>('.surface:not([hidden]) > header')
  const surface = head ? head.offsetHeight + 10 + 24 + 16 : SURFACE_CHROME_PX
  document.documentElement.style.setProperty('--chrome', `${Math.ceil(top + surface + PAGE_BOTTOM_PX)}px`)
}

/** Keeps `--chrome` up to date as what sits above `main` changes height, and as surfaces come. */
export function trackChrome(main: HTMLElement): void {
  const observer = new ResizeObserver(() => measure(main))
  for (const e of document.body.children) if (e !== main && e instanceof HTMLElement) observer.observe(e)
  new MutationObserver(() => measure(main)).observe(main, { childList: true })
  window.addEventListener('resize', () => measure(main))
  measure(main)
}
