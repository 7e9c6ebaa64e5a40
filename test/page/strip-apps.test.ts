/**
 * The status strip's other applications (issue 27): read from `/api/status` as untrusted JSON; one
 * application shows nothing more than before, several show each beside the default one's link.
 */
import { describe, expect, it } from 'vitest'
import { readApps, STRIP_MAX_APPS } from '../../src/page/strip-apps.js'

const link = (state: string, error?: string) => ({
  state,
  since: '2026-11-26T06:00:00.000Z',
  ...(error ? { error } : {}),
})

describe('the strip’s applications', () => {
  it('one application (app: alone): nothing beside the link the strip already shows', () => {
    expect(readApps({ apps: [{ name: 'main', default: true, link: link('connected') }] })).toEqual([])
    expect(readApps({})).toEqual([])
  })

  it('several: each but the default, its link in words, the mirror and error in the tooltip', () => {
    const apps = readApps({
      apps: [
        { name: 'main', default: true, link: link('connected') },
        { name: 'backup', default: false, mirrorOf: 'main', link: link('stale', 'socket closed (1006)') },
        { name: 'graphics2', default: false, link: link('connected') },
      ],
    })
    expect(apps).toEqual([
      {
        name: 'backup',
        link: 'stale',
        text: 'backup: not reachable',
        title: 'mirror of main\nsince 2026-11-26T06:00:00.000Z\nsocket closed (1006)',
      },
      { name: 'graphics2', link: 'connected', text: 'graphics2: connected', title: 'since 2026-11-26T06:00:00.000Z' },
    ])
  })

  it('takes only what it shows, bounded: junk entries dropped, long names cut, at most STRIP_MAX_APPS', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ name: `a${i}`, link: link('connected') }))
    expect(readApps({ apps: many })).toHaveLength(STRIP_MAX_APPS)
    const odd = readApps({ apps: [null, 7, { name: 'x'.repeat(1000), link: 'up' }, { link: link('connected') }] })
    expect(odd).toEqual([
      { name: 'x'.repeat(200), link: 'stale', text: `${'x'.repeat(200)}: not reachable`, title: '' },
    ])
  })
})
