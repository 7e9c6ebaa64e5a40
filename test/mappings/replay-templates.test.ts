/**
 * Issue 43 items 1 and 2: `{{replay.*}}` fills from the playhead, and `check` refuses a template its
 * binding cannot fill, at the value's line and column, with "did you mean".
 */
import { describe, expect, it } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { formatProblem, loadConfigText } from '../../src/mappings/load.js'
import { notePlayhead, replayContext, replayStatus } from '../../src/mappings/playhead.js'
import { fillParam, parseTemplate, renderTemplate } from '../../src/mappings/template.js'

const HEAD = `version: 1
surfaces:
  console: { driver: web, rows: 2, columns: 4, jog: true, faders: 1 }
bindings:
`

async function problems(text: string): Promise<string[]> {
  return (await loadConfigText(HEAD + text, 'c.yaml')).problems.map(formatProblem)
}

describe('check: a template the binding cannot fill', () => {
  it("refuses {{position}} on a key at its line and column, suggesting 'replay.position'", async () => {
    const found = await problems(
      `  - on: console/key:0
    press: { command: replay_set_in_point, params: { position: '{{position}}' } }
`,
    )
    expect(found).toEqual([
      "c.yaml:6:64: bindings[0].press.params.position: {{position}} needs a jog, which this binding has not (did you mean 'replay.position'?)",
    ])
  })

  it('takes {{replay.*}} everywhere, {{step}} only with steps, {{var.X}} only with a title', async () => {
    expect(
      await problems(`  - on: console/key:0
    label: '{{replay.in}} {{replay.out}} {{replay.length}} {{replay.speed}}'
    press: { command: replay_set_in_point, params: { position: '{{replay.position}}' } }
  - on: console/key:1
    label: 'cam {{step}}'
    steps: [{ command: replay_play_pause }, { command: replay_play_pause }]
  - on: console/key:2
    label: '{{var.Score}} {{name}}'
    press: { command: replay_play_pause }
    feedback: { title: Bug }
  - on: console/jog
    label: '{{position}} s'
    jog: { scrub: { step_frames: 1 } }
`),
    ).toEqual([])
    const found = await problems(`  - on: console/key:0
    label: 'cam {{step}} {{var.Score}}'
    press: { command: replay_play_pause }
`)
    expect(found).toHaveLength(2)
    expect(found[0]).toMatch(/^c\.yaml:6:\d+: label: \{\{step\}\} needs steps/)
    expect(found[1]).toMatch(/^c\.yaml:6:\d+: label: \{\{var\.Score\}\} needs a followed title/)
  })
})

describe('check: clip actions', () => {
  it('takes every verb; speed goes with play_clip only', async () => {
    const verbs = ['mark_in', 'mark_out', 'go_to_in', 'go_to_out', 'clear_marks']
    const keys = verbs.map((v, i) => `  - on: console/key:${i}\n    press: { clip: ${v} }\n`).join('')
    expect(await problems(keys + `  - on: console/key:5\n    press: { clip: play_clip, speed: 0.5 }\n`)).toEqual([])
    const found = await problems(`  - on: console/key:0\n    press: { clip: mark_in, speed: 0.5 }\n`)
    expect(found.join('\n')).toContain('speed goes with clip: play_clip')
  })
})

describe('the playhead in templates', () => {
  it('fills from what was sent and what the application reported, in seconds', () => {
    const state = new AppState()
    expect(replayContext(state)).toEqual({})
    notePlayhead(state, 'replay_set_scrub_position', { position: 7.5 }, { ok: true, reply: {} })
    notePlayhead(state, 'replay_set_in_point', { position: 7.5 }, { ok: true, reply: {} })
    // A failed command says nothing of the playhead.
    notePlayhead(state, 'replay_set_out_point', { position: 3 }, { ok: false })
    notePlayhead(state, 'replay_set_out_point', { position: 12 }, { ok: true, reply: {} })
    const ctx = replayContext(state)
    expect(fillParam('{{replay.position}}', ctx)).toBe(7.5)
    const label = parseTemplate('{{replay.in}}→{{replay.out}} ({{replay.length}} s)')
    expect(label.problems).toEqual([])
    expect(renderTemplate(label.template, ctx)).toBe('7.5→12 (4.5 s)')
    // The application's report (values as text, as some send them) moves it.
    notePlayhead(
      state,
      'replay_get_play_info',
      {},
      { ok: true, reply: { replayTime: '9.25', replayStart: '1', replayEnd: '11' } },
    )
    expect(replayStatus(state)).toEqual({ position: 9.25, in: 1, out: 11, length: 10 })
  })
})
