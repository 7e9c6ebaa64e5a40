// Loads every native module panelbridge ships with and calls into each, under whichever Node runs
// this file. All four are N-API builds (prebuilt, no rebuild per Node version); this is the proof.
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
  // Why the ports may be none: a machine without ALSA sequencer (no sound devices) lists no MIDI ports,
  // and RtMidi then throws; loading the binary (which links libasound2) is what is proved here.
  '@julusian/midi': async () => {
    const midi = await import('@julusian/midi/lazy')
    midi.verifyLibraryLoaded()
    try {
      return `${midi.Input.getPortNames().length} MIDI inputs`
    } catch (error) {
      return `loaded; no MIDI system here (${error instanceof Error ? error.message : String(error)})`
    }
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
