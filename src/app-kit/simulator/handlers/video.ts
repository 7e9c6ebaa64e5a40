/**
 * Video input commands (contract: Video input commands, 7).
 */
import { APP_ERRORS } from '../../../api/protocol.js'
import { flagText, type Params } from '../params.js'
import { iconSide, solidPng } from '../png.js'
import type { SimVideoIn } from '../seed.js'
import type { Handler, SimulatorModel } from '../model.js'
import { refused, REFUSALS } from '../refusals.js'
import { HandlerError } from '../types.js'

/** The device named by parameter `name`; missing or unknown → 'invalid params'. */
function device(state: SimulatorModel, p: Params, name: string): SimVideoIn {
  const wanted = p.required(name)
  const d = state.videoIns.find((v) => v.name === wanted)
  if (!d) throw new HandlerError(APP_ERRORS.invalidParams)
  return d
}

/** Item of getVideoInInfo (contract: Video input). `add` is '1' while the device can still be opened. */
function info(state: SimulatorModel, d: SimVideoIn): Record<string, string> {
  return {
    add: flagText(!state.openedVideoIns.includes(d.name)),
    audio: flagText(d.hasAudio),
    config: d.config,
    name: d.name,
    setup: flagText(d.type === 'SDI' || d.type === 'HDMI'),
    type: d.type,
    video: '1',
  }
}

export const videoHandlers: Record<string, Handler> = {
  /** verbose=1 adds `details`, the getVideoInInfo item of each device (the contract leaves it open). */
  getAllVideoIns(state, p) {
    return {
      count: String(state.videoIns.length),
      videoIns: state.videoIns.map((v) => v.name),
      ...(p.flag('verbose') ? { details: state.videoIns.map((v) => info(state, v)) } : {}),
    }
  },

  /** Opened devices as objects: name, type, config and the channels where they are active. */
  getOpenedVideoIns(state) {
    return {
      videoIns: state.openedVideoIns.map((name) => {
        const d = state.videoIns.find((v) => v.name === name)!
        const channels = [...state.switcher].filter(([, n]) => n === name).map(([c]) => c)
        return { name, type: d.type, config: d.config, activeChannels: channels }
      }),
    }
  },

  /** One device (`videoIn`), or every device when absent. */
  getVideoInInfo(state, p) {
    const list = p.has('videoIn') ? [device(state, p, 'videoIn')] : state.videoIns
    return { videoIns: list.map((d) => info(state, d)) }
  },

  /** A PNG of the device's picture at width×height, base64 in `image` (shape assumed, decisions.md). */
  getVideoInIcon(state, p) {
    if (!p.has('width') || !p.has('height') || !p.has('video')) throw new HandlerError(APP_ERRORS.videoInIconMissing)
    const width = iconSide(p.int('width')!)
    const height = iconSide(p.int('height')!)
    const d = device(state, p, 'video')
    return { image: solidPng(width, height, d.color).toString('base64') }
  },

  openVideoIn(state, p) {
    const d = device(state, p, 'video')
    if (!state.openedVideoIns.includes(d.name)) state.openedVideoIns.push(d.name)
  },

  /** Closing a device that is not open cannot act: refused. */
  closeVideoIn(state, p) {
    const d = device(state, p, 'video')
    const at = state.openedVideoIns.indexOf(d.name)
    if (at < 0) throw refused(REFUSALS.inputNotOpened(d.name))
    state.openedVideoIns.splice(at, 1)
    for (const [channel, name] of state.switcher) if (name === d.name) state.switcher.delete(channel)
  },

  /** Needs a channel and an opened device. */
  switchVideoIn(state, p) {
    const channel = p.int('channel')
    if (channel === undefined || channel < 0) throw new HandlerError(APP_ERRORS.invalidParams)
    const d = device(state, p, 'video')
    if (!state.openedVideoIns.includes(d.name)) throw refused(REFUSALS.inputNotOpened(d.name))
    state.switcher.set(channel, d.name)
  },
}
