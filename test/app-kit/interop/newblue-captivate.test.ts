/**
 * NewBlue's own Companion module for Captivate (S1, `jacouby/companion-module-newblue-captivate` at
 * d064e20, vendored unmodified in `src/app-kit/vendor/newblue-captivate/`) against the simulator, with a minimal stand-in
 * for Companion's host (`companion-host.ts`), in every profile whose facts claim the automation
 * registry: it connects, lists the titles, decodes their 72×72 thumbnails, builds its actions,
 * feedbacks and presets from the registry, follows a play change made over HTTP through
 * `_cmp_v1_handleFeedbackChangeEvent` within 1 s, and its play action takes a title to air.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Jimp } from 'jimp'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'
import { loadProfiles } from '../../../src/app-kit/simulator/profile.js'
import { REGISTRY_NAMES } from '../../../src/app-kit/simulator/registry.js'
import {
  hostOf,
  loadNewBlueCaptivate,
  MODULE_DIR,
  trackModuleTimers,
  type HostRecord,
  type ModuleTimers,
} from './companion-host.js'

const LOWER_THIRD = '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}'
const SCORE_BUG = '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}'
const full = (titleId: string, id: string): string =>
  `${REGISTRY_NAMES.actorPrefix}${titleId}~${REGISTRY_NAMES.scope}~${id}`
/** Colour of the play-state feedback on air (registry.ts ON_AIR_BG). */
const ON_AIR_BG = 0xc62828

/** Git blob ids of the vendored files at d064e20: the copy is the module, unmodified. */
const VENDORED_BLOBS: Record<string, string> = {
  'captivate.js': '0f46e593b7f52043deea74d4ebce4db4e2fe14c1',
  'package.json': 'c4cf66ba2e550e457193493d3c0797f2d16722ae',
  'companion/manifest.json': '0317ce3a33a17a6121d4626080c329586e0f0381',
  'contrib/qwebchannel/package.json': '946a05972d21c50b0f7115ef97d9d0b660f14891',
  'contrib/qwebchannel/qwebchannel.js': '4a212f50d6b5779ee7869f7d143e456ab1341a3a',
  'lib/actions.js': '8de0a3365d634b4c8023a2f0c7817fde2ca5549b',
  'lib/cache.js': '5103ea3356d1d002581a0f2a6c79d993c3365970',
  'lib/config.js': '6131613ed46828774cdada2cc36a71c8dd479990',
  'lib/feedbacks.js': '73053ad2818796021a00218fef1ac06b27f7bce8',
  'lib/presets.js': '6e468c17fb4f331b7af003b2ba3c6ab8aa8d2120',
  'lib/upgrades.js': 'd9d6472dd6ceb3d2798884c578f2558e88589808',
}

/** The parts of the module instance (S1's CaptivateInstance) the test reads. */
interface Captivate {
  titles: { id: string; name: string; image: string; variables: { variable: string; value: string }[] }[]
  scheduleRunner?: Map<string, NodeJS.Timeout>
  connectionWatchdog?: NodeJS.Timeout
  init(config: Record<string, unknown>): Promise<void>
  destroy(): Promise<void>
}

interface Preset {
  name: string
  category: string
  style: { png64?: string; text?: string }
  steps: { down: { actionId: string; options: Record<string, unknown> }[] }[]
  feedbacks: { feedbackId: string; options: Record<string, unknown> }[]
}

const WAIT = { timeout: 5000, interval: 10 }

/** Every profile whose facts claim the surface S1 uses. */
const CLAIMING = [...loadProfiles().values()].filter((p) => p.facts.companion_registry).map((p) => p.name)

it('the vendored module is byte for byte the one at d064e20', () => {
  for (const [file, blob] of Object.entries(VENDORED_BLOBS)) {
    const bytes = readFileSync(join(MODULE_DIR, file))
    const id = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
    expect(id, file).toBe(blob)
  }
  expect(CLAIMING).toEqual(expect.arrayContaining(['captivate', 'feedback-signal-only', 'strict-unknowns']))
})

