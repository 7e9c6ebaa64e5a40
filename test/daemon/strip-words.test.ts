/**
 * What the page's status strip says (issue 22, item 17), read in Node as the page reads it:
 * `reconnected` and `config reloaded` for a while after the event, `config refused` while an older
 * mapping runs, errors that have cleared dropped, and the link's `socket closed (1006)` in words.
 */
import { describe, expect, it } from 'vitest'
import {
  inWords,
  readStrip,
  STRIP_MAX_ERRORS,
  STRIP_NOTICE_MS,
  viewStrip,
  WAITING_HELP,
  type StripView,
} from '../../src/page/strip-state.js'

const T0 = Date.UTC(2026, 10, 26, 9, 0, 0)

function status(over: { app?: Record<string, unknown>; configState?: Record<string, unknown> } = {}): unknown {
  return {
    simulated: false,
    app: { state: 'connected', since: '2026-11-26T08:00:00.000Z', ...over.app },
    configState: { state: 'ok', lastGoodLoad: '2026-11-26T08:00:00.000Z', ...over.configState },
  }
}

/** Feeds readings in order, each `ms` after the one before; returns every view. */
function feed(readings: [unknown, unknown?][], stepMs = 2000): StripView[] {
  const views: StripView[] = []
  let view: StripView | undefined
  readings.forEach(([s, e], i) => {
    view = viewStrip(readStrip(s, e ?? { errors: [] }), view, T0 + i * stepMs)
    views.push(view)
  })
  return views
}

describe('the status strip’s words', () => {
  it('says "reconnected" after the link came back, for STRIP_NOTICE_MS', () => {
    const down = status({ app: { state: 'stale', since: '2026-11-26T08:59:00.000Z', error: 'socket closed (1006)' } })
    const back = status({ app: { since: '2026-11-26T09:00:03.000Z' } })
    const steps = Math.ceil(STRIP_NOTICE_MS / 2000)
    const views = feed([[status()], [down], [back], ...Array.from({ length: steps }, (): [unknown] => [back])])
    expect(views[0]!.notices).toEqual([])
    expect(views[1]!.linkText).toBe('application: not reachable')
    expect(views[2]!.linkText).toBe('application: connected')
    expect(views[2]!.notices).toEqual(['reconnected'])
    expect(views.at(-1)!.notices).toEqual([])
  })

  it('says "reconnected" for a drop shorter than a poll too (the link’s since moved)', () => {
    const views = feed([[status()], [status({ app: { since: '2026-11-26T09:00:01.000Z' } })]])
    expect(views[1]!.notices).toEqual(['reconnected'])
  })

  it('says nothing of the kind on the first reading', () => {
    expect(feed([[status()]])[0]!.notices).toEqual([])
  })

  it('says "config reloaded" after a good reload, and "config refused" while an older mapping runs', () => {
    const refused = status({
      configState: { state: 'refused', refusedAt: '2026-11-26T09:00:02.000Z', error: 'config refused: x.yaml:5:3: y' },
    })
    const reloaded = status({ configState: { lastGoodLoad: '2026-11-26T09:00:04.000Z' } })
    const views = feed([[status()], [refused], [reloaded]])
    expect(views[1]!.refusedText).toBe('config refused: an older mapping runs')
    expect(views[1]!.notices).toEqual([])
    expect(views[2]!.refusedText).toBeUndefined()
    expect(views[2]!.notices).toEqual(['config reloaded'])
    const later = viewStrip(readStrip(reloaded, { errors: [] }), views[2], T0 + 4000 + STRIP_NOTICE_MS)
    expect(later.notices).toEqual([])
  })

  it('drops errors that have cleared, keeps STRIP_MAX_ERRORS of the rest, and puts the link’s texts in words', () => {
    const errors = {
      errors: [
        { time: '2026-11-26T09:00:05.000Z', message: 'application link: socket closed (1006)' },
        { time: '2026-11-26T09:00:04.000Z', message: 'config refused: x', cleared: '2026-11-26T09:00:06.000Z' },
        { time: '2026-11-26T09:00:03.000Z', message: 'desk: failed' },
        { time: '2026-11-26T09:00:02.000Z', message: 'schedule failed: TITLE_NOT_FOUND' },
        { time: '2026-11-26T09:00:01.000Z', message: 'older' },
      ],
    }
    const view = feed([[status(), errors]])[0]!
    expect(view.errors.map((e) => e.message)).toEqual([
      'application not reachable',
      'desk: failed',
      'schedule failed: TITLE_NOT_FOUND',
    ])
    expect(view.errors).toHaveLength(STRIP_MAX_ERRORS)
  })

  it('says "not reachable" for a 1006 close, with the raw text only in the tooltip; other texts stand', () => {
    const closed = feed([[status({ app: { state: 'stale', error: 'socket closed (1006)' } })]])[0]!
    expect(closed.linkText).toBe('application: not reachable')
    expect(closed.linkDetail).toBeUndefined()
    expect(closed.linkTitle).toBe('socket closed (1006)')
    const refused = feed([[status({ app: { state: 'stale', error: 'connect ECONNREFUSED 127.0.0.1:9023' } })]])[0]!
    expect(refused.linkDetail).toBe('connect ECONNREFUSED 127.0.0.1:9023')
    expect(inWords('socket closed (1000)')).toBe('the application closed the link')
    expect(inWords('socket silent for 15012 ms')).toBe('the application stopped answering')
    expect(inWords('application link: socket closed (1006)')).toBe('application not reachable')
  })

  it('reads hostile replies without throwing, taking only what it shows', () => {
    const view = feed([[{ app: 5, configState: { state: 'maybe' } }, { errors: [null, 7, { message: 3 }] }]])[0]!
    expect(view.linkText).toBe('application: not reachable')
    expect(view.refusedText).toBeUndefined()
    expect(view.errors).toEqual([
      { time: '', message: '' },
      { time: '', message: '' },
      { time: '', message: '' },
    ])
  })
})

describe('waiting for the application', () => {
  const down = { state: 'stale', since: '2026-11-26T08:59:00.000Z', error: 'socket closed (1006)' }
  const apps = [{ name: 'main', url: 'http://127.0.0.1:9022', default: true, simulated: false, link: down }]

  it('says so, at the default application’s URL, with how its command interface is reached', () => {
    const view = viewStrip(readStrip({ simulated: false, app: down, apps }, { errors: [] }), undefined, T0)
    expect(view.waiting?.text).toBe('Waiting for the application at http://127.0.0.1:9022')
    expect(view.waiting?.help).toBe(WAITING_HELP)
    expect(WAITING_HELP.join(' ')).toMatch(/port 9022 unless its Generic HTML\.httpPort preference/)
    // app.url, when the status gives it, is the URL shown.
    const own = readStrip({ simulated: false, app: { ...down, url: 'http://127.0.0.2:9122' }, apps }, { errors: [] })
    expect(viewStrip(own, undefined, T0).waiting?.text).toBe('Waiting for the application at http://127.0.0.2:9122')
  })

  it('says nothing of it while connected, nor while the simulator stands in for the application', () => {
    expect(viewStrip(readStrip(status(), { errors: [] }), undefined, T0).waiting).toBeUndefined()
    const simulated = readStrip({ simulated: true, app: down, apps }, { errors: [] })
    expect(viewStrip(simulated, undefined, T0).waiting).toBeUndefined()
  })
})
