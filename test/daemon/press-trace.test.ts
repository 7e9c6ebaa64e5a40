/**
 * The press trace (`panelbridge_press_stage_seconds{stage}`, issue 45 item 1): a press on the page against
 * the simulator, for every application profile, fills every stage of its way to the light, each once.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { profileNames, startSimulator } from '../../src/app-kit/simulator/index.js'
import { Daemon } from '../../src/daemon/daemon.js'
import { until, untilFound, SAFETY_MS } from '../helpers/until.js'

const STAGES = ['sent', 'reply', 'notified', 'applied', 'drawn', 'written', 'light']

/** Each stage's observation count in `/metrics` text. */
function stageCounts(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of text.matchAll(/^panelbridge_press_stage_seconds_count\{stage="(\w+)"\} (\d+)$/gm))
    out.set(m[1]!, Number(m[2]))
  return out
}

describe.each(profileNames())('the press trace against the %s profile', (profile) => {
  it('a press through the page fills every stage once, from sent to written', async () => {
    const sim = await startSimulator({ profile, host: '127.0.0.1' })
    onTestFinished(() => sim.close())
    const dir = await mkdtemp(join(tmpdir(), 'pb-press-trace-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'config.yaml')
    await writeFile(
      file,
      `version: 1
app: { url: '${sim.httpUrl}', notifications: '${sim.wsUrl}' }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
    feedback: { title: 'Lower Third' }
`,
    )
    const daemon = await Daemon.start({ config: file, drivers: [], reloadTimeoutMs: SAFETY_MS, watch: false })
    onTestFinished(() => daemon.stop())
    await until('the link up', () => daemon.status().app.state === 'connected')

    const page = new WebSocket(new URL('ws', daemon.url.replace(/^http/, 'ws')))
    onTestFinished(() => page.close())
    const colors: (string | undefined)[] = []
    page.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { type: string; control?: string; face?: { color?: string } }
      if (m.type === 'key' && m.control === 'key:0') colors.push(m.face?.color)
    })
    await new Promise((resolve, reject) => page.once('open', resolve).once('error', reject))
    const off = await untilFound('the key drawn', () => colors.at(-1))
    const before = stageCounts(await (await fetch(new URL('metrics', daemon.url))).text())
    expect(STAGES.map((s) => before.get(s) ?? 0)).toEqual(STAGES.map(() => 0))

    page.send(JSON.stringify({ type: 'down', surface: 'console', control: 'key:0' }))
    page.send(JSON.stringify({ type: 'up', surface: 'console', control: 'key:0' }))
    await until('the key lit', () => colors.some((c) => c !== off))
    // The reply runs beside the notification: it may come after the light.
    let after = new Map<string, number>()
    const end = Date.now() + SAFETY_MS
    while (!STAGES.every((s) => after.has(s)) && Date.now() < end) {
      after = stageCounts(await (await fetch(new URL('metrics', daemon.url))).text())
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(Object.fromEntries(STAGES.map((s) => [s, after.get(s)]))).toEqual(
      Object.fromEntries(STAGES.map((s) => [s, 1])),
    )
  })
})
