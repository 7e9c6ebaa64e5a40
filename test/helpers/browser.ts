/**
 * Headless Chromium for the browser tests: Debian's `/usr/bin/chromium` driven by playwright-core
 * (never a downloaded browser). Without it a test fails saying how to install it; it is never skipped.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
/** Flags for a closed network and a root user (see the env notes: background networking is refused). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
]

export async function launchChromium(what: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: ${what} needs it. ` +
        'Install the Debian package with "apt-get install -y chromium" (npm test does this where it can).',
    )
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}
