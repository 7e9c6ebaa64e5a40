/**
 * Issue 26 item 2: a Stream Deck a page registered (`driver: browser-deck`) that no `surfaces:` entry
 * claims exists only inside the daemon; `panelbridge learn` through the daemon shows it with the entry to
 * paste (the wording learn uses for a device it opens itself) and its presses, which reach no binding.
 * A real daemon in-process; the deck is registered over a plain WebSocket speaking the page protocol,
 * as the page's deck script does.
 */
import { writeFile } from 'node:fs/promises'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseUnclaimedEvent, parseUnclaimedInputEvent } from '../../src/commands/learn-stream.js'
import type { DaemonEvent } from '../../src/daemon/api.js'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { testConfigFile } from '../helpers/files.js'
import { simulatedDaemonConfig, surfaceState } from '../helpers/in-process-daemon.js'
import { captureLogs } from '../helpers/logs.js'
import { until } from '../helpers/until.js'
import {
  browserDeckDaemon,
  laptopDeckConfig,
  pageSocket,
  sendJson as send,
} from '../surfaces/browser-deck/daemon-rig.js'
import { harness } from './hardware-helpers.js'
import { harnessDaemon, learn, learnedUpTo } from './learn-helpers.js'

const CONFIG = laptopDeckConfig()

async function startDaemon() {
  const file = await testConfigFile('learn-unclaimed', CONFIG)
  captureLogs()
  const { daemon, driver } = await browserDeckDaemon(file)
  const page = await pageSocket(daemon)
  return { daemon, driver, file, page, connect: () => pageSocket(daemon) }
}

describe('learn through the daemon: a browser deck that no surface claims', () => {
  it('is listed with the entry to paste, its presses shown and reaching no binding, and its going said', async () => {
    const { daemon, driver, file, page } = await startDaemon()
    send(page, { type: 'deck-add', deck: 0, model: 'original-mk2', serial: 'SER2' })
    await until('the deck registered', () => driver.hub.list().length === 1)

    const h = harness()
    const learner = learn(h, ['--config', file, '--url', daemon.url])
    await until('the unclaimed deck listed', () => h.out.some((l) => l.includes('learning as browser-deck1')))

    send(page, { type: 'deck-input', deck: 0, control: 'key:3', input: 'down' })
    send(page, { type: 'deck-input', deck: 0, control: 'key:3', input: 'up' })
    // A control the model has not is not taken from the page.
    send(page, { type: 'deck-input', deck: 0, control: 'key:99', input: 'down' })
    await until('the press shown', () => h.out.some((l) => l.startsWith('browser-deck1/key:3 up')))

    // The claimed deck comes while learn follows: it is a surface of the daemon, not unclaimed.
    send(page, { type: 'deck-add', deck: 1, model: 'original-mk2', serial: 'SER1' })
    await until('laptop open', () => h.out.some((l) => l.endsWith('learning as laptop')))
    send(page, { type: 'deck-remove', deck: 0 })

    // The unclaimed deck gone: learn says so.
    expect(await learnedUpTo(h, learner, 'no longer unclaimed')).toEqual([
      'browser-deck laptop: waiting — no matching device found yet',
      'browser-deck SER2 (Stream Deck MK.2): not claimed by any surface of the daemon: learning as browser-deck1',
      '  not in the config; add under surfaces: { browser-deck1: { driver: browser-deck, model: original-mk2, serial: SER2 } }',
      'browser-deck1/key:3 down (not claimed: reaches no binding)',
      '  binding:',
      '    - on: browser-deck1/key:3',
      '      label: "{{name}}\\n{{play}}"',
      "      press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }",
      "      feedback: { title: 'Lower Third' }",
      'browser-deck1/key:3 up (not claimed: reaches no binding)',
      'browser-deck SER1 (Stream Deck MK.2): open: learning as laptop',
      '  claimed by surfaces: { laptop: { driver: browser-deck, serial: SER1 } }',
      'browser-deck SER2 (Stream Deck MK.2): no longer unclaimed (gone, or a surface claims it now)',
    ])
    expect(h.err).toEqual([])
    // The unclaimed deck's press reached no binding; nothing was sent.
    expect(daemon.status().commands.sent).toBe(0)
  })

  it('streams the deck as event: unclaimed to a new reader, and as gone once a surface claims it', async () => {
    const { daemon, driver, file, page, connect } = await startDaemon()
    send(page, { type: 'deck-add', deck: 0, model: 'original-mk2', serial: 'SER1' })
    await until('laptop open', () => daemon.status().surfaces.some((s) => s.name === 'laptop' && s.state === 'open'))
    send(page, { type: 'deck-add', deck: 1, model: 'original-mk2', serial: 'SER9' })
    await until('both registered', () => driver.hub.list().length === 2)
    const events: DaemonEvent[] = []
    const unwatch = daemon.watchEvents((e) => events.push(e))
    onTestFinished(unwatch)
    expect(events.filter((e) => e.type === 'unclaimed')).toEqual([
      {
        type: 'unclaimed',
        unclaimed: {
          driver: 'browser-deck',
          device: 'SER9',
          model: 'Stream Deck MK.2',
          state: 'present',
          entry: { driver: 'browser-deck', model: 'original-mk2', serial: 'SER9' },
          presses: true,
        },
      },
    ])
    // A press on the claimed deck is the surface's, not an unclaimed one.
    send(page, { type: 'deck-input', deck: 0, control: 'key:0', input: 'down' })
    send(page, { type: 'deck-input', deck: 0, control: 'key:0', input: 'up' })
    await until('the press sent', () => daemon.status().commands.sent === 1)
    expect(events.some((e) => e.type === 'unclaimed-input')).toBe(false)
    // A reload claims it: it goes from the unclaimed and opens as the new surface.
    await writeFile(
      file,
      CONFIG.replace('surfaces:\n', 'surfaces:\n  second: { driver: browser-deck, serial: SER9 }\n'),
    )
    expect(await daemon.reload()).toBe(true)
    await until('second open', () => daemon.status().surfaces.some((s) => s.name === 'second' && s.state === 'open'))
    await until('gone', () => events.some((e) => e.type === 'unclaimed' && e.unclaimed.state === 'gone'))
    // The page drops a deck no one claims: it goes too.
    const other = await connect()
    send(other, { type: 'deck-add', deck: 0, model: 'mini', serial: 'SER3' })
    await until('SER3 present', () => events.some((e) => e.type === 'unclaimed' && e.unclaimed.device === 'SER3'))
    send(other, { type: 'deck-remove', deck: 0 })
    const states = () =>
      events.flatMap((e) => (e.type === 'unclaimed' ? [`${e.unclaimed.device} ${e.unclaimed.state}`] : []))
    await until('SER3 gone', () => states().includes('SER3 gone'))
    expect(states()).toEqual(['SER9 present', 'SER9 gone', 'SER3 present', 'SER3 gone'])
  })
})

