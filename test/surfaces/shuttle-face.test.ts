/**
 * The Contour Shuttle family's face data: every button of every model the library knows has a place
 * on its face and a place in words, and the words are what `learn`, `devices --model` and
 * docs/controls.md show beside the id.
 */
import { describe, expect, it } from 'vitest'
import { shuttleButtonPlace, shuttleFace, SHUTTLE_MODELS, shuttleControls } from '../../src/families/shuttle.js'

describe('Contour Shuttle faces', () => {
  it.each(SHUTTLE_MODELS.map((m) => [m.name, m] as const))(
    '%s: each control placed, each button named once',
    (_name, model) => {
      const controls = shuttleControls(model)
      const face = shuttleFace({ model: model.name, controls })
      expect(face?.spots.size).toBe(controls.length)
      const places = controls.filter((c) => c.kind === 'button').map((c) => c.label)
      expect(places).toHaveLength(model.buttons)
      expect(places.every((p) => typeof p === 'string' && p.length > 0)).toBe(true)
      expect(new Set(places).size).toBe(places.length)
      expect(shuttleButtonPlace(model.name, model.buttons)).toBeUndefined()
    },
  )

  it("names the ShuttlePro v2's buttons as they sit: button:7 second row, 4th from left; 13 and 14 beside the ring", () => {
    expect(shuttleButtonPlace('ShuttlePro v2', 7)).toBe('second row, 4th from left')
    expect(shuttleButtonPlace('ShuttlePro v2', 13)).toBe('left of the ring')
    expect(shuttleButtonPlace('ShuttlePro v2', 14)).toBe('right of the ring')
    expect(shuttleButtonPlace('ShuttlePro v1', 13)).toBeUndefined()
  })
})
