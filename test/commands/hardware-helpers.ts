/**
 * Seams for `devices` and `learn` tests: an in-memory Stream Deck transport, MIDI system and generic HID
 * transport behind the real drivers; the check that a subcommand is registered.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { helpText } from '../../src/cli.js'
import type { HardwareCommandDeps } from '../../src/commands/hardware.js'
import { SUBCOMMANDS } from '../../src/commands/index.js'
import type { Subcommand } from '../../src/commands/subcommand.js'
import { hardwareDrivers, type HardwareDriver } from '../../src/surfaces/drivers.js'
import type { DeviceAccess } from '../../src/surfaces/hotplug.js'
import { MemoryHidTransport } from '../surfaces/helpers/fake-generic-hid.js'
import { MemoryStreamDeckTransport, rawImageEncoder } from '../surfaces/helpers/fake-hid.js'
import { FakeMidiBackend } from '../surfaces/helpers/fake-midi.js'

export interface Harness {
  transport: MemoryStreamDeckTransport
  /** The MIDI ports (none until a test adds some). */
  midi: FakeMidiBackend
  /** Generic HID devices (none until a test adds some). */
  hid: MemoryHidTransport
  deps: HardwareCommandDeps
  out: string[]
  err: string[]
  /** Access answers per device path (default `ok`). */
  access: Map<string, DeviceAccess>
  /** Drivers added after the real ones (a later driver, in the tests' eyes). */
  extra: HardwareDriver[]
  /** Writes a config file and returns its path. */
  config(text: string): string
}

export function harness(): Harness {
  const transport = new MemoryStreamDeckTransport()
  const midi = new FakeMidiBackend()
  const hid = new MemoryHidTransport()
  const out: string[] = []
  const err: string[] = []
  const access = new Map<string, DeviceAccess>()
  const extra: HardwareDriver[] = []
  const dir = mkdtempSync(join(tmpdir(), 'pb-hw-'))
  let n = 0
  return {
    transport,
    midi,
    hid,
    out,
    err,
    access,
    extra,
    deps: {
      drivers: () => [
        ...hardwareDrivers({
          streamdeck: { transport, encodeJPEG: rawImageEncoder },
          midi: { backend: midi },
          hid: { transport: hid },
        }),
        ...extra,
      ],
      access: (path) => Promise.resolve(access.get(path) ?? 'ok'),
      hotplug: { start: () => Promise.resolve(false), stop: () => undefined },
      defaultConfig: undefined,
      out: (line) => void out.push(...line.split('\n')),
      err: (line) => void err.push(line),
    },
    config(text) {
      const file = join(dir, `config-${++n}.yaml`)
      writeFileSync(file, text)
      return file
    },
  }
}

/** The subcommand `name` is `command` in the CLI's list, and `--help` shows `usage`. */
export function expectRegistered(name: string, command: Subcommand, usage: string): void {
  expect(SUBCOMMANDS[name]).toBe(command)
  expect(helpText()).toContain(usage)
}
