/**
 * Issue 22 item 2: a command the catalogue marks as acting on everything when its target is left out
 * (`schedule` without `id` or `title`: every title to air) is refused unless the binding says
 * `all: true`; the on-purpose form sends no target, and the application takes every title.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { getCommandSpec } from '../../src/api/commands.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { CONSOLE } from './helpers.js'
import { memoryHarness } from './memory-app.js'

const HEAD = `${CONSOLE}bindings:\n`

async function problems(bindings: string): Promise<string[]> {
  const r = await loadConfigText(HEAD + bindings, 'c.yaml')
  return r.problems.map(formatProblem)
}

describe('the catalogue mark', () => {
  it('schedule acts on everything without id or title; a command naming its target has no mark', () => {
    expect(getCommandSpec('schedule')!.allWhenEmpty).toEqual(['id', 'title'])
    expect(getCommandSpec('deleteTitle')!.allWhenEmpty).toBeUndefined()
  })
})

describe('the loader', () => {
  it('refuses a schedule with neither title nor id, at its command', async () => {
    const p = await problems(
      '  - on: console/key:0\n    press: { command: schedule, params: { action: animateOut } }\n',
    )
    expect(p).toEqual([
      'c.yaml:6:23: bindings[0].press: schedule without id or title acts on everything: ' +
        'name its title, or write all: true to mean everything',
    ])
  })

  it('refuses an empty title (the application reads it as all), at that parameter', async () => {
    const p = await problems(
      "  - on: console/key:0\n    press: { command: schedule, params: { action: cutout, title: '' } }\n",
    )
    expect(p).toEqual([expect.stringMatching(/^c\.yaml:6:66: bindings\[0\]\.press: schedule without id or title/)])
  })

  it('refuses it in a sequence, a hold, a toggle side and a step as well', async () => {
    const p = await problems(
      `  - on: console/key:0
    press:
      - { command: schedule, params: { action: animateIn, title: Score Bug } }
      - { command: schedule, params: { action: animateOut } }
    hold: { command: schedule, params: { action: cutout } }
    confirm_ms: 0
  - on: console/key:1
    toggle:
      on: { command: schedule, params: { action: animateIn, id: "{00000000-0000-0000-0000-000000000001}" } }
      off: { command: schedule, params: { action: animateOut } }
  - on: console/key:2
    steps:
      - { command: schedule, params: { action: animateIn, title: A } }
      - { command: schedule, params: { action: animateOut } }
`,
    )
    expect(p.map((l) => l.replace(/ acts on.*/, ''))).toEqual([
      'c.yaml:8:20: bindings[0].press[1]: schedule without id or title',
      'c.yaml:9:22: bindings[0].hold: schedule without id or title',
      'c.yaml:14:23: bindings[1].toggle.off: schedule without id or title',
      'c.yaml:18:20: bindings[2].steps[1]: schedule without id or title',
    ])
  })

  it('takes all: true as meaning it; a named title or a templated one needs nothing', async () => {
    const ok = await loadConfigText(
      HEAD +
        '  - on: console/key:0\n    press: { command: schedule, params: { action: animateOut }, all: true }\n' +
        "  - on: console/key:1\n    press: { command: schedule, params: { action: cutout, title: 'Lower Third' } }\n" +
        // `{{name}}` is the followed title's (issue 43: check refuses it on a binding that follows none).
        "  - on: console/key:2\n    press: { command: schedule, params: { action: cutout, title: '{{name}}' } }\n" +
        "    feedback: { title: 'Lower Third' }\n",
      'c.yaml',
    )
    expect(ok.problems.map(formatProblem)).toEqual([])
    expect(ok.config!.bindings[0]!.press).toEqual({ command: 'schedule', params: { action: 'animateOut' }, all: true })
  })

  it('refuses all: true beside a target, and on a command that has no such mark', async () => {
    const p = await problems(
      '  - on: console/key:0\n    press: { command: schedule, params: { action: cutout, title: X }, all: true }\n' +
        '  - on: console/key:1\n    press: { command: replay_play_pause, all: true }\n',
    )
    expect(p).toEqual([
      'c.yaml:6:66: bindings[0].press: all: true sends schedule to everything, without title: remove title, or all to name one',
      'c.yaml:8:42: bindings[1].press: all: replay_play_pause does not act on everything; remove all',
    ])
  })

  it('reads all: on a fader (value) and a rotary (rotate) too; the fader’s own parameter is a target', async () => {
    const p = await problems(
      `  - on: console/fader:0
    value: { command: schedule, param: time, range: [0, 10], params: { action: update } }
  - on: console/encoder:0
    rotate: { command: schedule, params: { action: update, time: "{{delta}}" }, all: true }
`,
    )
    expect(p).toEqual([expect.stringMatching(/^c\.yaml:6:23: bindings\[0\]\.value: schedule without id or title/)])
  })
})

describe('the engine sends the on-purpose form as written', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('all: true sends schedule with its action alone, and every title goes to air', async () => {
    // Engine logic: the application in memory (`./memory-app.ts`), on fake time.
    vi.useFakeTimers()
    const m = await memoryHarness(
      HEAD + '  - on: console/key:0\n    press: { command: schedule, params: { action: cutin }, all: true }\n',
    )
    onTestFinished(() => m.close())
    const titles = m.sim.orderedTitles()
    expect(titles.length).toBeGreaterThan(1)
    expect(titles.every((t) => t.playState === 'Off')).toBe(true)
    m.press('console/key:0')
    await vi.advanceTimersByTimeAsync(0)
    // The action alone: no id, no title (the request id aside, which the simulator does not count).
    expect(m.sent('schedule')).toEqual([{ action: 'cutin' }])
    // cutin puts a title on air at once (Paused: shown, its animation held), every one of them.
    expect(m.sim.orderedTitles().map((t) => t.playState)).toEqual(titles.map(() => 'Paused'))
  })
})
