import { readFileSync } from 'node:fs'
import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  COMMAND_NAMES,
  COMMANDS,
  getCommandSpec,
  isCommandName,
  type CommandSpec,
  type ParamsOf,
  type ReplyOf,
} from '../../src/api/commands.js'
import { SCHEDULE_ACTIONS } from '../../src/api/protocol.js'

interface ContractFixture {
  title: string[]
  videoInput: string[]
  output: string[]
  instantReplay: string[]
  project: string[]
  notification: string[]
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/contract-commands.json', import.meta.url), 'utf8'),
) as ContractFixture
const specs = COMMANDS as Record<string, CommandSpec>

describe('command catalogue', () => {
  it('has one entry per contract command, in the right group, marked as from the contract', () => {
    const groups: [keyof ContractFixture, CommandSpec['group'], number][] = [
      ['title', 'title', 13],
      ['videoInput', 'videoIn', 7],
      ['output', 'output', 6],
      ['instantReplay', 'replay', 18],
      ['project', 'project', 11],
      ['notification', 'notification', 3],
    ]
    for (const [key, group, count] of groups) {
      expect(fixture[key]).toHaveLength(count)
      for (const name of fixture[key]) {
        expect(specs[name], name).toBeDefined()
        expect(specs[name]!.group, name).toBe(group)
        expect(specs[name]!.source, name).toBe('contract')
      }
    }
    const contract = COMMAND_NAMES.filter((n) => specs[n]!.source === 'contract')
    expect(contract).toHaveLength(58)
  })

  it('adds the commands a control panel needs from the protocol notes', () => {
    const notes = COMMAND_NAMES.filter((n) => specs[n]!.source === 'notes').sort()
    expect(notes).toEqual(
      [
        'getInputsPlayStatus',
        'getPlayStatus',
        'getTitleControlInfo',
        'getTitlesPlayStatus',
        'readTitle',
        'schedule',
      ].sort(),
    )
  })

  it('exports COMMAND_NAMES as the keys of the catalogue, and looks names up safely', () => {
    expect([...COMMAND_NAMES].sort()).toEqual(Object.keys(COMMANDS).sort())
    expect(new Set(COMMAND_NAMES).size).toBe(64)
    expect(getCommandSpec('replay_get_play_info')).toBe(COMMANDS.replay_get_play_info)
    expect(getCommandSpec('toString')).toBeUndefined()
    expect(isCommandName('constructor')).toBe(false)
    expect(isCommandName('schedule')).toBe(true)
  })

  it('gives schedule the action values of protocol.ts, required', () => {
    expect(COMMANDS.schedule.params.action.values).toEqual(SCHEDULE_ACTIONS)
    expect(COMMANDS.schedule.params.action.required).toBe(true)
  })

  it('allows a bare {} reply for loadProject, saveProject and subscribe only', () => {
    const empty = COMMAND_NAMES.filter((n) => specs[n]!.emptyReplyAllowed === true).sort()
    expect(empty).toEqual(['loadProject', 'saveProject', 'subscribe'])
  })

  it('records the removeTitleInput → setTitleInput alias and no other', () => {
    const aliased = COMMAND_NAMES.filter((n) => specs[n]!.replyAlias !== undefined)
    expect(aliased).toEqual(['removeTitleInput'])
    expect(COMMANDS.removeTitleInput.replyAlias).toBe('setTitleInput')
    expect(COMMANDS.removeTitleInput.params.input.required).toBe(true)
  })

  it('marks the parameters decisions.md assumes, with their names and encodings', () => {
    const assumedParams: [string, string, string, string][] = [
      ['closeProject', 'saveProject', 'boolean', 'flag'],
      ['closeProject', 'closeProject', 'boolean', 'flag'],
      ['loadProject', 'file', 'string', 'text'],
      ['loadProject', 'autoCache', 'boolean', 'flag'],
      ['loadProject', 'videoSource', 'string', 'text'],
      ['setVideoFormat', 'width', 'number', 'text'],
      ['setVideoFormat', 'height', 'number', 'text'],
      ['setVideoFormat', 'frameRate', 'number', 'text'],
      ['replay_arm_inputs', 'inputs', 'string[]', 'csv'],
      ['replay_disarm_inputs', 'inputs', 'string[]', 'csv'],
      ['replay_enable_scrubbing', 'enable', 'boolean', 'word'],
      ['replay_set_in_point', 'position', 'number', 'text'],
      ['replay_set_out_point', 'position', 'number', 'text'],
      ['replay_set_scrub_position', 'position', 'number', 'text'],
      ['replay_set_replay_speed', 'speed', 'number', 'text'],
      ['replay_enable', 'speed', 'number', 'text'],
      ['replay_set_settings', 'settings', 'object', 'json'],
    ]
    for (const [command, param, type, encoding] of assumedParams) {
      const p = specs[command]!.params[param]
      expect(p, `${command}.${param}`).toBeDefined()
      expect(p!.assumed, `${command}.${param}`).toBe(true)
      expect(p!.note, `${command}.${param}`).toBeTruthy()
      expect(p!.type, `${command}.${param}`).toBe(type)
      expect(p!.encoding, `${command}.${param}`).toBe(encoding)
      expect(specs[command]!.assumed, command).toBe(true)
    }
  })

  it('marks the "not shown" reply shapes as assumed and optional', () => {
    for (const name of ['getTimelineDuration', 'getStreamHostServer', 'getCurrentProject', 'getVideoInIcon']) {
      const spec = specs[name]!
      expect(spec.assumed, name).toBe(true)
      expect(spec.note, name).toMatch(/not in the application's documentation; assumed shape/)
      for (const field of Object.values(spec.reply)) expect(field.optional, name).toBe(true)
    }
    expect(COMMANDS.replay_get_inputs.reply.inputs.assumed).toBe(true)
    expect(COMMANDS.getRecentProjects.reply.recentProjects.items.tags.assumed).toBe(true)
  })

  it('types reply fields as the contract names them', () => {
    for (const field of Object.values(COMMANDS.replay_get_play_info.reply)) expect(field.type).toBe('number')
    expect(COMMANDS.replay_is_trial_mode.reply.isTrial.type).toBe('boolean')
    expect(COMMANDS.getAllVideoIns.reply.count.type).toBe('string')
    expect(COMMANDS.getAllVideoIns.reply.videoIns.items).toBe('string')
    expect(COMMANDS.getRecentProjects.reply.recentProjects.items.filesize.type).toBe('integer')
    expect(COMMANDS.checkProjectEdited.reply.hasChanged.type).toBe('flag')
    expect(COMMANDS.getSubscriptions.reply.senders.items.is_default.type).toBe('flag')
    expect(COMMANDS.duplicateTitle.reply.title.formEncoded).toBe(true)
  })

  it('uses `video`, not `videoIn`, for openVideoIn and closeVideoIn, and requires what the contract requires', () => {
    expect(Object.keys(COMMANDS.closeVideoIn.params)).toEqual(['video'])
    expect(Object.keys(COMMANDS.openVideoIn.params)).toEqual(['video'])
    expect(Object.keys(COMMANDS.getVideoInInfo.params)).toEqual(['videoIn'])
    expect(COMMANDS.getVideoInIcon.params.width.required).toBe(true)
    expect(COMMANDS.getVideoInIcon.params.height.required).toBe(true)
    expect(COMMANDS.switchVideoIn.params.channel.required).toBe(true)
  })

  it('never declares requestId as a parameter (the client adds it to every call)', () => {
    for (const name of COMMAND_NAMES) expect(Object.keys(specs[name]!.params), name).not.toContain('requestId')
  })

  it('gives every parameter an encoding that fits its type', () => {
    const allowed: Record<string, string[]> = {
      string: ['text'],
      number: ['text'],
      boolean: ['flag', 'word'],
      'string[]': ['csv'],
      object: ['json'],
    }
    for (const name of COMMAND_NAMES) {
      for (const [param, p] of Object.entries(specs[name]!.params)) {
        expect(allowed[p.type], `${name}.${param}`).toContain(p.encoding)
      }
    }
  })

  it('derives parameter and reply types from the table', () => {
    expectTypeOf<ParamsOf<'replay_set_scrub_position'>>().toEqualTypeOf<{ position: number }>()
    expectTypeOf<ParamsOf<'schedule'>['action']>().toEqualTypeOf<(typeof SCHEDULE_ACTIONS)[number]>()
    expectTypeOf<ParamsOf<'replay_arm_inputs'>>().toEqualTypeOf<{ inputs: string[] }>()
    expectTypeOf<ParamsOf<'closeProject'>>().toEqualTypeOf<{ saveProject?: boolean; closeProject?: boolean }>()
    expectTypeOf<ReplyOf<'replay_is_trial_mode'>>().toEqualTypeOf<{ isTrial: boolean }>()
    expectTypeOf<ReplyOf<'getAllVideoIns'>>().toEqualTypeOf<{ count: string; videoIns: string[] }>()
    expectTypeOf<ReplyOf<'checkProjectEdited'>['hasChanged']>().toEqualTypeOf<'0' | '1'>()
    expectTypeOf<ReplyOf<'getRecentProjects'>['recentProjects'][number]['filesize']>().toEqualTypeOf<
      number | undefined
    >()
    expectTypeOf<ReplyOf<'replay_get_settings'>['settings']['muteGraphicsOnReplay']>().toEqualTypeOf<
      boolean | undefined
    >()
    // Runtime half of the check: the derived keys are the catalogue's keys.
    expect(Object.keys(COMMANDS.replay_set_scrub_position.params)).toEqual(['position'])
  })
})
