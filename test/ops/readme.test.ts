/**
 * Issue 13, Build 6: the README a newcomer follows. Its configuration reference is generated from the
 * schema (fails when stale: run `npm run config-reference`), `.ci/run` still finds the test command
 * after its marker, and the run command is the daemon's.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  REFERENCE_BEGIN,
  REFERENCE_END,
  configReference,
  withConfigReference,
} from '../../scripts/generate-config-reference.js'
import { expectCurrent, expectStaleReplaced, generatedSection } from './generated-section.js'

const README = fileURLToPath(new URL('../../README.md', import.meta.url))
const CI_RUN = fileURLToPath(new URL('../../.ci/run', import.meta.url))
const readme = readFileSync(README, 'utf8')
const reference = generatedSection(readme, REFERENCE_BEGIN, REFERENCE_END, withConfigReference)

describe('README.md', () => {
  it('carries the configuration reference generated from the schema (run npm run config-reference when this fails)', () => {
    expectCurrent(reference)
  })

  it('the reference lists every section, nested keys, defaults and descriptions', () => {
    const ref = configReference()
    for (const row of [
      '| `version` | `1` | yes |',
      '| `app.url` | URL |  | `"http://127.0.0.1:9022"` | The application’s command interface. |',
      '| `listen.port` | integer 0–65535 |  | `8088` |',
      '| `surfaces.<name>.serial (driver: streamdeck)` |',
      '| `surfaces.<name>.rows (driver: web)` | integer 1–16 | yes |',
      '| `bindings[].on` | text | yes |',
      // An action is a command, a wait, a page turn or a resync: one of them, none required alone.
      '| `bindings[].press.command` | text | one of `command`, `wait_ms`, `page`, `resync`, `clip` |',
      '| `bindings[].press.wait_ms` | integer 0–60000 | one of `command`, `wait_ms`, `page`, `resync`, `clip` |',
      '| `bindings[].hold.page` | text | one of `command`, `page` |',
      '| `bindings[].toggle.on` | mapping or list of mapping 1–32 entries | yes |',
      '| `bindings[].feedback.replay_state` | `disabled`, `armed`, `recording`, `replay`, `playback` |',
    ])
      expect(ref).toContain(row)
  })

  it('a stale reference is noticed: the generator replaces what stands between the markers', () => {
    expectStaleReplaced(reference, '| `app.url` |', '| `app.address` |')
  })

  it('gives the test command where .ci/run reads it, and the run command', () => {
    const ciRun = readFileSync(CI_RUN, 'utf8')
    // The very awk program .ci/run uses, run on this README.
    const awk = /readme_command=\$\(awk '([\s\S]*?)' README\.md\)/.exec(ciRun)![1]!
    expect(execFileSync('awk', [awk, README], { encoding: 'utf8' })).toBe('npm ci && npm test\n')
    expect(readme).toContain('```sh\nnpm ci && npm start\n```')
    expect(readme).toContain('http://127.0.0.1:8088/')
  })
})
