/**
 * The Stream Deck family's model table (`src/families/streamdeck.ts`) maps each model's controls without
 * the driver; an opened deck's surface maps them in its own code. The two must give the same control ids,
 * kinds, places and capabilities for every model, or `check` would accept `desk/key:N` a deck lacks.
 */
import type { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it } from 'vitest'
import { browserDeckModels } from '../../src/families/browser-deck.js'
import { inertDeck, STREAMDECK_MODEL_IDS, streamdeckModels } from '../../src/families/streamdeck.js'
import { KeyRenderer } from '../../src/surfaces/render/key-renderer.js'
import { StreamDeckSurface } from '../../src/surfaces/streamdeck/surface.js'

describe('the Stream Deck model table', () => {
  it('has the controls and name an opened deck of each model has', async () => {
    const renderer = new KeyRenderer()
    expect(STREAMDECK_MODEL_IDS.length).toBeGreaterThan(5)
    for (const model of STREAMDECK_MODEL_IDS) {
      const surface = new StreamDeckSurface(await inertDeck(model as DeviceModelId), 'desk', { renderer })
      const opened = surface.description
      await surface.close()
      expect(await streamdeckModels.controlsOf(model), model).toEqual(opened.controls)
      expect(await streamdeckModels.nameOf(model), model).toBe(opened.model)
      // A browser deck of the model has the USB deck's controls, so a binding moves between the two.
      expect(await browserDeckModels.controlsOf(model), model).toEqual(opened.controls)
    }
  })

  it('knows no model it lacks', async () => {
    expect(await streamdeckModels.controlsOf('xxl')).toBeUndefined()
    expect(await streamdeckModels.nameOf('xxl')).toBeUndefined()
  })
})
