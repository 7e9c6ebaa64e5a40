/**
 * The editor's choices when the application does not answer: the names come from the file (each kind
 * from the parameters that name it), bounded; the catalogue is there all the same.
 */
import { describe, expect, it } from 'vitest'
import { CommandError } from '../../src/api/errors.js'
import { editChoices } from '../../src/daemon/edit-choices.js'
import { loadConfigText } from '../../src/mappings/load.js'
import type { CommandPort } from '../../src/mappings/sender.js'

const TEXT = `version: 1
app: { url: http://127.0.0.1:9 }
surfaces:
  desk: { driver: web, rows: 1, columns: 4 }
bindings:
  - on: desk/key:0
    press: { command: schedule, params: { action: cutin, title: 'Lower Third' } }
    feedback: { title: 'Score Bug' }
  - on: desk/key:1
    press: { command: replay_arm_inputs, params: { inputs: ['Camera 2', 'Camera 1'] } }
`

/** An application that never answers. */
const down: CommandPort = {
  callByName: (name) => Promise.reject(new CommandError('CONNECTION_REFUSED', name, 'connection refused')),
}

describe('the editor choices without the application', () => {
  it('offers the names the file uses, by kind, and the whole catalogue', async () => {
    const { config } = await loadConfigText(TEXT, '/tmp/desk.yaml')
    expect(config).toBeDefined()
    const calls: string[] = []
    const choices = await editChoices({
      config: config!,
      client: { callByName: (name, ...rest) => (calls.push(name), down.callByName(name, ...rest)) },
    })
    expect(choices.names).toEqual({
      titles: { from: 'file', names: ['Lower Third', 'Score Bug'] },
      videoInputs: { from: 'file', names: [] },
      replayInputs: { from: 'file', names: ['Camera 1', 'Camera 2'] },
    })
    // Only listings were asked for.
    expect(calls.sort()).toEqual(['getAllVideoIns', 'getTitleControlInfo', 'replay_get_inputs'])
    expect(choices.groups.flatMap((g) => g.commands.map((c) => c.name))).toContain('schedule')
  })
})
