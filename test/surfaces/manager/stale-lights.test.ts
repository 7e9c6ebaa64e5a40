/**
 * A stale feedback (the application is gone) on a light: dark, never its last colour (`lightFeedback` in
 * src/families/lights.ts). Through the manager to an X-keys panel over its fake HID device (the real
 * library writes the bytes), in the web mirror's light rules, and not on a key with an image, which
 * gets the whole feedback and is drawn dimmed and hatched.
 */
import { describe, expect, it } from 'vitest'
import type { Feedback } from '../../../src/face/feedback.js'
import { lightRules } from '../../../src/surfaces/web/lights.js'
import { XkeysDriver } from '../../../src/surfaces/xkeys/driver.js'
import { decodeGen2KeyImages } from '../helpers/fake-hid.js'
import { MemoryXkeysTransport } from '../helpers/fake-xkeys.js'
import { WAIT, manage, startedDeckRig, useManagerLogs } from '../helpers/manager.js'
import { openFirstDetected } from '../helpers/surfaces.js'
import { lightFeedback, lightOnly } from '../../../src/families/lights.js'
import type { ControlDescriptor } from '../../../src/face/surface.js'

const logs = useManagerLogs()

const onAir: Feedback = { color: '#e00000', led: 'on', text: 'Lower third', value: 0.5 }
const stale: Feedback = { ...onAir, badge: 'stale' }

describe('a stale light', () => {
  logs.capture()

  it('is given no colour and its LED off; its value, text and badge stay; a fresh feedback is given as it is', () => {
    expect(lightFeedback(stale)).toEqual({ led: 'off', text: 'Lower third', value: 0.5, badge: 'stale' })
    expect(lightFeedback(onAir)).toBe(onAir)
    const failed: Feedback = { ...onAir, badge: 'failed' }
    expect(lightFeedback(failed)).toBe(failed)
  })

  it('is what a control with a light and no image shows', () => {
    const control = (capabilities: ControlDescriptor['capabilities']): ControlDescriptor => ({
      id: 'key:0',
      kind: 'key',
      capabilities,
    })
    expect(lightOnly(control({ rgb: true }))).toBe(true)
    expect(lightOnly(control({ led: true }))).toBe(true)
    expect(lightOnly(control({ image: { width: 72, height: 72 }, rgb: true }))).toBe(false)
    expect(lightOnly(control({ ring: true }))).toBe(false)
  })

  it('goes dark on an X-keys panel and lights again when fresh; the manager keeps the feedback as given', async () => {
    // The bytes the panel is written for "dark" after "blue", from a panel of its own.
    const alone = new MemoryXkeysTransport()
    alone.plug('XK24', '/dev/hidraw-alone')
    const { surface } = await openFirstDetected(new XkeysDriver({ transport: alone }))
    const own = alone.lastOpened('/dev/hidraw-alone')!
    surface.setFeedback('key:0', onAir)
    const litBytes = own.writes.slice()
    surface.setFeedback('key:0', { led: 'off' })
    const darkBytes = own.writes.slice(litBytes.length)
    expect(darkBytes.length).toBeGreaterThan(0)
    expect(darkBytes).not.toEqual(litBytes)
    await surface.close()

    const xkeys = new MemoryXkeysTransport()
    xkeys.plug('XK24', '/dev/hidraw1', { serialNumber: 'PAD' })
    const { manager } = manage([new XkeysDriver({ transport: xkeys })])
    await manager.start()
    await expect.poll(() => manager.isOpen('PAD#unit0'), WAIT).toBe(true)
    const hid = xkeys.lastOpened('/dev/hidraw1')!
    const from = hid.writes.length
    manager.setFeedback('PAD#unit0', 'key:0', onAir)
    expect(hid.writes.slice(from)).toEqual(litBytes)
    manager.setFeedback('PAD#unit0', 'key:0', stale)
    expect(hid.writes.slice(from + litBytes.length)).toEqual(darkBytes)
    expect(manager.feedbackOf('PAD#unit0').get('key:0')).toEqual(stale)
    manager.setFeedback('PAD#unit0', 'key:0', onAir)
    expect(hid.writes.slice(from + litBytes.length + darkBytes.length)).toEqual(litBytes)
  })

  it('is dark in the web mirror, for the common rules and a family of its own', () => {
    const rules = lightRules({
      driver: 'xkeys',
      model: 'XK-24',
      controls: [
        { id: 'key:0', kind: 'key', capabilities: { rgb: true } },
        { id: 'key:1', kind: 'key', capabilities: { led: true } },
      ],
    })
    expect(rules.size).toBe(2)
    for (const [id, rule] of rules) {
      expect(rule(onAir), id).toBeDefined()
      expect(rule(stale), id).toBeUndefined()
    }
  })

  it('on a Stream Deck key (an image) is the whole feedback: drawn in the stale grey, neither dark nor red', async () => {
    const { transport, manager } = await startedDeckRig()
    manager.setFeedback('AAA', 'key:2', { color: '#ff0000', badge: 'stale' })
    // What the key would show if it were given a light's feedback (no colour): another grey.
    manager.setFeedback('AAA', 'key:3', lightFeedback({ color: '#ff0000', badge: 'stale' }))
    const hid = transport.lastOpened('/dev/hidraw1')!
    const images = (): ReturnType<typeof decodeGen2KeyImages> => decodeGen2KeyImages(hid.reports)
    await expect.poll(() => (images().get(2)?.length ?? 0) + (images().get(3)?.length ?? 0), WAIT).toBe(2)
    const [r, g, b] = images().get(2)![0]!.rgba
    expect(r).toBe(g)
    expect(g).toBe(b)
    expect(r).toBeGreaterThan(0)
    expect(r).not.toBe(images().get(3)![0]!.rgba[0])
  })
})
