/**
 * What a newcomer reads first (issue 40, item 5): the README's first paragraph names the application and
 * says how its command interface is reached; the system requirements it lists are the ones
 * `scripts/ensure-system-deps.sh` checks (generated from its list: run `npx tsx
 * scripts/generate-system-deps-doc.ts` when this fails); and the README, the install guide and the man
 * page tell the one story `learn` does with the service running: it follows the service.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  ENSURE_SCRIPT,
  SYSTEM_DEPS_BEGIN,
  SYSTEM_DEPS_END,
  systemDeps,
  withSystemDeps,
} from '../../scripts/generate-system-deps-doc.js'
import { expectCurrent, expectStaleReplaced, generatedSection } from './generated-section.js'

const read = (file: string): string => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8')
const readme = read('README.md')
const script = readFileSync(ENSURE_SCRIPT, 'utf8')

describe('the README', () => {
  it('first paragraph names the application and where its command interface is, and how its ports are set', () => {
    const first = readme.split('\n\n')[1]!
    for (const words of ['Captivate', 'Titler Live', 'NewBlue', 'http://127.0.0.1:9022', 'Generic HTML.httpPort'])
      expect(first).toContain(words)
  })

  describe('lists what the tests need from the system, from ensure-system-deps.sh', () => {
    const section = generatedSection(readme, SYSTEM_DEPS_BEGIN, SYSTEM_DEPS_END, (doc) => withSystemDeps(doc, script))

    it('as the generator makes it from the script now', () => {
      expectCurrent(section)
    })

    it('every entry of the script, each package once', () => {
      // Every quoted entry line of the list is read: none is skipped by the parser.
      const entries = /^REQUIREMENTS=\(\n([\s\S]*?)^\)/m
        .exec(script)![1]!
        .split('\n')
        .filter((l) => l.trim() !== '')
      const deps = systemDeps(script)
      expect(deps).toHaveLength(entries.length)
      expect(deps.map((d) => d.pkg)).toContain('prometheus')
      const listed = readme.slice(readme.indexOf(SYSTEM_DEPS_BEGIN), readme.indexOf(SYSTEM_DEPS_END))
      expect([...listed.matchAll(/^- `([^`]+)`/gm)].map((m) => m[1])).toEqual(deps.map((d) => d.pkg))
    })

    it('a stale list is noticed and replaced', () => {
      expectStaleReplaced(section, '- `chromium`', '- `chromium-browser`')
    })
  })
})

describe('learn with the service running: one story', () => {
  /** The man page's paragraph on learn, its roff escapes undone. */
  const man = /^\.B learn[\s\S]*?(?=^\.TP)/m.exec(read('packaging/deb/panelbridge.1'))![0].replace(/\\-/g, '-')
  const install = read('docs/install.md')
  const help = read('src/commands/learn.ts')

  it('learn itself follows a running daemon and takes no device; --record needs the devices', () => {
    // The usage text as printed, its lines joined: wrapping it again changes no word.
    const words = help.replace(/\s+/g, ' ')
    expect(words).toContain("learn follows the daemon's event stream and takes no device from it")
    expect(words).toContain('It needs the devices: not while a daemon holds them.')
  })

  it.each([
    ['the README', readme.slice(readme.indexOf('3. Find control ids'), readme.indexOf('4. Check it'))],
    [
      'the install guide',
      install.slice(install.indexOf("To find a device's serial"), install.indexOf('If `listen.host`')),
    ],
    ['the man page', man],
  ])('%s says so, and asks the service stopped only for --record', (_where, text) => {
    const flat = text.replace(/\s+/g, ' ')
    expect(flat).toMatch(/learn follows it through its (web )?API and leaves it the devices/)
    expect(flat).toMatch(/learn --record( FILE)?` opens the devices itself|learn --record opens the devices itself/)
    expect(flat).not.toMatch(/stop the service first|stop the service and run/)
  })
})
