/**
 * The models a network deck can be: the Studio, or any deck a Network Dock takes (the USB models), so
 * the Stream Deck model table (`../streamdeck/models.ts`: the library's ids, the controls of each).
 */
import type { ModelTable } from '../surfaces/driver-family.js'
import { streamdeckModels } from './streamdeck.js'

export const netDeckModels: ModelTable = { ...streamdeckModels, label: 'network Stream Deck' }
