/**
 * Issue 25, item 4: a room of boxes. `ops/grafana/panelbridge.json` (the dashboard) and
 * `ops/prometheus/panelbridge-rules.yml` (recording rules and alerts) name only metrics that a live
 * daemon's `/metrics` exports, with labels it puts on them; the dashboard is Grafana-shaped (every panel
 * has a datasource and targets with an expression, filtered by the `$instance` box variable);
 * `promtool check rules` accepts the rules and every dashboard expression, and `promtool test rules`
 * runs the alerts' unit tests (`ops/prometheus/panelbridge-rules.test.yml`).
 *
 * promtool comes from Debian's `prometheus` package (scripts/ensure-system-deps.sh installs it; its
 * postinst starts no server where policy-rc.d forbids it, and the tests never start one).
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink } from '../../src/log.js'
import { call } from '../daemon/helpers.js'
import { CUTIN_KEY, simulatedConfig } from '../helpers/config.js'
import { SAFETY_MS } from '../helpers/until.js'

const OPS = new URL('../../ops/', import.meta.url)
const DASHBOARD_FILE = new URL('grafana/panelbridge.json', OPS)
const RULES_FILE = new URL('prometheus/panelbridge-rules.yml', OPS)
const RULES_TEST_FILE = new URL('prometheus/panelbridge-rules.test.yml', OPS)
const PROMTOOL = '/usr/bin/promtool'
/** Series Prometheus makes itself for every scrape target, not the daemon. */
const PROMETHEUS_OWN = new Set(['up'])
/** What the dashboard's variables stand for when its expressions are checked as PromQL. */
const VARIABLES: [RegExp, string][] = [
  [/\$__rate_interval/g, '5m'],
  [/\$instance/g, '.*'],
]

// ---- the files ---------------------------------------------------------------------------------------

interface Target {
  refId?: unknown
  expr?: unknown
  datasource?: unknown
}
interface Panel {
  id?: unknown
  type?: unknown
  title?: unknown
  datasource?: unknown
  gridPos?: { x: number; y: number; w: number; h: number }
  targets?: Target[]
}
interface Dashboard {
  uid?: unknown
  title?: unknown
  schemaVersion?: unknown
  panels: Panel[]
  templating: { list: { name: string; type: string; query?: unknown; datasource?: unknown }[] }
}
interface Rule {
  record?: string
  alert?: string
  expr: string
  for?: string
}

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard
const rules = (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
)
const graphPanels = dashboard.panels.filter((p) => p.type !== 'row')
const dashboardExprs = graphPanels.flatMap((p) => (p.targets ?? []).map((t) => String(t.expr)))
const variableQuery = (name: string): string => {
  const v = dashboard.templating.list.find((x) => x.name === name)
  const q = v?.query
  return typeof q === 'string' ? q : String((q as { query?: unknown } | undefined)?.query)
}
/** Every expression the files evaluate, with where it comes from. */
const allExprs: [string, string][] = [
  ...graphPanels.flatMap((p) =>
    (p.targets ?? []).map((t): [string, string] => [`panel "${String(p.title)}"`, String(t.expr)]),
  ),
  ['variable $instance', variableQuery('instance').replace(/^label_values\((.*),\s*\w+\)$/, '$1')],
  ...rules.map((r): [string, string] => [r.alert ?? r.record ?? '?', r.expr]),
]
const recorded = new Set(rules.flatMap((r) => (r.record !== undefined ? [r.record] : [])))

// ---- PromQL, as far as names go ------------------------------------------------------------------------

/** A metric selector in an expression: its name and the label names it matches on. */
interface Selector {
  name: string
  labels: string[]
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'inf', 'nan'])

/**
 * The metric selectors of a PromQL expression: strings, ranges, numbers and grouping clauses out, label
 * matchers read and removed, and what is left that is not a function (followed by `(`) or a keyword is
 * a metric name. Enough for the expressions these files hold; a name it cannot place fails the test.
 */
