/**
 * Playing titles and reading their state, from the protocol notes (4.1, 4.2): schedule,
 * getTitleControlInfo, readTitle, getPlayStatus, getTitlesPlayStatus, getInputsPlayStatus.
 */
import { APP_ERRORS, SCHEDULE_ACTIONS, type PlayState, type ScheduleAction } from '../../../api/protocol.js'
import { flagText, readVariables, type Params } from '../params.js'
import { iconDataUrl, iconSide } from '../png.js'
import type { Handler, SimulatorModel } from '../model.js'
import { HandlerError, type SimTitle } from '../types.js'

/** Parameters of `schedule` itself; any other query parameter of a GET is a title variable. */
const SCHEDULE_PARAMS = new Set([
  'action',
  'id',
  'title',
  'channel',
  'input',
  'queue',
  'markIn',
  'markOut',
  'time',
  'requestId',
  'variables',
])

function parseAction(raw: string): ScheduleAction {
  const action = SCHEDULE_ACTIONS.find((a) => a.toLowerCase() === raw.trim().toLowerCase())
  if (!action) throw new HandlerError(APP_ERRORS.invalidParams)
  return action
}

/**
 * The title variables of a schedule: the POST body's `variables` (or the WS argument), else a
 * `variables` parameter as JSON text, plus — for a GET — every query parameter that is not one of
 * SCHEDULE_PARAMS (protocol notes 4.1).
 */
function scheduleVariables(p: Params): Map<string, string> {
  const values = readVariables(p.variables ?? p.get('variables'))
  for (const [k, v] of Object.entries(p.raw)) {
    if (!SCHEDULE_PARAMS.has(k) && !values.has(k) && typeof v === 'string') values.set(k, v)
  }
  return values
}

/** Default size of the icons in getTitleControlInfo, pixels. */
const ICON_WIDTH = 96
const ICON_HEIGHT = 54

/** Titles of `channel` (absent or -1: every channel), in list order. */
function titlesOnChannel(state: SimulatorModel, p: Params): SimTitle[] {
  const channel = p.int('channel', -1)!
  return state.orderedTitles().filter((t) => channel < 0 || t.channel === channel)
}

/** Titles of `channel` that use `input` (absent or empty: any input), in list order. */
function titlesOnChannelAndInput(state: SimulatorModel, p: Params): SimTitle[] {
  const input = p.str('input').trim()
  return titlesOnChannel(state, p).filter((t) => input === '' || t.inputs.includes(input))
}

/**
 * The titles a schedule addresses: `id`, else `title` (name or id), else every title of `channel`
 * (-1 or absent: all) and of `input` when given — "empty string = all" (protocol notes 4.1).
 */
function scheduleTargets(state: SimulatorModel, p: Params): SimTitle[] {
  if (p.has('id') || p.has('title')) return [state.findTitle(p)]
  return titlesOnChannelAndInput(state, p)
}

/** The most "on air" state among titles: Running over Paused over Off. */
function combinedState(titles: SimTitle[]): PlayState {
  if (titles.some((t) => t.playState === 'Running')) return 'Running'
  if (titles.some((t) => t.playState === 'Paused')) return 'Paused'
  return 'Off'
}

export const playoutHandlers: Record<string, Handler> = {
  schedule(state, p) {
    const action = parseAction(p.required('action'))
    const variables = scheduleVariables(p)
    for (const t of scheduleTargets(state, p)) state.applyAction(t, action, variables)
  },

  /**
   * Every title with status, icon and variables. The real application lists titles in reverse order
   * (NewBlue's module reverses them, protocol notes 4.2): so does the simulator, last title first.
   */
  getTitleControlInfo(state, p) {
    const withIcon = !p.has('icon') || p.flag('icon')
    const width = iconSide(p.int('width', ICON_WIDTH)!)
    const height = iconSide(p.int('height', ICON_HEIGHT)!)
    const titles = state
      .orderedTitles()
      .reverse()
      .map((t) => ({
        id: t.id,
        name: t.name,
        status: t.playState,
        image: withIcon ? iconDataUrl(width, height, t.color) : '',
        variables: t.variables.map((v) => ({ variable: v.name, value: v.value, type: v.type })),
      }))
    return { titles }
  },

  /** Title records in the JSON form of the XML readTitle reply (protocol notes 4.2). */
  readTitle(state, p) {
    let titles = titlesOnChannelAndInput(state, p)
    if (p.has('title')) {
      const t = state.findTitle(p)
      titles = titles.filter((x) => x === t)
    }
    return {
      titles: titles.map((t) => ({
        id: t.id,
        name: t.name,
        position: t.position,
        channel: t.channel,
        ready: '1',
        input: t.inputs.join(','),
        function: 'title',
        inputActive: flagText(t.inputs.length > 0),
        selected: flagText(t.selected),
        running: { playState: t.playState, time: '0' },
        variables: t.variables.map((v) => ({
          name: v.name,
          value: v.value,
          varType: v.type,
          dataType: 'string',
          dynamic: '0',
          input: '',
          show: '1',
        })),
      })),
    }
  },

  getPlayStatus(state, p) {
    const t = state.findTitle(p)
    return { id: t.id, play: t.playState }
  },

  getTitlesPlayStatus(state, p) {
    return { titles: titlesOnChannel(state, p).map((t) => ({ id: t.id, name: t.name, play: t.playState })) }
  },

  /** Per input of the titles: its name, its titles' combined play state and how many titles use it. */
  getInputsPlayStatus(state, p) {
    const titles = titlesOnChannel(state, p)
    const names = [...new Set(titles.flatMap((t) => t.inputs))]
    return {
      inputs: names.map((name) => {
        const using = titles.filter((t) => t.inputs.includes(name))
        return { name, play: combinedState(using), titles: using.length }
      }),
    }
  },
}
