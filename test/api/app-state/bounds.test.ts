/**
 * Issue 9, finding 4d: the store keeps a bounded number of titles and of variables per title, and
 * bounded names and values, however many the notifications carry. Past a bound the new entry is
 * dropped, what is held is kept, and the first drop is logged.
 * Cases from the former hardening-app-state.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { APP_STATE_LIMITS, AppState, type TitleSnapshot } from '../../../src/api/app-state.js'
import { parseNotification } from '../../../src/api/notifications.js'
import type { LogRecord } from '../../../src/log.js'
import { captureLogs } from '../../helpers/logs.js'

let records: LogRecord[] = []
beforeEach(() => {
  records = captureLogs()
})

const title = (id: string, variables?: Record<string, string>): TitleSnapshot => ({
  id,
  name: id,
  play: 'Off',
  ...(variables ? { variables } : {}),
})

describe('AppState bounds', () => {
  it('keeps at most APP_STATE_LIMITS.maxVariablesPerTitle variables per title from 20,000 unique names, logging once', () => {
    const store = new AppState()
    store.resetTitles([title('T', { Name: 'Alex' })])
    for (let i = 0; i < 20_000; i++) {
      const n = parseNotification({ event: 'data', id: 'T', variables: [{ name: `v${i}`, value: String(i) }] })
      if (n?.kind !== 'data') throw new Error('expected a data notification')
      expect(store.setTitleVariables('T', n.variables)).toBe(true)
    }
    const vars = store.title('T')!.variables
    expect(Object.keys(vars)).toHaveLength(APP_STATE_LIMITS.maxVariablesPerTitle)
    expect(vars.Name).toBe('Alex')
    expect(vars.v0).toBe('0')
    expect(vars.v19999).toBeUndefined()
    // A known variable still updates when the title is full.
    store.setTitleVariables('T', { Name: 'Sam' })
    expect(store.title('T')!.variables.Name).toBe('Sam')
    expect(records.filter((r) => /variable limit/.test(r.message))).toHaveLength(1)
  })

  it('keeps at most APP_STATE_LIMITS.maxTitles titles from a snapshot of more, logging once', () => {
    const store = new AppState()
    const many = Array.from({ length: APP_STATE_LIMITS.maxTitles + 50 }, (_, i) => title(`t${i}`))
    store.resetTitles(many)
    store.resetTitles(many)
    expect(store.titles()).toHaveLength(APP_STATE_LIMITS.maxTitles)
    expect(store.title('t0')).toBeDefined()
    expect(store.title(`t${APP_STATE_LIMITS.maxTitles}`)).toBeUndefined()
    expect(records.filter((r) => /title limit/.test(r.message))).toHaveLength(1)
  })

  it('bounds snapshot variables too, and limits can be lowered per store', () => {
    const store = new AppState({ limits: { maxVariablesPerTitle: 2, maxTitles: 1 } })
    store.resetTitles([title('A', { a: '1', b: '2', c: '3' }), title('B')])
    expect(store.titles().map((t) => t.id)).toEqual(['A'])
    expect(store.title('A')!.variables).toEqual({ a: '1', b: '2' })
  })

  it('drops a variable name longer than the limit and cuts a long value', () => {
    const store = new AppState()
    store.resetTitles([title('T')])
    const long = 'n'.repeat(APP_STATE_LIMITS.maxVariableNameChars + 1)
    store.setTitleVariables('T', { [long]: 'x', Body: 'v'.repeat(APP_STATE_LIMITS.maxVariableValueChars * 3) })
    const vars = store.title('T')!.variables
    expect(vars[long]).toBeUndefined()
    expect(vars.Body).toHaveLength(APP_STATE_LIMITS.maxVariableValueChars)
    expect(records.filter((r) => /name is too long/.test(r.message))).toHaveLength(1)
  })

  it('keeps variables named __proto__ and constructor as plain entries', async () => {
    const store = new AppState()
    store.resetTitles([title('T')])
    const events: unknown[] = []
    store.on('title', (e) => events.push(e.changes.variables))
    const n = parseNotification(
      '{"event":"data","id":"T","variables":[{"name":"__proto__","value":"p"},{"name":"constructor","value":"c"}]}',
    )
    if (n?.kind !== 'data') throw new Error('expected a data notification')
    store.setTitleVariables('T', n.variables)
    const vars = store.title('T')!.variables
    expect(Object.hasOwn(vars, '__proto__')).toBe(true)
    expect(vars.__proto__ as unknown).toBe('p')
    expect(vars.constructor as unknown).toBe('c')
    await new Promise((r) => setImmediate(r))
    expect(events).toHaveLength(1)
    expect(Object.keys(events[0] as object).sort()).toEqual(['__proto__', 'constructor'])
    // Sent again unchanged: no change event.
    store.setTitleVariables('T', n.variables)
    await new Promise((r) => setImmediate(r))
    expect(events).toHaveLength(1)
  })
})
