/**
 * Title commands (contract: Title commands, 13): create, copy, load, save, rename, reorder, select,
 * delete, inputs, designer, timeline duration.
 */
import { APP_ERRORS, FILE_EXTENSIONS } from '../../../api/protocol.js'
import { readTitleFile, resolveFile, storeTitle, titleFromStore, writeTitleFile } from '../files.js'
import { checkCount, checkName, SIM_LIMITS } from '../limits.js'
import type { Params } from '../params.js'
import type { Handler, SimulatorModel } from '../model.js'
import { HandlerError, type SimTitle } from '../types.js'

/** Default name of a new title (made unique with a number). */
const NEW_TITLE_NAME = 'New Title'

type TitleBody = Omit<SimTitle, 'id' | 'name' | 'channel' | 'position'>

/**
 * Places a new title from the shared newId/newName/newPosition/channel parameters. `fallback` gives the
 * name, channel and id used when those parameters are absent (an id already taken is replaced).
 */
function placeNew(
  state: SimulatorModel,
  p: Params,
  body: TitleBody,
  fallback: { name: string; channel?: number; id?: string },
): SimTitle {
  let id: string
  if (p.has('newId') || fallback.id === undefined) id = state.newTitleId(p.str('newId'))
  else id = tryNewTitleId(state, fallback.id)
  const t: SimTitle = {
    ...body,
    id,
    name: p.has('newName') ? checkName(p.str('newName').trim(), 'title name') : state.uniqueTitleName(fallback.name),
    channel: p.channel(fallback.channel ?? 0),
    position: 0,
  }
  state.insertTitle(t, p.int('newPosition'))
  return t
}

function tryNewTitleId(state: SimulatorModel, wanted: string): string {
  try {
    return state.newTitleId(wanted)
  } catch {
    return state.newTitleId('') // the file's id is taken or malformed: a fresh one
  }
}

/**
 * The name as the application echoes it from a query string without form-decoding it (protocol notes
 * 5.2: `New+Title+Name`). Modelled on purpose so that clients are tested against the quirk.
 */
function formEncodedEcho(name: string): string {
  return name.replace(/ /g, '+')
}

export const titleHandlers: Record<string, Handler> = {
  closeDesigner(state) {
    state.designerTitleId = ''
  },

  deleteTitle(state, p) {
    const t = state.findTitle(p)
    state.removeTitle(t)
    return { id: t.id }
  },

  duplicateTitle(state, p) {
    const source = state.findTitle(p)
    // A copy is what saving and loading the source would give: every stored field, deep, and Off.
    const { id: _id, name, channel, position: _position, ...body } = titleFromStore(storeTitle(source))
    const copy = placeNew(state, p, body, { name: `${name} copy`, channel })
    return { id: copy.id, title: formEncodedEcho(copy.name) }
  },

  getTimelineDuration(state, p) {
    const t = state.findTitle(p, APP_ERRORS.timelineNoTitle)
    return { id: t.id, duration: t.timelineDuration }
  },

  loadTitle(state, p) {
    const stored = readTitleFile(resolveFile(state.dataDir, p.str('file'), [FILE_EXTENSIONS.title]))
    const { id, name, channel: _channel, position: _position, ...body } = titleFromStore(stored)
    // The file's id is kept when it is free and no newId is asked for.
    placeNew(state, p, body, { name, id })
  },

  newTitle(state, p) {
    placeNew(
      state,
      p,
      {
        inputs: [],
        variables: [{ name: 'Text', value: '', type: 'text' }],
        playState: 'Off',
        selected: false,
        timelineDuration: 5,
        color: '#37474f',
      },
      { name: NEW_TITLE_NAME },
    )
  },

  openDesigner(state, p) {
    const t = state.findTitle(p)
    state.designerTitleId = t.id
    return { id: t.id }
  },

  saveTitle(state, p) {
    const t = state.findTitle(p)
    const file = p.has('file') ? p.str('file') : `${t.name}${FILE_EXTENSIONS.title}`
    writeTitleFile(resolveFile(state.dataDir, file, [FILE_EXTENSIONS.title]), t)
    return { id: t.id }
  },

  /** By name (or id); an unknown name answers 'No such title name'. The others are deselected. */
  selectTitle(state, p) {
    const t = state.titleByNameOrId(p.str('title').trim())
    if (!t) throw new HandlerError(APP_ERRORS.selectTitleNoName)
    for (const other of state.titles) other.selected = other === t
  },

  /** Replaces the title's inputs with `input` (comma-separated), or adds to them with merge=1. */
  setTitleInput(state, p) {
    const t = state.findTitle(p)
    const inputs = p.list('input').map((i) => checkName(i, 'input name'))
    const next = [...new Set(p.flag('merge') ? [...t.inputs, ...inputs] : inputs)]
    checkCount(next.length, SIM_LIMITS.maxInputsPerTitle, 'inputs on a title')
    t.inputs = next
    state.markEdited()
  },

  /** Answers as setTitleInput, errors included (contract: removeTitleInput; see REPLY_ALIASES). */
  removeTitleInput(state, p) {
    const t = state.findTitle(p)
    const inputs = p.list('input')
    if (inputs.length === 0) throw new HandlerError(APP_ERRORS.invalidParams)
    const gone = new Set(inputs)
    t.inputs = t.inputs.filter((i) => !gone.has(i))
    state.markEdited()
  },

  setTitleName(state, p) {
    const t = state.findTitle(p, APP_ERRORS.setTitleNameNoTitle)
    const name = checkName(p.str('newName').trim(), 'title name')
    if (name === '') throw new HandlerError(APP_ERRORS.invalidParams)
    t.name = name
    state.markEdited()
  },

  setTitlePosition(state, p) {
    const t = state.findTitle(p)
    const position = p.int('position')
    if (position === undefined) throw new HandlerError(APP_ERRORS.invalidParams)
    state.moveTitle(t, position)
  },
}
