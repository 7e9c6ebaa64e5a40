/**
 * Issue 13, Build 1: `panelbridge learn` opens the devices itself (in-memory Stream Decks behind the
 * real driver and surface manager) and prints each event as its canonical id, the claiming `surfaces:`
 * entry, and a binding that the loader accepts as pasted; with a daemon answering at its address, it
 * takes no device (learning through a real daemon: learn-daemon.test.ts).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DeviceModelId } from '@elgato-stream-deck/core'
import { describe, expect, it, onTestFinished } from 'vitest'
import { learnCommand, runLearn } from '../../src/commands/learn.js'
import { loadConfigText } from '../../src/mappings/load.js'
import { encoderRotateReport, gen2KeyReport } from '../surfaces/helpers/fake-hid.js'
import { expectRegistered, harness } from './hardware-helpers.js'
import { until } from '../helpers/until.js'

/** A local HTTP server answering every request with `status` and `body`, closed when the test finishes. */
async function listen(status: number, body: unknown): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  })
  // Closing one already closed (nobody() does) only passes an error to the callback: nothing to wait for.
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** As `listen`; resolves with its URL. */
async function serve(status: number, body: unknown): Promise<string> {
  return (await listen(status, body)).url
}

/** A URL where nothing listens (a port just freed). */
async function nobody(): Promise<string> {
  const { server, url } = await listen(200, {})
  await new Promise((r) => server.close(r))
  return url
}

const CONFIG = ['version: 1', 'surfaces:', '  replay: { driver: streamdeck, model: plus }'].join('\n')

