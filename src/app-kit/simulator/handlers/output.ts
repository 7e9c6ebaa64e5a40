/**
 * Output commands (contract: Output commands, 6): the output device and RTMP streaming.
 * The stream key is checked for presence and then forgotten: it is never stored, echoed or logged.
 */
import { join } from 'node:path'
import { APP_ERRORS } from '../../../api/protocol.js'
import { SEED } from '../seed.js'
import type { Handler } from '../model.js'
import { refused, REFUSALS } from '../refusals.js'
import { HandlerError } from '../types.js'

const STREAM_URL = /^rtmps?:\/\/[^\s/]+/i

/** Folder name of one streaming session's recording: the start time, file-name safe. */
function sessionFolder(d: Date): string {
  return d.toISOString().slice(0, 19).replace(/:/g, '-')
}

export const outputHandlers: Record<string, Handler> = {
  getOutputDevice(state) {
    return { device: state.output.device }
  },

  /** `device` must be one of the simulated devices; `channels` (comma-separated indexes) defaults to 0. */
  setOutputDevice(state, p) {
    const device = p.required('device')
    if (!SEED.outputDevices.includes(device)) throw new HandlerError(APP_ERRORS.invalidParams)
    const channels = p.list('channels').map(Number)
    if (channels.some((c) => !Number.isInteger(c) || c < 0)) throw new HandlerError(APP_ERRORS.invalidParams)
    state.output = { device, channels: channels.length > 0 ? channels : [0] }
  },

  /** The contract's own sample answers 'unknown command'; so does the simulator, always. */
  setStreamHostServers() {
    throw new HandlerError(APP_ERRORS.unknownCommand)
  },

  getStreamHostServer(state) {
    const { streaming, choice, serverUrl, containerFormat } = state.stream
    return { streaming, choice, serverUrl, containerFormat }
  },

  startStreaming(state, p) {
    if (state.stream.streaming) throw refused(REFUSALS.alreadyStreaming)
    const serverUrl = p.required('serverUrl')
    if (!STREAM_URL.test(serverUrl)) throw new HandlerError(APP_ERRORS.invalidParams)
    p.required('streamKey')
    state.stream = {
      streaming: true,
      choice: p.str('choice'),
      serverUrl,
      containerFormat: 'RTMP',
      startedAt: sessionFolder(new Date()),
    }
  },

  /** Answers where the session's recording went: `folder` in the data folder, `subfolder` per session. */
  stopStreaming(state) {
    if (!state.stream.streaming) throw refused(REFUSALS.notStreaming)
    const subfolder = state.stream.startedAt
    state.stream = { ...state.stream, streaming: false, startedAt: '' }
    return { folder: join(state.dataDir, 'recordings'), subfolder }
  },
}