describe('learn through the daemon: a USB deck the daemon detected that no surface claims', () => {
  it('is listed with the entry to paste, left unopened to other software', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw5', 'CL-XL-2')
    const file = await testConfigFile(
      'learn-unclaimed-usb',
      simulatedDaemonConfig('  replay: { driver: streamdeck, serial: CL-PLUS-1 }\n'),
    )
    captureLogs()
    const daemon = await harnessDaemon(h, file)
    await until('replay open', () => surfaceState(daemon, 'replay') === 'open')

    const learner = learn(h, ['--config', file, '--url', daemon.url])
    expect(await learnedUpTo(h, learner, 'streamdeck1')).toEqual([
      'streamdeck CL-PLUS-1 (Stream Deck +): open: learning as replay',
      '  claimed by surfaces: { replay: { driver: streamdeck, serial: CL-PLUS-1 } }',
      'streamdeck CL-XL-2 (Stream Deck XL): not claimed by any surface of the daemon: streamdeck1; its presses are not seen (left to other software)',
      '  not in the config; add under surfaces: { streamdeck1: { driver: streamdeck, model: xl, serial: CL-XL-2 } }',
    ])
    // Only the claimed deck was opened: the other stays with whatever software has it.
    expect(h.transport.opened).toEqual([h.transport.lastOpened('/dev/hidraw4')])
  })
})

describe('the unclaimed events as learn reads them', () => {
  it('takes a well-formed event and refuses one whose entry or fields are not ours', () => {
    const good = {
      driver: 'browser-deck',
      device: 'S',
      state: 'present',
      presses: true,
      entry: { driver: 'browser-deck', any: true },
    }
    expect(parseUnclaimedEvent(JSON.stringify(good))).toEqual(good)
    expect(parseUnclaimedEvent(JSON.stringify({ ...good, entry: { 'bad key': 'x' } }))).toBeUndefined()
    expect(parseUnclaimedEvent(JSON.stringify({ ...good, entry: { driver: { nested: 1 } } }))).toBeUndefined()
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i]))
    expect(parseUnclaimedEvent(JSON.stringify({ ...good, entry: many }))).toBeUndefined()
    expect(parseUnclaimedEvent(JSON.stringify({ ...good, state: 'open' }))).toBeUndefined()
    expect(parseUnclaimedEvent(JSON.stringify({ ...good, entry: { serial: 'a\u001bb' } }))?.entry).toEqual({
      serial: 'a?b',
    })
    const press = { driver: 'browser-deck', device: 'S', control: 'key:3', type: 'down' }
    expect(parseUnclaimedInputEvent(JSON.stringify(press))).toEqual({ ...press, kind: 'key' })
    expect(parseUnclaimedInputEvent(JSON.stringify({ ...press, control: 'nope' }))).toBeUndefined()
    expect(parseUnclaimedInputEvent(JSON.stringify({ ...press, type: 'rotate' }))).toBeUndefined()
  })
})
