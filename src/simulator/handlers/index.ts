/** Every command the simulator answers, by name. */
import type { Handler } from '../state.js'
import { notificationHandlers } from './notifications.js'
import { projectHandlers } from './project.js'

export const HANDLERS: Readonly<Record<string, Handler>> = Object.freeze({
  ...notificationHandlers,
  ...projectHandlers,
})