function selectors(expr: string): Selector[] {
  let s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const out: Selector[] = []
  s = s.replace(/([A-Za-z_:][\w:]*)?\s*\{([^}]*)\}/g, (_m, name: string | undefined, inner: string) => {
    const labels = [...inner.matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!)
    // A selector without a name (`{__name__=...}`) stays nameless here, and so counts as unknown below.
    out.push({ name: name ?? '', labels })
    return ' '
  })
  s = s.replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, ' ')
  for (const m of s.matchAll(/[A-Za-z_:][\w:]*/g)) {
    const rest = s.slice(m.index + m[0].length)
    if (/^\s*\(/.test(rest) || KEYWORDS.has(m[0].toLowerCase())) continue
    out.push({ name: m[0], labels: [] })
  }
  return out
}

// ---- a live daemon's exposition --------------------------------------------------------------------------

/** Each metric family of an exposition: its type, and the label names its samples carry. */
interface Family {
  type: string
  labels: Set<string>
  samples: number
}

/** The families of a Prometheus text exposition, histogram and summary series under their own names. */
function families(text: string): Map<string, Family> {
  const out = new Map<string, Family>()
  const declared = new Map<string, Family>()
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line)
    if (type) {
      const f: Family = { type: type[2]!, labels: new Set(), samples: 0 }
      declared.set(type[1]!, f)
      const series =
        f.type === 'histogram'
          ? ['', '_bucket', '_sum', '_count']
          : f.type === 'summary'
            ? ['', '_sum', '_count']
            : ['']
      for (const suffix of series) out.set(type[1]! + suffix, { type: f.type, labels: new Set(), samples: 0 })
      continue
    }
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? \S+$/.exec(line)
    const f = sample ? out.get(sample[1]!) : undefined
    if (!sample || !f) continue
    f.samples++
    for (const m of (sample[2] ?? '').matchAll(/([A-Za-z_]\w*)="/g)) f.labels.add(m[1]!)
  }
  return out
}

const CONFIG = simulatedConfig(CUTIN_KEY)

const dirs: string[] = []
let exposition = new Map<string, Family>()

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-dashboard-'))
  dirs.push(dir)
  const file = join(dir, 'config.yaml')
  writeFileSync(file, CONFIG)
  const prev = setLogSink(() => undefined)
  const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: SAFETY_MS })
  try {
    const reply = await call(daemon.url, 'GET', '/metrics')
    expect(reply.status).toBe(200)
    exposition = families(reply.text)
  } finally {
    await daemon.stop()
    setLogSink(prev)
  }
})
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

// ---- the tests ---------------------------------------------------------------------------------------------

describe('reading PromQL for its metric names', () => {
  it.each([
    [
      'rate(panelbridge_commands_total{outcome="error"}[5m])',
      [{ name: 'panelbridge_commands_total', labels: ['outcome'] }],
    ],
    [
      'histogram_quantile(0.95, sum by (instance, le) (rate(a_bucket{instance=~"$instance"}[$__rate_interval])))',
      [{ name: 'a_bucket', labels: ['instance'] }],
    ],
    [
      'round(instance:x:rate5m * 1e6) > 0.05 and on (instance) up == 0',
      [
        { name: 'instance:x:rate5m', labels: [] },
        { name: 'up', labels: [] },
      ],
    ],
    [
      '{state="ok"} or time() - c',
      [
        { name: '', labels: ['state'] },
        { name: 'c', labels: [] },
      ],
    ],
  ])('%s', (expr, expected) => {
    expect(selectors(expr)).toEqual(expected)
  })

  it('finds a misspelt name (so the checks below can fail)', () => {
    const names = selectors('sum(rate(panelbridge_comands_total[5m]))').map((s) => s.name)
    expect(names).toEqual(['panelbridge_comands_total'])
    expect(exposition.has('panelbridge_comands_total')).toBe(false)
  })
})

