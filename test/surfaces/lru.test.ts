import { describe, expect, it } from 'vitest'
import { KEY_CACHE_BYTES, KeyRenderer } from '../../src/surfaces/render/key-renderer.js'

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
