/**
 * Application profiles: how one variant of the real application answers, as data. One YAML file per
 * variant in `config/app-profiles/` (`captivate`, the default, `titler-live-2021`, `strict-unknowns`,
 * ...), every fact with the line of `shared/spec/protocol-notes.md` (or `decisions.md`) it comes from.
 * The simulator plays a profile; `panelbridge probe` reports a real application in the same terms; the
 * daemon's end-to-end tests run against every file of the folder, so a profile added there joins them
 * with no code change. A profile is data, never a fork of the simulator.
 *
 * A file may name `based_on: <profile>` and give only the facts that differ.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LineCounter, parseDocument } from 'yaml'
import { z } from 'zod'
import { DEFAULT_APP_PROFILE as DEFAULT_PROFILE } from '../../defaults.js'
import { PROFILE_FACTS, PROFILE_FACT_NAMES, type ProfileFact, type ProfileFacts } from '../app-profile-facts.js'

/** Where the shipped profiles live (`config/app-profiles`, found from this file in `src` or `dist`). */
const PROFILE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'config', 'app-profiles')
/** The profile the simulator plays when none is named (in `src/defaults.ts`, which `probe`'s help reads too). */
export { DEFAULT_PROFILE }
/** Largest profile file read, bytes. */
const MAX_PROFILE_FILE_BYTES = 64 * 1024
/** Longest chain of `based_on`. */
const MAX_BASE_DEPTH = 8

// The facts' vocabulary (names and values) lives beside the simulator (`../app-profile-facts.ts`), so that
// `panelbridge probe`'s observations of a real application use the very same names without importing it.
export { PROFILE_FACTS, PROFILE_FACT_NAMES, type ProfileFact, type ProfileFacts }

/** What `notifyClientConnected` answers (protocol notes 1.3), as JSON text. */
const clientInfoSchema = z.strictObject({
  buildDate: z.string(),
  buildTime: z.string(),
  host: z.string(),
  platform: z.string(),
  sku: z.string(),
  version: z.string(),
})
export type ClientInfo = z.infer<typeof clientInfoSchema>

const citation = z.string().min(3).max(400)
const factEntries = Object.fromEntries(
  PROFILE_FACT_NAMES.map((k) => [k, z.strictObject({ value: PROFILE_FACTS[k], source: citation }).optional()]),
) as { [K in ProfileFact]: z.ZodOptional<z.ZodObject<{ value: (typeof PROFILE_FACTS)[K]; source: typeof citation }>> }

const fileSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a profile name is lowercase letters, digits and -'),
  summary: z.string().min(3).max(400),
  based_on: z.string().optional(),
  client_info: z.strictObject({ value: clientInfoSchema, source: citation }).optional(),
  facts: z.strictObject(factEntries),
})

/** One variant of the application, every fact resolved (from the file or its base). */
export interface SimProfile {
  name: string
  summary: string
  based_on?: string
  facts: ProfileFacts
  clientInfo: ClientInfo
  /** Where each fact (and `client_info`) comes from. */
  sources: Record<ProfileFact | 'client_info', string>
  /** The file it was read from, if any. */
  file?: string
}

/** A profile file that cannot be used: `file:line:col: what`. */
export class ProfileError extends Error {
  override readonly name = 'ProfileError'
}

interface RawProfile {
  data: z.infer<typeof fileSchema>
  file: string
}

function readRaw(file: string): RawProfile {
  const size = statSync(file).size
  if (size > MAX_PROFILE_FILE_BYTES) throw new ProfileError(`${file}: larger than ${MAX_PROFILE_FILE_BYTES} bytes`)
  const text = readFileSync(file, 'utf8')
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines })
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    const at = lines.linePos(e.pos[0])
    throw new ProfileError(`${file}:${at.line}:${at.col}: ${e.message.split('\n')[0]}`)
  }
  const parsed = fileSchema.safeParse(doc.toJS({ maxAliasCount: 0 }))
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const node = doc.getIn(issue.path as (string | number)[], true) as { range?: [number, number] } | undefined
    const at = lines.linePos(node?.range?.[0] ?? 0)
    throw new ProfileError(`${file}:${at.line}:${at.col}: ${issue.path.join('.') || '(top)'}: ${issue.message}`)
  }
  if (parsed.data.name !== basename(file, '.yaml')) {
    throw new ProfileError(`${file}:1:1: name ${parsed.data.name} is not the file's name`)
  }
  return { data: parsed.data, file }
}

