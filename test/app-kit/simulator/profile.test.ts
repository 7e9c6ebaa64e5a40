/**
 * Application profiles as data (`src/app-kit/simulator/profile.ts`, `config/app-profiles/`): every shipped
 * profile resolves, every fact has a source, `based_on` fills what a file leaves out, and a bad file
 * is refused at its line and column.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_PROFILE,
  getProfile,
  loadProfiles,
  PROFILE_FACT_NAMES,
  profileDifferences,
  profileNames,
  ProfileError,
  schedulerMethods,
} from '../../../src/app-kit/simulator/profile.js'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-profiles-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text)
  return dir
}

const CAPTIVATE_FACTS = PROFILE_FACT_NAMES.map(
  (f) => `  ${f}: { value: ${JSON.stringify(getProfile().facts[f])}, source: 'notes x' }`,
)
const BASE = `name: base
summary: a base profile
client_info:
  value: { buildDate: d, buildTime: t, host: h, platform: p, sku: s, version: v }
  source: 'notes 1.3'
facts:
${CAPTIVATE_FACTS.join('\n')}
`

describe('application profiles', () => {
  it('ships captivate as the default, first, and the variants the issues name', () => {
    expect(DEFAULT_PROFILE).toBe('captivate')
    expect(profileNames()[0]).toBe('captivate')
    expect(profileNames()).toEqual(
      expect.arrayContaining(['captivate', 'titler-live-2021', 'strict-unknowns', 'feedback-signal-only']),
    )
  })

  it('every fact of every shipped profile has a value and a source that cites the notes or the decisions', () => {
    for (const [, p] of loadProfiles()) {
      for (const fact of [...PROFILE_FACT_NAMES, 'client_info' as const]) {
        expect(p.sources[fact], `${p.name}.${fact}`).toMatch(/notes \d|decisions\.md/)
      }
      for (const fact of PROFILE_FACT_NAMES) expect(p.facts[fact]).toBeDefined()
    }
  })

  it('based_on fills the facts a file leaves out, and says where they came from', () => {
    const strict = getProfile('strict-unknowns')
    expect(strict.facts.data_notification).toBe('event-data')
    expect(strict.sources.data_notification).toMatch(/\(from captivate\)$/)
    expect(profileDifferences(strict)).toContain('title_ids_on_restart')
    expect(profileDifferences(getProfile())).toEqual([])
  })

  it('the scheduler surface follows the facts: no registry, no _cmp_v1 methods', () => {
    expect(schedulerMethods(getProfile('titler-live-2021').facts)).not.toContain('_cmp_v1_query')
    expect(schedulerMethods(getProfile().facts)).toContain('_cmp_v1_performAction')
  })

  it('an unknown name is refused with the known names', () => {
    expect(() => getProfile('no-such')).toThrow(ProfileError)
    expect(() => getProfile('no-such')).toThrow(/known: captivate, /)
  })

  it('a bad file is refused at its line and column; a missing fact with no base is named', async () => {
    const bad = await folder({
      'base.yaml': BASE.replace('socket_reply: { value: "flat-string"', 'socket_reply: { value: "sideways"'),
    })
    expect(() => loadProfiles(bad)).toThrow(/base\.yaml:\d+:\d+: facts\.socket_reply\.value: /)
    const missing = await folder({ 'base.yaml': BASE.replace(/\n {2}values: .*/, '') })
    expect(() => loadProfiles(missing)).toThrow(/facts\.values is missing/)
    const based = await folder({
      'base.yaml': BASE,
      'child.yaml':
        "name: child\nsummary: one change\nbased_on: base\nfacts:\n  values: { value: strings, source: 'notes 3.1' }\n",
    })
    const child = loadProfiles(based).get('child')!
    expect(child.facts.values).toBe('strings')
    expect(child.clientInfo.host).toBe('h')
    const misnamed = await folder({ 'other.yaml': BASE })
    expect(() => loadProfiles(misnamed)).toThrow(/name base is not the file's name/)
    const noBase = await folder({ 'child.yaml': 'name: child\nsummary: x y z\nbased_on: nothing\nfacts: {}\n' })
    expect(() => loadProfiles(noBase)).toThrow(/based_on names no profile: nothing/)
  })
})