describe('panelbridge learn', () => {
  it('is registered and listed in --help', () =>
    expectRegistered('learn', learnCommand, 'learn [--config FILE] [--url URL]'))

  it('prints canonical ids under the configured name, the claiming entry, and one pasteable binding per control', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const file = h.config(CONFIG)
    const stop = new AbortController()
    const done = runLearn(['--config', file, '--url', await nobody()], { ...h.deps, stop: stop.signal })
    await until('the device open', () => h.out.some((l) => l.includes('learning as replay')))
    expect(h.out).toContain('  claimed by surfaces: { replay: { driver: streamdeck, model: plus } }')

    const hid = h.transport.lastOpened('/dev/hidraw4')!
    hid.input(gen2KeyReport([3], 8))
    hid.input(gen2KeyReport([], 8))
    hid.input(encoderRotateReport([2]))
    hid.input(gen2KeyReport([3], 8))
    hid.input(gen2KeyReport([], 8))
    await until('the last key up', () => h.out.filter((l) => l === 'replay/key:3 up').length === 2)
    const events = h.out.filter((l) => /^replay\//.test(l))
    expect(events).toEqual([
      'replay/key:3 down',
      'replay/key:3 up',
      'replay/encoder:0 rotate +2',
      'replay/key:3 down',
      'replay/key:3 up',
    ])
    // One snippet per control and kind of use, however often it is pressed.
    expect(h.out.filter((l) => l === '    - on: replay/key:3')).toHaveLength(1)
    expect(h.out.filter((l) => l === '    - on: replay/encoder:0')).toHaveLength(1)

    // The snippets, pasted under bindings:, load without a problem.
    const snippet = h.out.filter((l) => l.startsWith('    ')).map((l) => l.slice(2))
    const pasted = `${CONFIG}\nbindings:\n${snippet.join('\n')}\n`
    const { config, problems } = await loadConfigText(pasted, 'pasted.yaml')
    expect(problems).toEqual([])
    expect(config!.bindings.map((b) => b.on)).toEqual(['replay/key:3', 'replay/encoder:0'])

    stop.abort()
    expect(await done).toBe(0)
    expect(hid.closed).toBe(true)
  })

  it('suggests a surfaces: entry for a device the config does not claim, and names its ids after it', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw5', 'CL-XL-9')
    const stop = new AbortController()
    const done = runLearn(['--url', await nobody()], { ...h.deps, stop: stop.signal })
    await until('the device open', () => h.out.some((l) => l.includes('learning as streamdeck1')))
    expect(h.out).toContain(
      '  not in the config; add under surfaces: { streamdeck1: { driver: streamdeck, model: xl, serial: CL-XL-9 } }',
    )
    h.transport.lastOpened('/dev/hidraw5')!.input(gen2KeyReport([31], 32))
    await until('the key', () => h.out.includes('streamdeck1/key:31 down'))
    stop.abort()
    expect(await done).toBe(0)
  })

  it('says what it listens to, and when the first scan finds nothing, that it waits and how to give it something', async () => {
    const h = harness()
    h.extra.push({
      driver: {
        name: 'broken',
        detect: () => Promise.reject(new Error('libusb-1.0.so.0: cannot open shared object file')),
        open: () => Promise.reject(new Error('no device')),
      },
      controlsOf: () => Promise.resolve(undefined),
    })
    const url = await nobody()
    const stop = new AbortController()
    const done = runLearn(['--url', url], { ...h.deps, stop: stop.signal })
    await until('the nothing-found lines', () => h.out.some((l) => l.includes('run learn again')))
    expect(h.out[0]).toBe('learning: press, turn or move a control; Ctrl+C stops')
    expect(h.out[1]).toMatch(/^listening to the devices of: streamdeck, .*midi, hid, broken$/)
    expect(h.out[2]).toBe(`  (no panelbridge daemon answers at ${url}: learn opens the devices itself)`)
    expect(h.out.slice(3)).toEqual([
      'nothing to listen to yet: no control surface found; learn waits, and takes a panel as it is plugged in.',
      '  broken: detection failed: libusb-1.0.so.0: cannot open shared object file',
      '  panelbridge devices lists what this machine has, with any permission problem to fix.',
      "  Or use the keys of the daemon's web page: start the daemon (sudo systemctl start panelbridge,",
      `  or panelbridge run), open ${url}/ and run learn again: it follows the daemon.`,
    ])
    // A panel plugged in afterwards is taken as ever.
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw5', 'CL-XL-9')
    stop.abort()
    expect(await done).toBe(0)
  })

  it('does not say it found nothing when a device is there', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.XL, '/dev/hidraw5', 'CL-XL-9')
    const stop = new AbortController()
    const done = runLearn(['--url', await nobody()], { ...h.deps, stop: stop.signal })
    await until('the device open', () => h.out.some((l) => l.includes('learning as streamdeck1')))
    stop.abort()
    expect(await done).toBe(0)
    expect(h.out.join('\n')).not.toContain('nothing to listen to')
  })

  it('takes no device when a daemon answers at the address but offers no event stream, and says so', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    // Every path answers the status JSON: /api/events is not an event stream.
    const url = await serve(200, { version: '0.1.0', surfaces: [], app: { state: 'connected' } })
    expect(await runLearn(['--url', url], h.deps)).toBe(1)
    expect(h.err).toEqual([
      `panelbridge learn: a panelbridge daemon is running at ${url} and holds the devices, but its event stream answered 200 (application/json).`,
    ])
    expect(h.transport.opened).toEqual([])
    // A daemon that wants its token counts too.
    expect(
      await runLearn(['--url', await serve(401, { error: { code: 'unauthorized' } })], { ...h.deps, env: {} }),
    ).toBe(1)
    expect(h.transport.opened).toEqual([])
  })

  it('takes the devices when what answers is not a daemon', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4', 'CL-PLUS-1')
    const stop = new AbortController()
    const done = runLearn(['--url', await serve(200, { hello: 'world' })], { ...h.deps, stop: stop.signal })
    await until('the device open', () => h.transport.opened.length === 1)
    stop.abort()
    expect(await done).toBe(0)
  })

  it('exits 2 on a bad command line, 1 on a refused config, before touching a device', async () => {
    const h = harness()
    h.transport.plug(DeviceModelId.PLUS, '/dev/hidraw4')
    expect(await runLearn(['--url', 'ftp://x'], h.deps)).toBe(2)
    expect(await runLearn(['extra'], h.deps)).toBe(2)
    expect(await runLearn(['--config', h.config('version: 2\n')], h.deps)).toBe(1)
    expect(h.transport.opened).toEqual([])
  })
})
