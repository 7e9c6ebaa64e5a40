/**
 * The editor's daemon side alone: where its history is kept (the service's state folder, else the XDG
 * state folder, one folder per config, never the config's own folder) and which bindings a save changed
 * (what the log names).
 */
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { changedBindings, editHistoryFolder } from '../../src/daemon/config-edit.js'

describe('editHistoryFolder', () => {
  it('is under $STATE_DIRECTORY (its first folder), else $XDG_STATE_HOME or ~/.local/state, one per config', () => {
    const a = editHistoryFolder('/etc/panelbridge/config.yaml', { STATE_DIRECTORY: '/var/lib/panelbridge:/var/lib/x' })
    expect(a).toMatch(/^\/var\/lib\/panelbridge\/edits\/[0-9a-f]{16}$/)
    expect(editHistoryFolder('/etc/panelbridge/other.yaml', { STATE_DIRECTORY: '/var/lib/panelbridge' })).not.toBe(a)
    expect(editHistoryFolder('/srv/desk.yaml', { XDG_STATE_HOME: '/home/op/.state' })).toMatch(
      /^\/home\/op\/\.state\/panelbridge\/edits\//,
    )
    const fallback = editHistoryFolder('/srv/desk.yaml', {})
    expect(fallback.startsWith(join(homedir(), '.local', 'state', 'panelbridge', 'edits'))).toBe(true)
    expect(dirname(dirname(fallback))).not.toBe('/srv')
  })
})

describe('changedBindings', () => {
  const file = (bindings: string) => `version: 1\nbindings:\n${bindings}`
  it('names the bindings added, removed or changed, a page’s own with @page', () => {
    const before = file(
      '  - on: desk/key:0\n    label: A\n  - on: desk/key:1\n    label: B\n  - on: desk/key:1\n    page: two\n    label: C\n',
    )
    const after = file(
      '  - on: desk/key:0\n    label: A\n  - on: desk/key:1\n    page: two\n    label: D\n  - on: desk/key:2\n    label: E\n',
    )
    expect(changedBindings(before, after)).toEqual(['desk/key:1', 'desk/key:1@two', 'desk/key:2'])
    expect(changedBindings(before, before)).toEqual([])
  })
})
