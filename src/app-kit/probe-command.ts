/**
 * What `panelbridge probe` does once its command line is read (`src/commands/probe.ts` reads it and
 * loads this module then, so that no other command loads probe or the simulator's profiles): it probes
 * the application, prints the report against the default profile and writes the capture (`--out`).
 */
import { writeFileSync } from 'node:fs'
import { LINK_CLIENT_VERSION } from '../api/notifications.js'
import type { CaptureFact } from './probe-capture.js'
import type { FactObservation } from './probe-facts.js'
import { runProbe, type ProbeResult } from './probe.js'
import { DEFAULT_PROFILE, getProfile, type SimProfile } from './simulator/profile.js'

export interface ProbeDeps {
  out(line: string): void
  err(line: string): void
  /** Ends the listen window early (the command wires Ctrl-C to it). */
  signal?: AbortSignal
}

/** `probe`'s command line, read. */
export interface ProbeLine {
  url: string
  notifications: string
  listenS: number
  out: string | undefined
}

type Value = string | boolean

function shown(values: Value[]): string {
  return values.map(String).join(' and ')
}

/** Each fact against the default profile: ok, differs (what was seen) or unchecked (why). */
export function factVerdicts(facts: FactObservation[], base: SimProfile): CaptureFact[] {
  return facts.map((f) => {
    const expected = base.facts[f.fact]
    if (f.value === undefined) return { fact: f.fact, verdict: 'unchecked', expected, seen: f.seen }
    const all = [f.value, ...(f.others ?? [])]
    return {
      fact: f.fact,
      verdict: all.every((v) => v === expected) ? 'ok' : 'differs',
      value: f.value,
      expected,
      seen: all.length > 1 ? `${shown(all)}: ${f.seen}` : f.seen,
    }
  })
}

/** One report line per fact: `<fact> ok: <value> — <seen>`, `<fact> differs: <value> (<base>: <v>) — <seen>`, `<fact> unchecked: <why>`. */
export function factLine(f: CaptureFact, baseName: string, others: Value[] = []): string {
  switch (f.verdict) {
    case 'ok':
      return `${f.fact} ok: ${String(f.value)} — ${f.seen}`
    case 'differs':
      return `${f.fact} differs: ${shown([f.value!, ...others])} (${baseName}: ${String(f.expected)}) — ${f.seen}`
    case 'unchecked':
      return `${f.fact} unchecked: ${f.seen}`
  }
}

/** The report, as lines (the heading of each part, then one line per fact and per assumption). */
export function reportLines(result: ProbeResult, verdicts: CaptureFact[], base: SimProfile): string[] {
  const lines = ['', `Compatibility with the default profile (${base.name}):`]
  for (const v of verdicts) {
    const others = result.facts.find((f) => f.fact === v.fact)?.others ?? []
    lines.push(factLine(v, base.name, others))
  }
  lines.push('', "panelbridge's other assumptions:")
  for (const a of result.assumptions) lines.push(`${a.name} ${a.verdict}: ${a.seen}`)
  const counts = { ok: 0, differs: 0, unchecked: 0 }
  for (const v of verdicts) counts[v.verdict]++
  lines.push(
    '',
    `${counts.ok} facts ok, ${counts.differs} differ, ${counts.unchecked} unchecked.` +
      (counts.differs > 0 ? ' Send us the capture (--out FILE) with the differences.' : ''),
  )
  return lines
}

/** Probes the application `line` names, then reports (and writes the capture); resolves with the exit code. */
export async function probeApplication(line: ProbeLine, deps: ProbeDeps): Promise<number> {
  const base = getProfile(DEFAULT_PROFILE)
  deps.out(`panelbridge probe: ${line.url} and ${line.notifications} (read-only)`)
  const result = await runProbe({
    httpUrl: line.url,
    socketUrl: line.notifications,
    listenMs: line.listenS * 1000,
    onLine: (l) => deps.out(l),
    toolVersion: LINK_CLIENT_VERSION,
    ...(deps.signal ? { signal: deps.signal } : {}),
  })
  const verdicts = factVerdicts(result.facts, base)
  const reached = result.reached.http || result.reached.socket
  if (reached) for (const l of reportLines(result, verdicts, base)) deps.out(l)
  else
    deps.err(`panelbridge probe: nothing answers at ${line.url} or ${line.notifications}: is the application running?`)
  let code = reached ? 0 : 1
  if (line.out !== undefined) {
    const capture = result.recorder.finish(
      verdicts,
      result.assumptions.map((a) => ({ ...a })),
    )
    try {
      writeFileSync(line.out, `${JSON.stringify(capture, null, 1)}\n`, { mode: 0o600 })
      deps.out(`capture written to ${line.out} (secrets redacted)`)
    } catch (err) {
      deps.err(`panelbridge probe: cannot write ${line.out}: ${err instanceof Error ? err.message : String(err)}`)
      code = 1
    }
  }
  return code
}
