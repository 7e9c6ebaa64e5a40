/**
 * Turns summed at the input door (issue 24, item 3): a burst of turns on one control in one run of code
 * reaches the engine as few events with the same total, in the same order against every other event;
 * a lone turn goes through at once. The real engine, web surface and door; the only stand-in is the
 * command port (the transport boundary). What the door hands the engine, its observers see next.
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import type { CallResult } from '../../src/api/client.js'
import { InputDoor, type InputSource } from '../../src/daemon/input.js'
import { Engine } from '../../src/mappings/engine.js'
import type { CommandPort } from '../../src/mappings/sender.js'
import type { SurfaceEvent } from '../../src/surfaces/types.js'
import { WebSurface } from '../../src/surfaces/web/web-surface.js'
import { loggerInto } from '../helpers/logs.js'
import { loadOrThrow, RecordingSurfaces } from '../mappings/helpers.js'

const CONFIG = `version: 1
app: { url: http://127.0.0.1:9 }
surfaces:
  console: { driver: web, rows: 1, columns: 2, encoders: 2 }
bindings:
  - on: console/encoder:0
    rotate: { command: replay_set_in_point, params: { position: "{{delta}}" }, acceleration: false }
`

async function rig(): Promise<{ door: InputDoor; web: WebSurface; seen: { e: SurfaceEvent; source: InputSource }[] }> {
  const client: CommandPort = {
    callByName: (name) => {
      const result: CallResult = { command: name as never, requestId: '1', reply: {}, raw: {}, latencyMs: 1 }
      return Promise.resolve(result)
    },
  }
  const engine = new Engine({ client, state: new AppState(), surfaces: new RecordingSurfaces() })
  engine.apply(await loadOrThrow(CONFIG))
  const door = new InputDoor(engine, loggerInto('input').logger)
  const web = new WebSurface({ id: 'console', rows: 1, columns: 2, encoders: 2 })
  web.events.on('input', (e) => door.enter(e, 'surface'))
  const seen: { e: SurfaceEvent; source: InputSource }[] = []
  door.observe((e, source) => seen.push({ e, source }))
  return { door, web, seen }
}

/** The end of the run of code: the door's microtask has run. */
const endOfRun = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
const summary = (seen: { e: SurfaceEvent }[]): string[] =>
  seen.map(({ e }) => `${e.control} ${e.type}${e.type === 'rotate' ? ` ${e.delta}` : ''}`)

describe('turns summed at the input door', () => {
  it('a lone turn goes through at once', async () => {
    const r = await rig()
    r.web.rotate('encoder:0', 3)
    expect(summary(r.seen)).toEqual(['encoder:0 rotate 3'])
    await endOfRun()
    r.web.rotate('encoder:0', -2)
    expect(summary(r.seen)).toEqual(['encoder:0 rotate 3', 'encoder:0 rotate -2'])
  })

  it('a burst on one control: the first at once, the rest summed by the end of the run', async () => {
    const r = await rig()
    for (let i = 0; i < 10_000; i++) r.web.rotate('encoder:0', 1)
    expect(summary(r.seen)).toEqual(['encoder:0 rotate 1'])
    await endOfRun()
    expect(summary(r.seen)).toEqual(['encoder:0 rotate 1', 'encoder:0 rotate 9999'])
  })

  it('never sums across another event: the order against presses and other controls stays', async () => {
    const r = await rig()
    r.web.rotate('encoder:0', 1)
    r.web.rotate('encoder:0', 1)
    r.web.rotate('encoder:0', 1)
    r.web.press('encoder:1', {})
    r.web.rotate('encoder:0', 2)
    r.web.rotate('encoder:0', 2)
    r.web.rotate('encoder:1', 5)
    r.web.rotate('encoder:0', 4)
    await endOfRun()
    expect(summary(r.seen)).toEqual([
      'encoder:0 rotate 1',
      'encoder:0 rotate 2',
      'encoder:1 down',
      'encoder:0 rotate 2',
      'encoder:0 rotate 2',
      'encoder:1 rotate 5',
      'encoder:0 rotate 4',
    ])
  })

  it('does not sum a device’s turns with the remote API’s', async () => {
    const r = await rig()
    r.web.rotate('encoder:0', 1)
    r.door.inject('console', 'encoder:0', 'rotate', 7)
    r.web.rotate('encoder:0', 1)
    await endOfRun()
    expect(r.seen.map(({ e, source }) => `${source} ${e.type === 'rotate' ? e.delta : e.type}`)).toEqual([
      'surface 1',
      'api 7',
      'surface 1',
    ])
  })
})
