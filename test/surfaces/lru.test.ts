import { describe, expect, it } from 'vitest'
import { KEY_CACHE_BYTES, KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { LruMap } from '../../src/surfaces/render/lru.js'

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

  it('replacing an entry counts only its new weight; the newest stays even when it alone is too heavy', () => {
    const m = weighed(100, 10)
    m.set('a', 'xxxxxxxx')
    m.set('a', 'xx')
    expect(m.totalWeight).toBe(2)
    m.set('huge', 'x'.repeat(50))
    expect([m.get('a'), m.get('huge')?.length, m.size, m.totalWeight]).toEqual([undefined, 50, 1, 50])
  })
})

describe('KeyRenderer cache', () => {
  it('keeps at most KEY_CACHE_BYTES of pixels however many distinct keys it drew (a scrolling jog label)', () => {
    const renderer = new KeyRenderer()
    const perKey = 96 * 96 * 4
    const n = Math.ceil(KEY_CACHE_BYTES / perKey) + 20
    for (let i = 0; i < n; i++) renderer.render({ text: `Scrub\n${i}` }, { width: 96, height: 96 })
    expect(renderer.cached).toBe(Math.floor(KEY_CACHE_BYTES / perKey))
    // The newest are kept: drawing the last one again is a cache hit.
    const misses = renderer.stats.misses
    renderer.render({ text: `Scrub\n${n - 1}` }, { width: 96, height: 96 })
    expect(renderer.stats.misses).toBe(misses)
  })
})
