/**
 * Several applications from one daemon (issue 27, `apps:`): `check` refuses an application name the file
 * does not have, at its line; two independent applications from one file, each key sending to and
 * following its own (two simulators on port 0); `/api/status` lists each with its link, `/metrics`
 * counts by application.
 */
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { PrometheusMetrics } from '../../src/daemon/metrics.js'
import { FEEDBACK_COLORS } from '../../src/mappings/constants.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { captureLogs } from '../helpers/logs.js'
import { until, SAFETY_MS } from '../helpers/until.js'
import { appsHead, configFile, direct, ownSimulator } from './apps-rig.js'
import { freePort, saveAsEditors, takenPort } from './helpers.js'

const WAIT = { timeout: 15_000, interval: 20 }
const TITLE = 'Lower Third'

async function errorsOf(text: string): Promise<string[]> {
  const r = await loadConfigText(text, 'c.yaml')
  return r.problems.filter((p) => p.severity === 'error').map(formatProblem)
}

/** A file's lines after its applications: a 1×4 web console, key:0 taking TITLE to air on the default one; `more` after. */
const consoleKey0 = (more = '') => `surfaces:
  console: { driver: web, rows: 1, columns: 4 }
bindings:
  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
${more}`

const TWO = (extra = '') => `version: 1
apps:
  main: { url: "http://127.0.0.1:9022" }
  graphics2: { url: "http://127.0.0.1:9122" }
${consoleKey0(extra)}`

describe('check: the applications a file names', () => {
  it('loads apps: with bindings, feedback and commands naming them', async () => {
    const text = TWO(`  - on: console/key:1
    app: graphics2
    press: [{ command: schedule, params: { action: cutin, title: "${TITLE}" } }, { command: schedule, app: main, params: { action: cutout, title: "${TITLE}" } }]
    feedback: { app: main, title: "${TITLE}" }
`)
    expect(await errorsOf(text)).toEqual([])
  })

  it('refuses an unknown application at its line: a binding, its feedback, a command, a resync, mirror_of', async () => {
    const text = TWO(`  - on: console/key:1
    app: grafix2
    feedback: { app: mian, title: "${TITLE}" }
  - on: console/key:2
    press: { command: schedule, app: backup, params: { action: cutin, title: "${TITLE}" } }
  - on: console/key:3
    press: { resync: graphics2 }
`).replace(
      'graphics2: { url: "http://127.0.0.1:9122" }',
      'graphics2: { url: "http://127.0.0.1:9122" }\n  spare: { url: "http://127.0.0.1:9222", mirror_of: nowhere }',
    )
    expect(await errorsOf(text)).toEqual([
      'c.yaml:5:53: apps.spare: mirror_of: no application named nowhere (known: main, graphics2, spare)',
      'c.yaml:12:10: app: no application named grafix2 (known: main, graphics2, spare)',
      'c.yaml:13:22: feedback.app: no application named mian (known: main, graphics2, spare)',
      'c.yaml:15:38: app: no application named backup (known: main, graphics2, spare)',
      'c.yaml:17:22: resync: graphics2 mirrors no application (give mirror_of in apps:)',
    ])
  })

  it('refuses app: beside apps:, and an unknown application with app: alone (its one is main)', async () => {
    expect(await errorsOf(TWO().replace('apps:', 'app: { url: "http://127.0.0.1:9022" }\napps:'))).toEqual([
      'c.yaml:3:1: apps: give app: (one application, named main) or apps:, not both',
    ])
    const single = `version: 1
app: { url: "http://127.0.0.1:9022" }
surfaces:
  console: { driver: web, rows: 1, columns: 4 }
bindings:
  - on: console/key:0
    app: main
  - on: console/key:1
    app: graphics2
`
    expect(await errorsOf(single)).toEqual(['c.yaml:9:10: app: no application named graphics2 (known: main)'])
  })
})

