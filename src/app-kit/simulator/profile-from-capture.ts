/**
 * A `panelbridge probe` capture as an application profile: the facts the capture observed, the rest
 * taken from the default profile (`captivate`), each fact's source saying where it came from
 * (`capture <file> <time>`). So a user's real application can be played by the simulator
 * (`panelbridge sim --replay-capture FILE`) and written into `config/app-profiles/` as YAML.
 */
import { basename } from 'node:path'
import { stringify } from 'yaml'
import { CAPTURE_LIMITS, CaptureError, parseCapture, type ParsedCapture } from '../probe-capture.js'
import { readRegularFile } from '../../read-regular.js'
import { isRecord } from '../../wire.js'
import {
  DEFAULT_PROFILE,
  getProfile,
  PROFILE_FACT_NAMES,
  PROFILE_FACTS,
  type ClientInfo,
  type ProfileFact,
  type SimProfile,
} from './profile.js'

const CLIENT_INFO_FIELDS = ['buildDate', 'buildTime', 'host', 'platform', 'sku', 'version'] as const
/** Longest text kept of one client-info field (the profile schema takes short texts). */
const CLIENT_INFO_MAX_CHARS = 100

/** A profile name from a capture's file name: lowercase letters, digits and `-`, as profile files need. */
export function captureProfileName(file: string): string {
  const stem = basename(file)
    .replace(/\.json$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return `capture-${stem || 'probe'}`.slice(0, 63).replace(/-+$/, '')
}

/** notifyClientConnected's reply from the capture, when it has every field as text. */
function clientInfoOf(application: unknown): ClientInfo | undefined {
  let info = application
  if (typeof info === 'string') {
    try {
      info = JSON.parse(info)
    } catch {
      return undefined
    }
  }
  if (!isRecord(info)) return undefined
  const out: Record<string, string> = {}
  for (const k of CLIENT_INFO_FIELDS) {
    const v = info[k]
    if (typeof v !== 'string') return undefined
    out[k] = v.slice(0, CLIENT_INFO_MAX_CHARS)
  }
  return out as unknown as ClientInfo
}

/**
 * The profile a capture shows: each fact the capture observed (a value valid for the fact), the
 * others from `captivate`. `file` names the capture in the sources.
 */
export function profileFromCapture(capture: ParsedCapture, file: string): SimProfile {
  const base = getProfile(DEFAULT_PROFILE)
  const at = `capture ${basename(file)} ${capture.started}`
  const facts = { ...base.facts } as Record<ProfileFact, unknown>
  const sources = { ...base.sources }
  const seen: ProfileFact[] = []
  for (const k of PROFILE_FACT_NAMES) {
    const entry = capture.facts.find((f) => f.fact === k && f.verdict !== 'unchecked' && f.value !== undefined)
    const value = entry ? PROFILE_FACTS[k].safeParse(entry.value) : undefined
    if (entry && value?.success) {
      facts[k] = value.data
      sources[k] = `${at}: ${entry.seen}`.slice(0, 400)
      seen.push(k)
    } else {
      sources[k] = `${base.sources[k]} (from ${base.name}: not observed in ${at})`.slice(0, 400)
    }
  }
  const info = clientInfoOf(capture.application)
  sources.client_info = info ? `${at}: notifyClientConnected` : `${base.sources.client_info} (from ${base.name})`
  return {
    name: captureProfileName(file),
    summary:
      `The application panelbridge probe saw (${at}): ${seen.length} facts observed, the others as ${base.name}.`.slice(
        0,
        400,
      ),
    facts: facts as SimProfile['facts'],
    clientInfo: info ?? base.clientInfo,
    sources,
  }
}

/**
 * Reads a capture file and turns it into a profile. Throws CaptureError. Only a regular file is read
 * (a FIFO is never waited on, a device such as /dev/zero never read without end), and at most
 * CAPTURE_LIMITS.maxFileBytes of it.
 */
export async function profileFromCaptureFile(file: string): Promise<SimProfile> {
  const read = await readRegularFile(file, CAPTURE_LIMITS.maxFileBytes)
  if ('error' in read) throw new CaptureError(`${file}: ${read.error.code ?? read.error.message}`)
  if ('notRegular' in read) throw new CaptureError(`${file}: ${read.notRegular}, not a capture file`)
  if ('tooLarge' in read) throw new CaptureError(`${file}: larger than ${CAPTURE_LIMITS.maxFileBytes} bytes`)
  try {
    return profileFromCapture(parseCapture(read.bytes.toString('utf8')), file)
  } catch (err) {
    if (err instanceof CaptureError) throw new CaptureError(`${file}: ${err.message}`)
    throw err
  }
}

/** A profile as a file of `config/app-profiles/` (every fact written out, no `based_on`). */
export function profileToYaml(profile: SimProfile): string {
  const facts: Record<string, { value: unknown; source: string }> = {}
  for (const k of PROFILE_FACT_NAMES) facts[k] = { value: profile.facts[k], source: profile.sources[k] }
  const doc = {
    name: profile.name,
    summary: profile.summary,
    client_info: { value: profile.clientInfo, source: profile.sources.client_info },
    facts,
  }
  return `# Written by panelbridge from a probe capture; every fact says where it came from.\n${stringify(doc, { lineWidth: 0 })}`
}
