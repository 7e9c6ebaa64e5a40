// Loads every native module panelbridge ships with and calls into each, under whichever Node runs
// this file. All three are N-API builds (prebuilt, no rebuild per Node version); this is the proof.
// Exits non-zero, naming the module, when one does not load or work.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const checks = {
  '@napi-rs/canvas': async () => {
    const { createCanvas } = await import('@napi-rs/canvas')
    const canvas = createCanvas(8, 8)
    canvas.getContext('2d').fillRect(0, 0, 8, 8)
    return `${canvas.toBuffer('image/png').length}-byte PNG`
  },
  'node-hid': async () => {
    const HID = await import('node-hid')
    return `${(await HID.devicesAsync()).length} HID devices`
  },
  usb: async () => {
    const { usb } = await import('usb')
    return `${usb.getDeviceList().length} USB devices`
  },
}

let failed = 0
for (const [name, check] of Object.entries(checks)) {
  try {
    const { version } = require(`${name}/package.json`)
    console.log(`ci: native ${name}@${version} under Node ${process.version}: ${await check()}`)
  } catch (error) {
    failed += 1
    console.error(`ci: native ${name} FAILED under Node ${process.version}:`, error)
  }
}
process.exitCode = failed > 0 ? 1 : 0