describe('every metric the dashboard and the rules name', () => {
  it('exists in a live daemon’s /metrics (or is a recording rule of the rules file, or Prometheus’s own up)', () => {
    expect(exposition.size).toBeGreaterThan(10)
    const unknown: string[] = []
    for (const [where, expr] of allExprs) {
      const found = selectors(expr)
      if (found.length === 0) unknown.push(`${where}: no metric in ${expr}`)
      for (const { name } of found)
        if (!exposition.has(name) && !recorded.has(name) && !PROMETHEUS_OWN.has(name)) unknown.push(`${where}: ${name}`)
    }
    expect(unknown).toEqual([])
  })

  it('is matched only on labels its samples carry (job and instance come from the scrape)', () => {
    const wrong: string[] = []
    for (const [where, expr] of allExprs)
      for (const { name, labels } of selectors(expr)) {
        const f = exposition.get(name)
        if (!f || f.samples === 0) continue
        for (const l of labels)
          if (l !== 'job' && l !== 'instance' && !f.labels.has(l)) wrong.push(`${where}: ${name}{${l}}`)
      }
    expect(wrong).toEqual([])
  })

  it('that the alerts and the dashboard read by state has every state series from the start', () => {
    // An alert on state="refused" or state="permission-denied" must not wait for a first change.
    const refused = exposition.get('panelbridge_config_loaded')
    const surfaces = exposition.get('panelbridge_surfaces')
    expect(refused?.labels.has('state')).toBe(true)
    expect(refused?.samples).toBe(2)
    expect(surfaces?.labels.has('state')).toBe(true)
    expect(surfaces?.samples).toBe(5)
  })

  it('covers what issue 25 asks for: link, both latencies, failed commands, surfaces, config refused', () => {
    const inDashboard = new Set(dashboardExprs.flatMap((e) => selectors(e).map((s) => s.name)))
    for (const name of [
      'panelbridge_app_link_up',
      'panelbridge_event_to_request_seconds_bucket',
      'panelbridge_notification_to_feedback_seconds_bucket',
      'panelbridge_commands_total',
      'panelbridge_surfaces_open',
      'panelbridge_surfaces',
      'panelbridge_config_loaded',
    ])
      expect(inDashboard, name).toContain(name)
    const alerts = new Map(rules.flatMap((r) => (r.alert !== undefined ? [[r.alert, r] as const] : [])))
    expect(alerts.get('PanelbridgeAppLinkStale')).toMatchObject({ expr: 'panelbridge_app_link_up == 0', for: '30s' })
    expect(alerts.get('PanelbridgeSurfaceFailed')?.expr).toContain('state="failed"')
    expect(alerts.get('PanelbridgeSurfacePermissionDenied')?.expr).toContain('state="permission-denied"')
    expect(alerts.get('PanelbridgeConfigRefused')?.expr).toContain('state="refused"')
    expect(alerts.get('PanelbridgeCommandFailures')?.expr).toMatch(/command_failures.*>/)
  })
})

describe('ops/grafana/panelbridge.json', () => {
  it('is a Grafana dashboard: uid, title, schemaVersion, panels on a 24-column grid with unique ids', () => {
    expect(dashboard.uid).toBe('panelbridge-room')
    expect(typeof dashboard.title).toBe('string')
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36)
    const ids = dashboard.panels.map((p) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const p of dashboard.panels) {
      expect(typeof p.id, String(p.title)).toBe('number')
      expect(p.gridPos, String(p.title)).toBeDefined()
      const g = p.gridPos!
      expect(g.x >= 0 && g.w > 0 && g.h > 0 && g.x + g.w <= 24, String(p.title)).toBe(true)
    }
  })

  it('has a datasource variable and a multi-select $instance (box) variable from the daemon’s own series', () => {
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]))
    expect(vars.get('datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' })
    expect(vars.get('instance')).toMatchObject({ type: 'query', multi: true, includeAll: true })
    expect(variableQuery('instance')).toBe('label_values(panelbridge_app_link_up, instance)')
  })

  it('gives every panel a title, the Prometheus datasource and targets with a refId and an expression per box', () => {
    expect(graphPanels.length).toBeGreaterThanOrEqual(10)
    for (const p of graphPanels) {
      const name = String(p.title)
      expect(name.length, 'title').toBeGreaterThan(0)
      expect(p.datasource, name).toEqual({ type: 'prometheus', uid: '${datasource}' })
      expect(p.targets?.length, name).toBeGreaterThan(0)
      const refs = p.targets!.map((t) => t.refId)
      expect(new Set(refs).size, name).toBe(refs.length)
      for (const t of p.targets!) {
        expect(typeof t.refId, name).toBe('string')
        expect(typeof t.expr === 'string' && t.expr.length > 0, name).toBe(true)
        expect(String(t.expr), name).toContain('instance=~"$instance"')
      }
    }
  })
})