function resolve(raw: RawProfile, byName: ReadonlyMap<string, RawProfile>, depth = 0): SimProfile {
  const base = raw.data.based_on
  let inherited: SimProfile | undefined
  if (base !== undefined) {
    const b = byName.get(base)
    if (!b) throw new ProfileError(`${raw.file}:1:1: based_on names no profile: ${base}`)
    if (depth >= MAX_BASE_DEPTH) throw new ProfileError(`${raw.file}:1:1: based_on goes deeper than ${MAX_BASE_DEPTH}`)
    inherited = resolve(b, byName, depth + 1)
  }
  const facts = {} as Record<ProfileFact, unknown>
  const sources = {} as Record<ProfileFact | 'client_info', string>
  for (const k of PROFILE_FACT_NAMES) {
    const own = raw.data.facts[k]
    if (own) {
      facts[k] = own.value
      sources[k] = own.source
    } else if (inherited) {
      facts[k] = inherited.facts[k]
      sources[k] = `${inherited.sources[k]} (from ${inherited.name})`
    } else {
      throw new ProfileError(`${raw.file}:1:1: facts.${k} is missing (and no based_on gives it)`)
    }
  }
  const info =
    raw.data.client_info ??
    (inherited ? { value: inherited.clientInfo, source: inherited.sources.client_info } : undefined)
  if (!info) throw new ProfileError(`${raw.file}:1:1: client_info is missing (and no based_on gives it)`)
  sources.client_info = info.source
  return {
    name: raw.data.name,
    summary: raw.data.summary,
    ...(base !== undefined ? { based_on: base } : {}),
    facts: facts as ProfileFacts,
    clientInfo: info.value,
    sources,
    file: raw.file,
  }
}

const cache = new Map<string, ReadonlyMap<string, SimProfile>>()

/** Every profile of a folder (default: the shipped ones), by name, read once per folder. */
export function loadProfiles(dir = PROFILE_DIR): ReadonlyMap<string, SimProfile> {
  const cached = cache.get(dir)
  if (cached) return cached
  const raws = new Map<string, RawProfile>()
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    const raw = readRaw(join(dir, f))
    raws.set(raw.data.name, raw)
  }
  const out = new Map<string, SimProfile>()
  for (const [name, raw] of raws) out.set(name, resolve(raw, raws))
  cache.set(dir, out)
  return out
}

/** The names of the shipped profiles, the default first. */
export function profileNames(dir = PROFILE_DIR): string[] {
  const names = [...loadProfiles(dir).keys()]
  return [DEFAULT_PROFILE, ...names.filter((n) => n !== DEFAULT_PROFILE)].filter((n) => names.includes(n))
}

/** A shipped profile by name, a profile given as is, or the default; an unknown name throws ProfileError. */
export function getProfile(profile: string | SimProfile | undefined = DEFAULT_PROFILE): SimProfile {
  if (typeof profile !== 'string') return profile
  const found = loadProfiles().get(profile)
  if (!found) {
    throw new ProfileError(`no application profile named ${profile} (known: ${profileNames().join(', ')})`)
  }
  return found
}

/** The facts where `profile` differs from `base` (the default profile), in report order. */
export function profileDifferences(profile: SimProfile, base: SimProfile = getProfile(DEFAULT_PROFILE)): ProfileFact[] {
  return PROFILE_FACT_NAMES.filter((k) => profile.facts[k] !== base.facts[k])
}

// ---- what the facts mean for the scheduler object ------------------------------------------------

/**
 * The scheduler's methods a profile publishes (protocol notes 1.3), in their natural order. Where
 * NewBlue's Captivate module (S1, d064e20) calls each: `scheduleCommand` captivate.js 357, 482;
 * `scheduleAction` lib/actions.js 239; `notifyClientConnected` captivate.js 236; `getImageSet`
 * captivate.js 307; `getValueForKey` captivate.js 599; `_cmp_v1_query` captivate.js 561;
 * `_cmp_v1_queryFeedbackState` captivate.js 942; `_cmp_v1_performAction` lib/actions.js 65.
 * `scheduleCommandXml` is the 2019 Titler Live module's (S2 4f39275). The simulator's `scheduler.ts`
 * implements every one.
 */
export function schedulerMethods(facts: ProfileFacts): string[] {
  return [
    'scheduleCommand',
    'scheduleAction',
    'notifyClientConnected',
    ...(facts.xml_commands ? ['scheduleCommandXml'] : []),
    ...(facts.layer_state || facts.companion_registry ? ['getValueForKey'] : []),
    ...(facts.companion_registry
      ? ['getImageSet', '_cmp_v1_query', '_cmp_v1_queryFeedbackState', '_cmp_v1_performAction']
      : []),
  ]
}

/**
 * The scheduler's signals a profile publishes (protocol notes 2.1). S1 connects `messageIn`
 * (captivate.js 406), `_cmp_v1_handleActorRegistryChangeEvent` (422), `_cmp_v1_handleFeedbackChangeEvent`
 * (435) and `onNotify` (481); `newCommandXML` and `variablesChanged` are the docs' (D-sig).
 */
export function schedulerSignals(facts: ProfileFacts): string[] {
  return [
    'onNotify',
    ...(facts.xml_commands ? ['newCommandXML'] : []),
    ...(facts.variables_signal ? ['variablesChanged'] : []),
    ...(facts.companion_registry
      ? ['messageIn', '_cmp_v1_handleActorRegistryChangeEvent', '_cmp_v1_handleFeedbackChangeEvent']
      : []),
  ]
}