describe.each(CLAIMING)("NewBlue's Captivate module against the simulator (%s)", (profile) => {
  let sim: SimulatorHandle
  let module: Captivate
  let host: HostRecord
  let timers: ModuleTimers

  beforeEach(async () => {
    timers = trackModuleTimers()
    sim = await startSimulator({ profile, animationMs: 50 })
    const { factory } = loadNewBlueCaptivate()
    module = new factory('captivate') as unknown as Captivate
    host = hostOf(module)
    await module.init({ host: '127.0.0.1', port: sim.wsPort })
    // Connected: the module says Ok once notifyClientConnected has answered (captivate.js 236-254).
    await expect.poll(() => host.statuses.at(-1), WAIT).toBe('ok')
    // Its first refresh has published the presets (the last of the three definitions it asks for).
    await expect.poll(() => host.presetDefinitions.length, WAIT).toBe(sim.state.titles.length)
  })

  afterEach(async () => {
    try {
      // The module reported no error of its own: S1's `this.error` logs at level 'error' (captivate.js
      // 137-140), a missing overlay image is its 'bad layer data' (captivate.js 733).
      const logged = host.callsOf('log')
      expect(logged.filter((c) => c.args[0] === 'error')).toEqual([])
      expect(logged.filter((c) => String(c.args[1]).includes('bad layer data'))).toEqual([])
      expect(host.callsOf('feedback callback threw')).toEqual([])
      await module.destroy()
      await sim.close()
      // The socket closes: the module starts its 5 s reconnect watchdog (captivate.js 272-277); stop
      // it, and every function it scheduled (its 5-minute refresh, captivate.js 185, 493-502).
      await expect.poll(() => module.connectionWatchdog !== undefined, WAIT).toBe(true)
      clearInterval(module.connectionWatchdog)
      for (const t of module.scheduleRunner?.values() ?? []) clearTimeout(t)
      // Nothing of the module's is left pending to keep the process alive (its 100 ms debounces run
      // out on their own); it did start timers, so the watch saw them.
      expect(timers.started).toBeGreaterThan(0)
      await expect.poll(() => timers.live.size, WAIT).toBe(0)
    } finally {
      // A failed teardown still leaves nothing behind for the next test.
      for (const t of timers.live) clearTimeout(t)
      timers.restore()
      delete (globalThis as { scheduler?: unknown }).scheduler
    }
  })

  it('connect: status ok after notifyClientConnected, every call on the command log', () => {
    expect(host.statuses).toEqual(['connecting', 'ok'])
    expect(sim.wsAnnouncements).toContainEqual({ appId: 'com.newblue.companion-module-captivate', version: '3.0' })
    const names = new Set(sim.http.log.filter((e) => e.transport === 'qwebchannel').map((e) => e.name))
    for (const n of ['getTitleControlInfo', 'subscribe', 'getImageSet', '_cmp_v1_query', 'notifyClientConnected'])
      expect(names).toContain(n)
  })

  it("titles: the module's titles and variable definitions are the simulator's", () => {
    const titles = sim.state.orderedTitles()
    expect(module.titles.map((t) => t.name)).toEqual(titles.map((t) => t.name))
    expect(module.titles.map((t) => t.id)).toEqual(titles.map((t) => t.id))
    const defs = host.variableDefinitions.map((d) => d.name)
    for (const t of titles) for (const v of t.variables) expect(defs).toContain(`${t.name}: ${v.name}`)
    expect(host.variableValues.lower_third__name).toBe('Alex Morgan')
  })

  it('thumbnails: each title image decodes to 72×72 with Jimp, as lib/cache.js reads images', async () => {
    expect(module.titles.length).toBe(sim.state.titles.length)
    for (const t of module.titles) {
      expect(t.image.startsWith('data:image/png;base64,')).toBe(true)
      // lib/cache.js 130: `Jimp.read(namePathOrUrl)`.
      const image = await Jimp.read(t.image)
      expect([image.bitmap.width, image.bitmap.height]).toEqual([72, 72])
    }
  })

  it('registry: actions, feedbacks and presets built from _cmp_v1_query', async () => {
    await expect.poll(() => Object.keys(host.actionDefinitions).length, WAIT).toBe(sim.state.titles.length * 6 + 3)
    await expect.poll(() => Object.keys(host.feedbackDefinitions).length, WAIT).toBe(sim.state.titles.length * 3 + 1)
    for (const t of sim.state.titles) {
      for (const a of Object.values(REGISTRY_NAMES.actions))
        expect(typeof host.actionDefinitions[full(t.id, a)]?.callback).toBe('function')
      expect(host.feedbackDefinitions[full(t.id, REGISTRY_NAMES.feedbacks.onAir)]?.type).toBe('boolean')
      expect(host.feedbackDefinitions[full(t.id, REGISTRY_NAMES.feedbacks.playState)]?.type).toBe('advanced')
      expect(host.feedbackDefinitions[full(t.id, REGISTRY_NAMES.feedbacks.variable)]?.type).toBe('advanced')
    }
    const presets = host.presetDefinitions as Preset[]
    const lower = presets.find((p) => p.name === 'Lower Third')!
    expect(lower.category).toBe('Titles')
    expect(lower.steps[0]!.down[0]).toEqual({
      actionId: full(LOWER_THIRD, REGISTRY_NAMES.actions.play),
      options: { command: 'auto' },
    })
    expect(lower.feedbacks.map((f) => f.feedbackId).sort()).toEqual(
      [full(LOWER_THIRD, REGISTRY_NAMES.feedbacks.onAir), full(LOWER_THIRD, REGISTRY_NAMES.feedbacks.playState)].sort(),
    )
    const image = await Jimp.read(Buffer.from(lower.style.png64!, 'base64'))
    expect([image.bitmap.width, image.bitmap.height]).toEqual([72, 72])
  })

  it('push feedback: a play change over HTTP reaches the feedback results through the change signal', async () => {
    const preset = (host.presetDefinitions as Preset[]).find((p) => p.name === 'Lower Third')!
    const ids = preset.feedbacks.map((f) => ({ type: f.feedbackId, id: host.addFeedback(f.feedbackId, f.options) }))
    const onAir = ids.find((x) => x.type === full(LOWER_THIRD, REGISTRY_NAMES.feedbacks.onAir))!.id
    const playState = ids.find((x) => x.type === full(LOWER_THIRD, REGISTRY_NAMES.feedbacks.playState))!.id
    await expect.poll(() => host.value(onAir), WAIT).toBe(false)
    await expect.poll(() => (host.value(playState) as { text?: string } | undefined)?.text, WAIT).toBe('Lower Third')
    const checksBefore = host.callsOf('checkFeedbacks').length

    const res = await fetch(`${sim.httpUrl}/api/command/schedule?action=cutin&id=${encodeURIComponent(LOWER_THIRD)}`)
    expect(res.status).toBe(200)
    // No clock here: that it came through the change signal, not a poll, is what the calls below show.
    await expect.poll(() => host.value(onAir), WAIT).toBe(true)
    await expect.poll(() => (host.value(playState) as { bgcolor?: number }).bgcolor, WAIT).toBe(ON_AIR_BG)
    // The module asked its host to re-check exactly these feedbacks: the signal's path (captivate.js 470).
    const checked = host
      .callsOf('checkFeedbacks')
      .slice(checksBefore)
      .flatMap((c) => c.args)
    expect(checked).toContain(full(LOWER_THIRD, REGISTRY_NAMES.feedbacks.onAir))
    expect(checked).toContain(full(LOWER_THIRD, REGISTRY_NAMES.feedbacks.playState))
    // The play-state feedback folded the layer state in (captivate.js 597-626) and composited the overlay.
    const composed = (host.value(playState) as { png64?: string }).png64!
    const image = await Jimp.read(composed)
    expect([image.bitmap.width, image.bitmap.height]).toEqual([72, 72])
  })

  it("action: the module's play action takes a title to air, on the socket's command log", async () => {
    const preset = (host.presetDefinitions as Preset[]).find((p) => p.name === 'Score Bug')!
    const step = preset.steps[0]!.down[0]!
    const title = sim.state.titles.find((t) => t.id === SCORE_BUG)!
    expect(title.playState).toBe('Off')
    await host.runAction(step.actionId, step.options)
    await expect.poll(() => title.playState, WAIT).not.toBe('Off')
    await expect.poll(() => title.playState, WAIT).toBe('Paused')
    const calls = sim.http.commands('_cmp_v1_performAction')
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({
      transport: 'qwebchannel',
      parameters: { target: full(SCORE_BUG, REGISTRY_NAMES.actions.play), options: { command: 'auto' } },
    })
    // Cut In / Cut Out takes it off again at once.
    await host.runAction(step.actionId, { command: 'take' })
    await expect.poll(() => title.playState, WAIT).toBe('Off')
  })
})
