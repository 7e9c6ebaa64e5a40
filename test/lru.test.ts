/**
 * The one bounded map (src/lru.ts), shared by the key renderer, the web mirror, the simulator's icon
 * cache and the logger's `once` keys.
 */
import { describe, expect, it } from 'vitest'
import { LruMap } from '../src/lru.js'
import { Logger } from '../src/log.js'
import { expectMapping } from './helpers/table.js'
import { SIM_LIMITS } from '../src/app-kit/simulator/limits.js'
import { iconCacheStats, iconDataUrl } from '../src/app-kit/simulator/png.js'

const weighed = (maxEntries: number, maxWeight: number) =>
  new LruMap<string, string>(maxEntries, { maxWeight, weigh: (v) => v.length })

describe('LruMap', () => {
  it('forgets the least recently used entry past its entry bound; a read counts as a use', () => {
    const m = new LruMap<string, number>(2)
    m.set('a', 1)
    m.set('b', 2)
    expect(m.get('a')).toBe(1)
    m.set('c', 3)
    expect([m.get('a'), m.get('b'), m.get('c')]).toEqual([1, undefined, 3])
    expect(m.size).toBe(2)
  })

  it('forgets the oldest entries while the total weight is past its bound', () => {
    const m = weighed(100, 10)
    m.set('a', 'xxxx')
    m.set('b', 'xxxx')
    expect(m.totalWeight).toBe(8)
    m.set('c', 'xxxxx') // 13 > 10: a goes; 9 fits
    expect([m.get('a'), m.get('b'), m.get('c')]).toEqual([undefined, 'xxxx', 'xxxxx'])
    expect(m.totalWeight).toBe(9)
  })

  it('delete forgets an entry and its weight; a bound below 1 keeps the newest entry', () => {
    const m = weighed(10, 100)
    m.set('a', 'xxx')
    m.set('b', 'yy')
    expect(m.delete('a')).toBe(true)
    expect(m.delete('a')).toBe(false)
    expect([m.get('a'), m.get('b'), m.size, m.totalWeight]).toEqual([undefined, 'yy', 1, 2])
    const none = new LruMap<string, number>(0)
    none.set('a', 1)
    none.set('b', 2)
    expect([none.size, none.get('b')]).toEqual([1, 2])
  })

  it('replacing an entry counts only its new weight; the newest stays even when it alone is too heavy', () => {
    const m = weighed(100, 10)
    m.set('a', 'xxxxxxxx')
    m.set('a', 'xx')
    expect(m.totalWeight).toBe(2)
    m.set('huge', 'x'.repeat(50))
    expect([m.get('a'), m.get('huge')?.length, m.size, m.totalWeight]).toEqual([undefined, 50, 1, 50])
  })
})

describe('its users', () => {
  it("the logger's once keys: a key seen again is the most recently seen; past the bound the least recent goes", () => {
    const log = new Logger('lru-test', { onceMaxKeys: 2, sink: () => undefined })
    // Whether log.once logs each key, asked in turn (true: logged now, a key it did not remember).
    const once = (key: string): boolean => log.once(key, 'info', key)
    expectMapping(once, { a: true, b: true })
    expectMapping(once, { a: false, c: true }) // a is now the most recent, so b goes when c comes
    expect(log.onceKeyCount).toBe(2)
    expectMapping(once, { a: false, b: true })
    log.clear('b')
    expectMapping(once, { b: true })
  })

  it("the simulator's icon cache: one drawing per size and colour, at most SIM_LIMITS.iconCacheEntries kept", () => {
    const before = iconCacheStats().renders
    const first = iconDataUrl(3, 2, '#123456')
    expect(iconDataUrl(3, 2, '#123456')).toBe(first)
    expect(iconCacheStats().renders).toBe(before + 1)
    for (let i = 0; i < SIM_LIMITS.iconCacheEntries + 5; i++)
      iconDataUrl(1, 1, `#0000${(i % 256).toString(16).padStart(2, '0')}`)
    expect(iconCacheStats().size).toBe(SIM_LIMITS.iconCacheEntries)
    iconDataUrl(3, 2, '#123456') // forgotten by now: drawn again
    expect(iconCacheStats().renders).toBe(before + 1 + SIM_LIMITS.iconCacheEntries + 5 + 1)
  })
})
