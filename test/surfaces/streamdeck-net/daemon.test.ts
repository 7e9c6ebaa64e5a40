/**
 * Network Stream Decks end to end: the daemon with `streamdeck-net` surfaces from its config, against
 * the built-in simulator, over the library's own protocol through an in-memory network (the transport
 * boundary; the library encodes and decodes every report). A press on the Studio reaches the
 * application as its command; the application's state comes back as the library's key image writes; the
 * connection dropping shows `waiting` and the deck comes back without a restart, every key repainted and
 * the brightness sent again; a Network Dock's deck unplugged and replugged likewise; a reload connects
 * to an entry's new address and closes the connection of an entry removed.
 */
import { writeFile } from 'node:fs/promises'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startSimulator, type SimulatorHandle } from '../../../src/app-kit/simulator/index.js'
import { testConfigFile } from '../../helpers/files.js'
import { surfaceState } from '../../helpers/in-process-daemon.js'
import { captureLogs } from '../../helpers/logs.js'
import { addDockedXl, addStudio, netDeckDaemon } from './daemon-rig.js'
import { FakeNetwork, type FakeNetDeck } from './fake-net-deck.js'

const WAIT = { timeout: 10_000, interval: 20 }
const TITLE = 'Lower Third'

function configText(sim: SimulatorHandle, studioHost = '127.0.0.5', docked = true): string {
  return `version: 1
app: { url: ${sim.httpUrl}, notifications: ${sim.wsUrl} }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  studio: { driver: streamdeck-net, host: ${studioHost}, serial: STUDIO01, model: studio, brightness: 40 }
${docked ? '  docked: { driver: streamdeck-net, host: 127.0.0.6, serial: XL0001, brightness: 70 }\n' : ''}bindings:
  - on: studio/key:3
    label: "{{name}}"
    press: { command: schedule, params: { action: cutin, title: "${TITLE}" } }
    feedback: { title: "${TITLE}" }
${
  docked
    ? `  - on: docked/key:0
    press: { command: schedule, params: { action: cutout, title: "${TITLE}" } }
`
    : ''
}`
}

async function start() {
  captureLogs()
  const sim = await startSimulator()
  onTestFinished(() => sim.close())
  const file = await testConfigFile('net-deck', configText(sim))
  const network = new FakeNetwork()
  const studio = addStudio(network)
  const { dock, xl } = addDockedXl(network)
  const daemon = await netDeckDaemon(file, network)
  const stateOf = (name: string): string | undefined => surfaceState(daemon, name)
  await expect.poll(() => [stateOf('studio'), stateOf('docked')], WAIT).toEqual(['open', 'open'])
  return { sim, daemon, network, studio, dock, xl, stateOf, file }
}

/** The images of one key written since `from`. */
const imagesOf = (deck: FakeNetDeck, key: number, from = 0): number[] =>
  deck.images
    .slice(from)
    .filter((i) => i.key === key)
    .map((i) => i.bytes)

describe('network Stream Decks in the daemon', () => {
  it("a press on the Studio reaches the application as its command, and the title's state comes back as image writes", async () => {
    const { sim, studio } = await start()
    // Opened: every key painted, the brightness sent.
    await expect.poll(() => studio.keysWritten().size, WAIT).toBe(32)
    expect(studio.brightness).toEqual([40])
    await expect.poll(() => imagesOf(studio, 3).length, WAIT).toBeGreaterThan(0)
    const mark = studio.images.length
    const shown = imagesOf(studio, 3).at(-1)

    studio.key(3, true)
    studio.key(3, false)
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => [e.parameters.action, e.parameters.title]), WAIT)
      .toEqual([['cutin', TITLE]])
    // The title now plays: key 3 is drawn again (another image, other bytes); no other key changes.
    await expect.poll(() => imagesOf(studio, 3, mark).length, WAIT).toBeGreaterThan(0)
    expect(imagesOf(studio, 3, mark).at(-1)).not.toBe(shown)
    expect([...studio.keysWritten(mark)]).toEqual([3])
  })

  it('the Studio dropping off the network shows waiting; it comes back by itself, repainted from scratch', async () => {
    const { daemon, studio, stateOf } = await start()
    await expect.poll(() => studio.keysWritten().size, WAIT).toBe(32)
    studio.online = false
    studio.drop()
    await expect.poll(() => stateOf('studio'), WAIT).toBe('waiting')
    expect(stateOf('docked')).toBe('open')

    const mark = studio.images.length
    const brightnessSent = studio.brightness.length
    studio.online = true
    await expect.poll(() => stateOf('studio'), WAIT).toBe('open')
    // Every key written again and the brightness sent again: the deck may show grey keys or the logo.
    await expect.poll(() => studio.keysWritten(mark).size, WAIT).toBe(32)
    await expect.poll(() => studio.brightness.slice(brightnessSent), WAIT).toEqual([40])
    expect(studio.connections).toBe(2)
    expect(daemon.status().surfaces.find((s) => s.name === 'studio')).toMatchObject({
      driver: 'streamdeck-net',
      model: 'Stream Deck Studio',
    })
  })

  it("a Network Dock's deck unplugged shows waiting; plugged in again it is painted from scratch and takes presses", async () => {
    const { sim, dock, xl, stateOf } = await start()
    await expect.poll(() => xl.keysWritten().size, WAIT).toBe(32)
    expect(xl.brightness).toEqual([70])

    dock.plug(undefined)
    await expect.poll(() => stateOf('docked'), WAIT).toBe('waiting')
    const mark = xl.images.length
    dock.plug({ deck: xl, port: 5344 })
    await expect.poll(() => stateOf('docked'), WAIT).toBe('open')
    await expect.poll(() => xl.keysWritten(mark).size, WAIT).toBe(32)
    await expect.poll(() => xl.brightness, WAIT).toEqual([70, 70])

    xl.key(0, true)
    xl.key(0, false)
    await expect
      .poll(() => sim.http.commands('schedule').map((e) => [e.parameters.action, e.parameters.title]), WAIT)
      .toEqual([['cutout', TITLE]])
  })

  it('a reload follows the entries: a new address is connected to, an entry removed closes its connection', async () => {
    const { sim, daemon, network, studio, dock, stateOf, file } = await start()
    const moved = addStudio(network, '127.0.0.15')
    await writeFile(file, configText(sim, '127.0.0.15', false))
    expect(await daemon.reload()).toBe(true)
    await expect.poll(() => [studio.current, dock.current], WAIT).toEqual([undefined, undefined])
    await expect.poll(() => stateOf('studio'), WAIT).toBe('open')
    expect(stateOf('docked')).toBeUndefined()
    await expect.poll(() => moved.keysWritten().size, WAIT).toBe(32)
    expect(moved.brightness).toEqual([40])
  })
})
