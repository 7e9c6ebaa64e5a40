import { readFileSync } from 'node:fs'
import { DEVICE_MODELS2, DeviceModelId, DeviceModelType } from '@elgato-stream-deck/core'
import { describe, expect, it } from 'vitest'
import { PRODUCTS } from '@shuttle-lib/core'
import { UDEV_FILES, renderUdevRules, udevEntries } from '../../src/families/udev.js'

describe('udev rules', () => {
  it.each(['headless', 'desktop'] as const)(
    'the committed %s rules match the model table (regenerate if stale)',
    (variant) => {
      const committed = readFileSync(new URL(`../../${UDEV_FILES[variant]}`, import.meta.url), 'utf8')
      expect(committed, `run: npx tsx scripts/generate-udev.ts`).toBe(renderUdevRules(variant))
    },
  )

  it('covers every Stream Deck and Contour product id of the libraries, and X-keys by vendor', () => {
    const text = renderUdevRules('headless')
    for (const id of Object.values(DeviceModelId)) {
      const spec = DEVICE_MODELS2[id]
      if (spec.type === DeviceModelType.NETWORK_DOCK) continue
      for (const pid of spec.productIds) {
        expect(text).toContain(
          `ATTRS{idVendor}=="${spec.vendorId.toString(16).padStart(4, '0')}", ATTRS{idProduct}=="${pid.toString(16).padStart(4, '0')}"`,
        )
      }
    }
    const contour = Object.values(PRODUCTS)
    expect(contour.map((p) => p.productId).sort()).toEqual([0x10, 0x20, 0x30])
    for (const p of contour) {
      expect(text).toContain(
        `# Contour ${p.name}\nSUBSYSTEM=="usb", ATTRS{idVendor}=="0b33", ATTRS{idProduct}=="${p.productId.toString(16).padStart(4, '0')}"`,
      )
    }
    expect(text).toContain('ATTRS{idVendor}=="05f3", MODE')
    expect(udevEntries().some((e) => e.productIds?.includes(0xffff))).toBe(false)
  })

  it('headless rules use group panelbridge with 0660; desktop rules use uaccess; never 0666', () => {
    const headless = renderUdevRules('headless')
    const desktop = renderUdevRules('desktop')
    const rules = (t: string): string[] => t.split('\n').filter((l) => l !== '' && !l.startsWith('#'))
    expect(rules(headless).every((l) => l.endsWith('MODE="0660", GROUP="panelbridge"'))).toBe(true)
    expect(rules(desktop).every((l) => l.endsWith('TAG+="uaccess"'))).toBe(true)
    expect(headless + desktop).not.toMatch(/0666|MODE="0?666"/)
    expect(rules(headless).some((l) => l.startsWith('KERNEL=="hidraw*"'))).toBe(true)
  })
})
