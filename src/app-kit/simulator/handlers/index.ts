/** Every command the simulator answers, by name. */
import type { Handler } from '../model.js'
import { notificationHandlers } from './notifications.js'
import { outputHandlers } from './output.js'
import { playoutHandlers } from './playout.js'
import { projectHandlers } from './project.js'
import { replayHandlers } from './replay.js'
import { titleHandlers } from './titles.js'
import { videoHandlers } from './video.js'

export const HANDLERS: Readonly<Record<string, Handler>> = Object.freeze({
  ...titleHandlers,
  ...videoHandlers,
  ...outputHandlers,
  ...replayHandlers,
  ...projectHandlers,
  ...notificationHandlers,
  ...playoutHandlers,
})
