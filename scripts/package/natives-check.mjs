// Loads each of the five native modules by name from an installed panelbridge tree and calls into it
// (npm run package:verify copies this file into /usr/lib/panelbridge of a throwaway root, where the
// amd64 package runs under the system's Node and the arm64 one under qemu-user). Unlike .ci/native-modules.mjs,
// which checks the development tree, this covers @julusian/jpeg-turbo too (the Stream Deck's JPEG encoder).
// Prints one line per module; exits 1 naming any that failed.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const checks = {
  '@napi-rs/canvas': () => {
    const { createCanvas } = require('@napi-rs/canvas')
    const canvas = createCanvas(8, 8)
    canvas.getContext('2d').fillRect(0, 0, 8, 8)
    return `${canvas.toBuffer('image/png').length}-byte PNG`
  },
  'node-hid': async () => {
    const HID = require('node-hid')
    return `${(await HID.devicesAsync()).length} HID devices`
  },
  usb: () => {
    const { usb } = require('usb')
    return `${usb.getDeviceList().length} USB devices`
  },
  // A machine (or root) without the ALSA sequencer lists no ports and RtMidi throws: loading the binary,
  // which links libasound, is the proof here.
  '@julusian/midi': () => {
    const midi = require('@julusian/midi/lazy')
    midi.verifyLibraryLoaded()
    try {
      return `${midi.Input.getPortNames().length} MIDI inputs`
    } catch (error) {
      return `loaded; no MIDI system here (${error instanceof Error ? error.message : String(error)})`
    }
  },
  '@julusian/jpeg-turbo': () => {
    const jpeg = require('@julusian/jpeg-turbo')
    const raw = Buffer.alloc(16 * 16 * 3, 200)
    const out = jpeg.compressSync(raw, { width: 16, height: 16, format: jpeg.FORMAT_RGB, quality: 90 })
    return `${out.length}-byte JPEG`
  },
}

let failed = 0
for (const [name, check] of Object.entries(checks)) {
  try {
    const { version } = require(`${name}/package.json`)
    console.log(`native ${name}@${version} (${process.arch}, Node ${process.version}): ${await check()}`)
  } catch (error) {
    failed += 1
    console.error(`native ${name} FAILED (${process.arch}):`, error)
  }
}
process.exitCode = failed > 0 ? 1 : 0