// ---- promtool ----------------------------------------------------------------------------------------------

/** promtool, or why not: the tests below fail with that sentence rather than pass without it. */
function promtool(): string {
  try {
    accessSync(PROMTOOL, constants.X_OK)
    return PROMTOOL
  } catch {
    throw new Error(
      `${PROMTOOL} is missing: install Debian's prometheus package (scripts/ensure-system-deps.sh, the first step of npm test, does)`,
    )
  }
}

/** Runs promtool; resolves with its exit code and output (a non-zero exit is an answer, not a throw). */
async function runPromtool(args: string[], cwd?: string): Promise<{ code: number; out: string }> {
  const r = await promisify(execFile)(promtool(), args, { cwd, timeout: 30_000 }).then(
    (ok) => ({ code: 0, out: ok.stdout + ok.stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof err.code === 'number' ? err.code : -1,
      out: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  )
  return r
}

/** The dashboard's expressions as recording rules, so promtool parses them as PromQL. */
function dashboardAsRules(exprs: string[]): string {
  const lines = ['groups:', '  - name: dashboard', '    rules:']
  exprs.forEach((e, i) => {
    const expr = VARIABLES.reduce((s, [re, v]) => s.replace(re, v), e)
    lines.push(`      - record: dashboard:expr_${i}`, `        expr: ${JSON.stringify(expr)}`)
  })
  return lines.join('\n') + '\n'
}

describe('promtool', () => {
  it('check rules accepts ops/prometheus/panelbridge-rules.yml', async () => {
    const r = await runPromtool(['check', 'rules', RULES_FILE.pathname])
    expect(r.out).toContain(`SUCCESS: ${rules.length} rules found`)
    expect(r.code).toBe(0)
  })

  it('test rules passes the alerts’ unit tests, which exercise every alert', async () => {
    const tests = parse(readFileSync(RULES_TEST_FILE, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string }[] }[]
    }
    const tested = new Set(tests.tests.flatMap((t) => (t.alert_rule_test ?? []).map((a) => a.alertname)))
    expect([...tested].sort()).toEqual(rules.flatMap((r) => (r.alert !== undefined ? [r.alert] : [])).sort())
    const r = await runPromtool(['test', 'rules', 'panelbridge-rules.test.yml'], new URL('prometheus/', OPS).pathname)
    expect(r.out).toContain('SUCCESS')
    expect(r.code).toBe(0)
  })

  it('parses every dashboard expression as PromQL, and refuses a broken one (so that pass means something)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-dashboard-promql-'))
    dirs.push(dir)
    const good = join(dir, 'dashboard.yml')
    writeFileSync(good, dashboardAsRules(dashboardExprs))
    const r = await runPromtool(['check', 'rules', good])
    expect(r.out).toContain(`SUCCESS: ${dashboardExprs.length} rules found`)
    expect(r.code).toBe(0)
    const bad = join(dir, 'broken.yml')
    writeFileSync(bad, dashboardAsRules(['sum by (instance (rate(panelbridge_commands_total[5m]))']))
    expect((await runPromtool(['check', 'rules', bad])).code).not.toBe(0)
  })
})
