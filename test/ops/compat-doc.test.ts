/**
 * Issue 20, Build 6: `docs/application-compatibility.md` carries the profile tables generated from
 * `config/app-profiles/` (fails when stale: run `npm run compat-doc`), every shipped profile and every
 * fact in it, each with its source.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  COMPAT_BEGIN,
  COMPAT_DOC,
  COMPAT_END,
  compatProfiles,
  withCompatProfiles,
} from '../../scripts/generate-compat-doc.js'
import { loadProfiles, PROFILE_FACT_NAMES } from '../../src/app-kit/simulator/profile.js'
import { expectCurrent, expectStaleReplaced, generatedSection } from './generated-section.js'

const section = generatedSection(readFileSync(COMPAT_DOC, 'utf8'), COMPAT_BEGIN, COMPAT_END, withCompatProfiles)

describe('docs/application-compatibility.md', () => {
  it('names every shipped profile and every fact, each fact of each profile with its source', () => {
    const text = compatProfiles()
    for (const [name, profile] of loadProfiles()) {
      expect(text).toContain(`### \`${name}\``)
      for (const fact of PROFILE_FACT_NAMES) {
        expect(profile.sources[fact].length).toBeGreaterThan(3)
        expect(text).toContain(`| \`${fact}\` | \`${String(profile.facts[fact])}\` |`)
      }
    }
  })

  it('carries the profile tables generated from config/app-profiles (run npm run compat-doc when this fails)', () => {
    expectCurrent(section)
  })

  it('a stale table is noticed: the generator replaces what stands between the markers', () => {
    expectStaleReplaced(section, '| `socket_reply` |', '| `socket_answer` |')
  })
})
