import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ControlBadge, FAILED_BADGE_MS, pickBadge } from '../../src/surfaces/badge.js'
import type { FeedbackBadge } from '../../src/face/feedback.js'

describe('pickBadge', () => {
  it('shows one badge by precedence failed > pending > stale, none without a source', () => {
    const cases: [failed: boolean, pending: boolean, stale: boolean, shown: FeedbackBadge | undefined][] = [
      [false, false, false, undefined],
      [false, false, true, 'stale'],
      [false, true, false, 'pending'],
      [false, true, true, 'pending'],
      [true, false, false, 'failed'],
      [true, false, true, 'failed'],
      [true, true, false, 'failed'],
      [true, true, true, 'failed'],
    ]
    for (const [failed, pending, stale, shown] of cases) {
      expect({ failed, pending, stale, shown: pickBadge({ failed, pending, stale }) }).toEqual({
        failed,
        pending,
        stale,
        shown,
      })
    }
    expect(pickBadge({})).toBeUndefined()
  })

  it('unknown (a state not seen yet) shows only when nothing else does: a gone application says more', () => {
    expect(pickBadge({ unknown: true })).toBe('unknown')
    expect(pickBadge({ unknown: true, stale: true })).toBe('stale')
    expect(pickBadge({ unknown: true, pending: true })).toBe('pending')
    expect(pickBadge({ unknown: true, failed: true })).toBe('failed')
  })
})

describe('ControlBadge', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  function tracked(failedMs?: number): { badge: ControlBadge; changes: (FeedbackBadge | undefined)[] } {
    const changes: (FeedbackBadge | undefined)[] = []
    const badge = new ControlBadge((b) => changes.push(b), failedMs === undefined ? {} : { failedMs })
    return { badge, changes }
  }

  it('shows failed for FAILED_BADGE_MS, then falls back to the next badge', () => {
    expect(FAILED_BADGE_MS).toBeGreaterThan(0)
    const { badge, changes } = tracked()
    badge.setStale(true)
    badge.setPending(true)
    expect(changes).toEqual(['stale', 'pending'])
    badge.fail()
    expect(badge.badge).toBe('failed')
    expect(changes).toEqual(['stale', 'pending', 'failed'])
    vi.advanceTimersByTime(FAILED_BADGE_MS - 1)
    expect(badge.badge).toBe('failed')
    expect(changes).toHaveLength(3)
    vi.advanceTimersByTime(1)
    expect(badge.badge).toBe('pending')
    expect(changes).toEqual(['stale', 'pending', 'failed', 'pending'])
    badge.setPending(false)
    expect(changes.at(-1)).toBe('stale')
    badge.setStale(false)
    expect(changes.at(-1)).toBeUndefined()
    expect(changes).toHaveLength(6)
  })

  it('a failure while failed shows failed for the whole time again, counted from the last one', () => {
    const { badge, changes } = tracked()
    badge.fail()
    vi.advanceTimersByTime(FAILED_BADGE_MS - 10)
    badge.fail()
    vi.advanceTimersByTime(FAILED_BADGE_MS - 1)
    expect(badge.badge).toBe('failed')
    vi.advanceTimersByTime(1)
    expect(badge.badge).toBeUndefined()
    expect(changes).toEqual(['failed', undefined])
  })

  it('reports only changes of the badge shown: a lower source changing under failed says nothing', () => {
    const { badge, changes } = tracked()
    badge.fail()
    badge.setPending(true)
    badge.setPending(false)
    badge.setStale(true)
    badge.setStale(true)
    expect(changes).toEqual(['failed'])
    vi.advanceTimersByTime(FAILED_BADGE_MS)
    expect(changes).toEqual(['failed', 'stale'])
  })

  it('takes a shorter failed time, and dispose stops the timer', () => {
    const { badge, changes } = tracked(100)
    badge.fail()
    vi.advanceTimersByTime(100)
    expect(changes).toEqual(['failed', undefined])
    badge.fail()
    badge.dispose()
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(FAILED_BADGE_MS)
    expect(changes).toEqual(['failed', undefined, 'failed'])
  })
})
