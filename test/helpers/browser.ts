/**
 * Headless Chromium for the browser tests: Debian's `/usr/bin/chromium` driven by playwright-core
 * (never a downloaded browser). It never throws: a test file keeps the error and every test throws it,
 * because a throw in `beforeAll` would only skip the tests, and a browser test is never skipped.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'

export const CHROMIUM = '/usr/bin/chromium'
/** Flags for a closed network and a root user (background networking is refused here). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
]

/** The browser, or why there is none (`what` names the test that needs it). */
export async function launchChromium(what: string): Promise<Browser | Error> {
  if (!existsSync(CHROMIUM)) {
    return new Error(
      `Chromium is missing at ${CHROMIUM}: ${what} needs it. ` +
        'Install the Debian package with "apt-get install -y chromium" (.ci/run does this).',
    )
  }
  try {
    return await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  } catch (err) {
    return new Error(`Chromium at ${CHROMIUM} did not start: ${(err as Error).message}`)
  }
}

/**
 * One Chromium for a test file: launched before its tests, closed after them. Returns what each test
 * calls for the browser: it throws the launch error instead (never a skip).
 */
export function useChromium(what: string): () => Browser {
  let browser: Browser | undefined
  let error: Error | undefined
  beforeAll(async () => {
    const launched = await launchChromium(what)
    if (launched instanceof Error) error = launched
    else browser = launched
  })
  afterAll(async () => {
    await browser?.close()
  })
  return () => {
    if (!browser) throw error ?? new Error('no browser')
    return browser
  }
}
