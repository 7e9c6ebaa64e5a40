/**
 * Titles' thumbnails with several applications (issues 26.3 and 27): a thumbnail key asks the application
 * its feedback follows, refreshes on that application's title changes, and keeps each application's
 * picture apart; a mirrored main's key keeps its picture while the main is stale and asks nobody.
 * Two simulators on port 0 with a title of the same name whose icons differ; the real loader, engine,
 * router, command clients, app states and notification links.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { NotificationLink } from '../../src/api/notifications.js'
import { createLogger } from '../../src/log.js'
import { AppRouter, type AppPort } from '../../src/mappings/app-router.js'
import { appsOf } from '../../src/mappings/apps.js'
import { Engine } from '../../src/mappings/engine.js'
import { KeyPictures } from '../../src/mappings/pictures.js'
import type { SimulatorHandle } from '../../src/app-kit/simulator/index.js'
import { parseColor } from '../../src/surfaces/render/key-renderer.js'
import { appSide, loadOrThrow, RecordingSurfaces } from './helpers.js'

const TITLE = 'Lower Third'
/** The simulator's Lower Third icon colour (its seed), and the one graphics2's is given here. */
const MAIN_ICON = '#1d4e89'
const OTHER_ICON = '#c0392b'
const LONG = { timeout: 10_000, interval: 20 }

type Rgb = [number, number, number]

/** The picture's colour near its top-left corner (the simulator's icon is its colour over its top two thirds). */
function colourOf(p: { width: number; rgba: Uint8Array } | undefined): Rgb | undefined {
  if (!p) return undefined
  const i = (6 * p.width + 6) * 4
  return [p.rgba[i]!, p.rgba[i + 1]!, p.rgba[i + 2]!]
}

function near(actual: Rgb | undefined, hex: string, tolerance = 6): boolean {
  const want = parseColor(hex)!
  return actual !== undefined && actual.every((v, i) => Math.abs(v - want[i]!) <= tolerance)
}

interface Side {
  sim: SimulatorHandle
  port: AppPort
  state: AppState
  link: NotificationLink
}

async function side(color?: string): Promise<Side> {
  const { sim, client, state, link } = await appSide()
  if (color !== undefined) sim.state.titles.find((t) => t.name === TITLE)!.color = color
  onTestFinished(async () => {
    link.stop()
    await client.close()
    await sim.close()
  })
  return { sim, port: { client, state }, state, link }
}

/** Icon calls (getTitleControlInfo with `icon`) in a simulator's command log. */
const iconCalls = (s: Side): number =>
  s.sim.http.commands('getTitleControlInfo').filter((c) => c.parameters.icon === '1').length

async function world(second: 'graphics2' | 'backup', bindings: string, secondColor = OTHER_ICON) {
  const [a, b] = [await side(), await side(secondColor)]
  const config = await loadOrThrow(`version: 1
apps:
  main: { url: "${a.sim.httpUrl}" }
  ${second}: { url: "${b.sim.httpUrl}"${second === 'backup' ? ', mirror_of: main' : ''} }
surfaces:
  desk: { driver: web, rows: 1, columns: 2 }
bindings:
${bindings}`)
  const plan = appsOf(config)
  const ports = new Map([
    ['main', a.port],
    [second, b.port],
  ])
  const log = createLogger('test')
  const router = new AppRouter({ log })
  router.setApps(plan, ports)
  const surfaces = new RecordingSurfaces()
  const pictures = new KeyPictures(a.port)
  pictures.setApps(plan, ports)
  const engine = new Engine({ apps: router, surfaces, pictures })
  onTestFinished(() => {
    engine.stop()
    router.dispose()
  })
  engine.apply(config)
  a.link.start()
  b.link.start()
  const picture = (key: string) => surfaces.of(`desk/${key}`)?.picture
  return { a, b, surfaces, picture }
}

describe('a thumbnail key with several applications', () => {
  it('following graphics2 shows graphics2’s icon, asked of graphics2 alone, beside a key of main', async () => {
    const { a, b, picture } = await world(
      'graphics2',
      `  - on: desk/key:0
    feedback: { title: ${TITLE}, thumbnail: true }
  - on: desk/key:1
    feedback: { app: graphics2, title: ${TITLE}, thumbnail: true }
`,
    )
    await vi.waitFor(() => expect(picture('key:0') && picture('key:1')).toBeDefined(), LONG)
    expect(near(colourOf(picture('key:0')), MAIN_ICON)).toBe(true)
    expect(near(colourOf(picture('key:1')), OTHER_ICON)).toBe(true)
    expect(iconCalls(a)).toBeGreaterThan(0)
    expect(iconCalls(b)).toBeGreaterThan(0)
  })

  it('asks graphics2 and not main, and refreshes on graphics2’s title changes only', async () => {
    const { a, b, picture } = await world(
      'graphics2',
      `  - on: desk/key:1
    app: graphics2
    feedback: { title: ${TITLE}, thumbnail: true }
`,
    )
    await vi.waitFor(() => expect(picture('key:1')).toBeDefined(), LONG)
    expect(near(colourOf(picture('key:1')), OTHER_ICON)).toBe(true)
    expect(iconCalls(a)).toBe(0)
    const before = iconCalls(b)
    expect(before).toBeGreaterThan(0)

    // A data change of main's title of that name: nobody is asked.
    const mainId = a.state.findTitle(TITLE)!.id
    const onMain = await fetch(`${a.sim.httpUrl}/api/command/schedule?action=update&id=${mainId}&Name=Changed`)
    expect(onMain.ok).toBe(true)
    // A data change of graphics2's: graphics2 is asked again (after the debounce), main still not.
    const id = b.state.findTitle(TITLE)!.id
    const onOther = await fetch(`${b.sim.httpUrl}/api/command/schedule?action=update&id=${id}&Name=Changed`)
    expect(onOther.ok).toBe(true)
    await vi.waitFor(() => expect(iconCalls(b)).toBe(before + 1), LONG)
    expect(iconCalls(a)).toBe(0)
  })

  it('a mirrored main’s key shows the main’s icon, and keeps it while the main is stale, asking nobody', async () => {
    const { a, b, surfaces, picture } = await world(
      'backup',
      `  - on: desk/key:0
    feedback: { title: ${TITLE}, thumbnail: true }
`,
    )
    await vi.waitFor(() => expect(picture('key:0')).toBeDefined(), LONG)
    expect(near(colourOf(picture('key:0')), MAIN_ICON)).toBe(true)
    expect(iconCalls(b)).toBe(0)
    const asked = iconCalls(a)

    await a.sim.close()
    // Feedback gives way to the backup (the key says so); the picture stays the main's.
    await vi.waitFor(() => expect(surfaces.of('desk/key:0')?.detail).toBe('from backup'), LONG)
    expect(near(colourOf(picture('key:0')), MAIN_ICON)).toBe(true)
    // The backup's title data changes: still nobody is asked (the main is the key's, and it is away).
    const id = b.state.findTitle(TITLE)!.id
    const res = await fetch(`${b.sim.httpUrl}/api/command/schedule?action=update&id=${id}&Name=Changed`)
    expect(res.ok).toBe(true)
    await vi.waitFor(() => expect(Object.values(b.state.findTitle(TITLE)!.variables)).toContain('Changed'), LONG)
    expect(iconCalls(b)).toBe(0)
    expect(iconCalls(a)).toBe(asked)
  })
})
