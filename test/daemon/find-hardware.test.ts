/**
 * Find by pressing on hardware: a daemon holding an in-memory Stream Deck + (the real library over a fake
 * HID device), armed through the remote API. The key pressed and the encoder turned are selected, the key
 * flashes white on the device, and nothing is sent; disarmed, the keys send again.
 */
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { SelectedEvent } from '../../src/daemon/api.js'
import { testConfigFile } from '../helpers/files.js'
import { cutinBindings, simulatedDaemonConfig } from '../helpers/in-process-daemon.js'
import { captureLogs } from '../helpers/logs.js'
import { until } from '../helpers/until.js'
import { harness } from '../commands/hardware-helpers.js'
import { harnessDaemon } from '../commands/learn-helpers.js'
import { decodeGen2KeyImages, encoderRotateReport, gen2KeyReport } from '../surfaces/helpers/fake-hid.js'
import { FakeHotplug } from '../surfaces/helpers/fake-hotplug.js'
import { call } from './helpers.js'

const WAIT = { timeout: 10_000 }

describe('find by pressing on a Stream Deck', () => {
  it('selects the key pressed and the encoder turned, flashes the key, sends nothing; disarmed, keys send', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const file = await testConfigFile(
      'find-hardware',
      simulatedDaemonConfig(
        '  replay: { driver: streamdeck, model: plus }\n',
        cutinBindings('replay/key:3') +
          '  - on: replay/key:4\n    press: { command: schedule, params: { action: cutout, title: "Lower Third" } }\n',
      ),
    )
    captureLogs()
    const daemon = await harnessDaemon(h, file, new FakeHotplug(false))
    await expect.poll(() => daemon.status().surfaces.find((s) => s.name === 'replay')?.state, WAIT).toBe('open')
    const device = h.transport.lastOpened('/dev/hidraw4')!
    const selected: SelectedEvent[] = []
    const sent: string[] = []
    onTestFinished(
      daemon.watchEvents((e) => {
        if (e.type === 'selected') selected.push(e.selected)
        if (e.type === 'command') sent.push(e.command.origin)
      }),
    )

    const armed = await call(daemon.url, 'POST', '/api/find', { 'content-type': 'application/json' }, '{}')
    expect(armed.status).toBe(200)
    const before = device.reports.length
    device.input(gen2KeyReport([3], 8))
    device.input(gen2KeyReport([], 8))
    device.input(encoderRotateReport([2]))
    await until('both selected', () => selected.length === 2)
    expect(selected).toEqual([
      { surface: 'replay', control: 'key:3', page: null },
      { surface: 'replay', control: 'encoder:0', page: null },
    ])
    // The key flashed: a white image was written to key 3.
    await until('the flash', () =>
      (decodeGen2KeyImages(device.reports.slice(before)).get(3) ?? []).some((img) =>
        [...img.rgba.subarray(0, 3)].every((v) => v > 240),
      ),
    )

    expect((await call(daemon.url, 'DELETE', '/api/find')).status).toBe(200)
    device.input(gen2KeyReport([4], 8))
    device.input(gen2KeyReport([], 8))
    // Only the disarmed press sent: the armed one, had it reached the engine, would have gone first.
    await until('key:4 sent', () => sent.length > 0)
    expect(sent).toEqual(['replay/key:4'])
  })
})
