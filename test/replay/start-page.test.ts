/**
 * Issue 28: `panelbridge replay` starts each surface on the page its recording began on (the start
 * line's `pages`), through the engine's `setPageOf`: a press recorded on the second page sends that
 * page's command when replayed, not the start page's. The real engine against a fresh simulator.
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { Engine } from '../../src/mappings/engine.js'
import { loadConfigText } from '../../src/mappings/load.js'
import type { Config } from '../../src/mappings/schema.js'
import { replayTrace } from '../../src/replay/drive.js'
import type { TraceInput } from '../../src/replay/trace.js'
import { loggerInto, messages } from '../helpers/logs.js'
import { pagedConsoleHead } from '../helpers/paged-console.js'

const CONFIG = `${pagedConsoleHead({ console: '{ driver: web, rows: 1, columns: 2 }' })}  - on: console/key:0
    page: main
    press: { command: switchVideoIn, params: { channel: 0, video: "Camera 1" } }
  - on: console/key:0
    page: replay
    press: { command: replay_enable }
`

async function config(): Promise<Config> {
  const { config, problems } = await loadConfigText(CONFIG, 'start-page.yaml')
  expect(problems).toEqual([])
  return config!
}

const PRESS: TraceInput[] = [
  { t: 0, source: 'surface', event: { surface: 'console', control: 'key:0', type: 'down' } },
  { t: 40, source: 'surface', event: { surface: 'console', control: 'key:0', type: 'up' } },
]

describe('replay starts on the recorded page', () => {
  it('a press recorded on the second page sends that page’s command; without pages, the start page’s', async () => {
    const { logger, records } = loggerInto('replay')
    const base = { config: await config(), inputs: PRESS, speed: 'max' as const, against: 'sim', log: logger }
    const onReplay = await replayTrace({ ...base, pages: { console: 'replay' } })
    expect(onReplay.map((c) => `${c.origin} ${c.command}`)).toEqual(['console/key:0 replay_enable'])
    const fromStart = await replayTrace(base)
    expect(fromStart.map((c) => `${c.origin} ${c.command}`)).toEqual(['console/key:0 switchVideoIn'])

    // A page the config no longer has: said, and the replay goes on from the start page.
    const gone = await replayTrace({ ...base, pages: { console: 'graphics' } })
    expect(gone.map((c) => c.command)).toEqual(['switchVideoIn'])
    expect(messages(records, 'warn')).toContain(
      'the recording began on a page the config does not have; replaying from the start page',
    )
  })

  it('Engine.setPageOf turns a surface to one of its pages, as a page action does; refuses any other', async () => {
    const pages: string[] = []
    const state = new AppState()
    const engine = new Engine({
      client: { callByName: () => Promise.resolve({} as never) },
      state,
      surfaces: { setFeedback: () => {} },
      logger: loggerInto('engine').logger,
      onPage: (surface, page) => pages.push(`${surface} ${page}`),
    })
    engine.apply(await config())
    expect(engine.pageOf('console')).toBe('main')
    expect(engine.setPageOf('console', 'replay')).toBe(true)
    expect(engine.pageOf('console')).toBe('replay')
    expect(engine.setPageOf('console', 'replay')).toBe(true) // already there: nothing turns
    expect(engine.setPageOf('console', 'graphics')).toBe(false)
    expect(engine.setPageOf('console', 'next')).toBe(false) // a page action's word, not a page
    expect(engine.setPageOf('deck', 'main')).toBe(false)
    expect(engine.pageOf('console')).toBe('replay')
    expect(pages).toEqual(['console replay'])
    engine.stop()
    state.dispose()
  })
})