async function startDaemon(text: string): Promise<{ daemon: Daemon; metrics: PrometheusMetrics; file: string }> {
  const file = await configFile('pb-apps-', text)
  captureLogs()
  const metrics = new PrometheusMetrics({ processMetrics: false })
  const daemon = await Daemon.start({ config: file, drivers: [], watch: false, metrics, reloadTimeoutMs: SAFETY_MS })
  onTestFinished(() => daemon.stop())
  return { daemon, metrics, file }
}

describe('two independent applications from one file', () => {
  it('each key sends to and follows its own; status lists both with their links; metrics count by application', async () => {
    const [a, b] = [await ownSimulator(), await ownSimulator()]
    const { daemon, metrics } = await startDaemon(
      appsHead({ main: a, graphics2: b }) +
        consoleKey0(`    feedback: { title: "${TITLE}" }
  - on: console/key:1
    app: graphics2
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
    feedback: { title: "${TITLE}" }
`),
    )
    await expect.poll(() => daemon.status().apps?.map((x) => x.link.state), WAIT).toEqual(['connected', 'connected'])
    const status = daemon.status()
    expect(status.app.state).toBe('connected')
    expect(status.apps).toEqual([
      expect.objectContaining({ name: 'main', url: a.httpUrl, default: true, simulated: false }),
      expect.objectContaining({ name: 'graphics2', url: b.httpUrl, default: false, simulated: false }),
    ])
    const key = (k: string) => daemon.controlState('console', k)
    expect(daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await expect.poll(() => key('key:0'), WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(a.http.commands('schedule')).toHaveLength(1)
    expect(b.http.commands('schedule')).toHaveLength(0)
    expect(key('key:1')).toMatchObject({ color: FEEDBACK_COLORS.play.Off })

    expect(daemon.inject('console', 'key:1', 'press')).toBeUndefined()
    await expect.poll(() => key('key:1'), WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(b.http.commands('schedule')).toHaveLength(1)
    expect(a.http.commands('schedule')).toHaveLength(1)

    // Taken off air on graphics2 alone: only its key follows.
    await fetch(`${b.httpUrl}/api/command/schedule?action=cutout&title=${encodeURIComponent(TITLE)}`)
    await expect.poll(() => key('key:1'), WAIT).toMatchObject({ color: FEEDBACK_COLORS.play.Off })
    expect(key('key:0')).toMatchObject({ color: FEEDBACK_COLORS.play.Paused })
    expect(key('key:0')).not.toHaveProperty('badge')

    const text = await metrics.text()
    expect(text).toMatch(/panelbridge_application_link_up\{app="graphics2"\} 1/)
    expect(text).toMatch(/panelbridge_application_commands_total\{app="graphics2",outcome="ok"\} 1/)
    expect(text).toMatch(/panelbridge_application_commands_total\{app="main",outcome="ok"\} 1/)

    // One application's link down is that application's: the other's key is not stale.
    await b.close()
    await expect.poll(() => daemon.status().apps?.[1]?.link.state, WAIT).toBe('stale')
    await expect.poll(() => key('key:1'), WAIT).toMatchObject({ badge: 'stale' })
    expect(key('key:0')).not.toHaveProperty('badge')
    expect(daemon.status().app.state).toBe('connected')
  })

  it('a key showing the streaming state of graphics2 is polled on graphics2 and shows its truth (issue 41)', async () => {
    const [a, b] = [await ownSimulator(), await ownSimulator()]
    await direct(b, 'startStreaming', { choice: 'X', serverUrl: 'rtmp://127.0.0.1/live', streamKey: 'k' })
    const { daemon } = await startDaemon(
      appsHead({ main: a, graphics2: b }) +
        consoleKey0(`  - on: console/key:1
    feedback: { app: graphics2, streaming: true }
`),
    )
    await expect.poll(() => daemon.status().apps?.map((x) => x.link.state), WAIT).toEqual(['connected', 'connected'])
    await expect.poll(() => daemon.controlState('console', 'key:1'), WAIT).toMatchObject({ led: 'on' })
    expect(daemon.controlState('console', 'key:1')).not.toHaveProperty('badge')
    expect(b.http.commands('getStreamHostServer').length).toBeGreaterThan(0)
    expect(a.http.commands('getStreamHostServer')).toHaveLength(0)
  })

  it('a reload adds an application (its link made beside the running one) and removes it again', async () => {
    const [a, b] = [await ownSimulator(), await ownSimulator()]
    const one = appsHead({ main: a }) + consoleKey0()
    const two =
      one.replace('\nlisten:', `\n  graphics2: { url: "${b.httpUrl}", notifications: "${b.wsUrl}" }\nlisten:`) +
      `  - on: console/key:1
    app: graphics2
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
    feedback: { title: "${TITLE}" }
`
    const { daemon, file } = await startDaemon(one)
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    expect(daemon.status().apps?.map((x) => x.name)).toEqual(['main'])
    await saveAsEditors(file, two)
    expect(await daemon.reload()).toBe(true)
    await expect
      .poll(() => daemon.status().apps?.map((x) => `${x.name} ${x.link.state}`), WAIT)
      .toEqual(['main connected', 'graphics2 connected'])
    expect(daemon.inject('console', 'key:1', 'press')).toBeUndefined()
    await until('the press at graphics2', () => b.http.commands('schedule').length === 1)
    expect(a.http.commands('schedule')).toHaveLength(0)
    await saveAsEditors(file, one)
    expect(await daemon.reload()).toBe(true)
    expect(daemon.status().apps?.map((x) => x.name)).toEqual(['main'])
    // Its link is closed: the simulator sees no client any more.
    await until('graphics2 left alone', () => b.ws.clientCount === 0)
  })

  it('app: alone is the application named main: the status lists it, and nothing else changes', async () => {
    const a = await ownSimulator()
    const { daemon } = await startDaemon(`version: 1
app: { url: "${a.httpUrl}", notifications: "${a.wsUrl}" }
listen: { host: 127.0.0.1, port: 0 }
${consoleKey0()}`)
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    expect(daemon.status().apps).toEqual([
      { name: 'main', url: a.httpUrl, simulated: false, default: true, link: daemon.status().apps![0]!.link },
    ])
    expect(daemon.status().apps![0]!.link.state).toBe('connected')
  })

  it('a reload whose default link swap fails leaves the other applications as they were (all or nothing)', async () => {
    const [http, ws, taken] = [await freePort(), await freePort(), await takenPort()]
    const [b, c] = [await ownSimulator(), await ownSimulator()]
    const file = (notifications: number, graphics2: typeof b, more = ''): string =>
      `version: 1
apps:
  main: { url: "http://127.0.0.1:${http}", notifications: "ws://127.0.0.1:${notifications}", simulate: true }
  graphics2: { url: "${graphics2.httpUrl}", notifications: "${graphics2.wsUrl}" }
listen: { host: 127.0.0.1, port: 0 }
${consoleKey0(more)}`
    const { daemon, file: path } = await startDaemon(file(ws, b))
    await expect
      .poll(() => daemon.status().apps?.map((x) => `${x.name} ${x.link.state}`), WAIT)
      .toEqual(['main connected', 'graphics2 connected'])
    // main's simulator on its own HTTP port (so swapped in place at the commit) with its notifications on a
    // port this test holds: the swap fails there, after everything was prepared; graphics2 moves to c.
    await saveAsEditors(
      path,
      file(
        taken,
        c,
        `  - on: console/key:1
    app: graphics2
    label: Added
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
`,
      ),
    )
    expect(await daemon.reload()).toBe(false)
    expect(daemon.status().apps?.find((x) => x.name === 'graphics2')?.url).toBe(b.httpUrl)
    expect(c.ws.clientCount).toBe(0)
    await expect.poll(() => daemon.status().app.state, WAIT).toBe('connected')
    await expect.poll(() => b.ws.clientCount, WAIT).toBeGreaterThan(0)
    // The old mapping runs on: key:1 has no binding, so no label.
    const key1 = daemon.controlState('console', 'key:1')
    expect(key1).toHaveProperty('surface', 'console')
    expect(key1).not.toHaveProperty('label')
  })
})
