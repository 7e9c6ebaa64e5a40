/**
 * What a mirrored backlight or LED shows for a feedback: the colour the device itself lights, so that
 * the page shows what the panel shows rather than what the engine asked for. Each family says how its
 * lights look where they differ from the common rules (`src/families/lights.ts`), through its line in
 * the families' FAMILY_LIGHTS (`src/families/index.ts`); the rest light by the common rules: an RGB light shows its
 * colour unless `led` is off, a one-colour LED lights by `led` or a bright enough colour. A stale
 * feedback is dark (`lightFeedback`).
 * Server-side only.
 */
import { familyLights } from '../../families/index.js'
import { lightFeedback, lightOnly, oneColourLed, rgbLight, type LightRule } from '../../families/lights.js'
import { widgetOf } from './views.js'
import type { SurfaceDescription } from '../../face/surface.js'

/**
 * The light rule of each pad that has a light (an RGB backlight or an LED), for one surface. Other
 * controls are left out.
 */
export function lightRules(
  description: Pick<SurfaceDescription, 'driver' | 'model' | 'controls'>,
): Map<string, LightRule> {
  const rules = new Map<string, LightRule>()
  const family = familyLights(description)
  for (const c of description.controls) {
    if (!lightOnly(c) || widgetOf(c) !== 'pad') continue
    const rule = family?.(c) ?? (c.capabilities.rgb ? rgbLight : oneColourLed)
    // Given what the panel's light is given (a stale feedback is dark), as the manager gives it.
    rules.set(c.id, (fb) => rule(lightFeedback(fb)))
  }
  return rules
}
