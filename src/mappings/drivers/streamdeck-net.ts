/**
 * The network Stream Deck family, mapping side (see `common.ts`); the surface side is
 * `src/surfaces/streamdeck-net/`. An entry names the address the driver keeps connected (`host`, and
 * `port` where it is not the deck's default); a Network Dock's deck is claimed by its own serial (the
 * dock's address beside it), a Studio by its serial or by its address alone.
 */
import { z } from 'zod'
import {
  DEFAULT_DECK_PORT,
  DEFAULT_NET_BRIGHTNESS,
  entryAddress,
  parseDeckAddress,
  type NetDeckConfig,
  netDeckModels,
} from '../../families/streamdeck-net.js'
import {
  brightnessField,
  modelControls,
  modelName,
  rehearseField,
  type MappingFamily,
  type SurfaceEntry,
} from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('streamdeck-net'),
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:_-]+$/, 'a host name or an IP address')
      .optional()
      .describe('The Stream Deck Studio’s or Network Dock’s host name or IP address (or `discover: true`).'),
    port: z
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(`The deck’s TCP port, where it is not the default ${DEFAULT_DECK_PORT}.`),
    discover: z
      .literal(true)
      .optional()
      .describe(
        'Instead of `host`: find the deck by mDNS, the Stream Deck library’s discovery (run only while an entry asks), by the `serial` it announces: a Studio’s own, or a Network Dock’s (its deck is then claimed by `model` or taken as it is).',
      ),
    serial: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Claims the deck with this serial number: the deck plugged into a Network Dock, or the Studio. With `discover`: the serial the Studio or the dock announces.',
      ),
    model: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Model id as the Stream Deck library names it (`studio`, or the docked deck’s: `xl`, `plus`, ...): its controls are then known before it connects.',
      ),
    ...rehearseField,
    ...brightnessField(
      'Brightness, 0 to 100, sent every time the deck connects (default 100); a reload that changes it sends it at once.',
    ),
  })
  .refine((e) => (e.host !== undefined) !== (e.discover === true), {
    message: 'give the deck’s host, or discover: true (not both)',
    path: ['host'],
  })
  .refine((e) => e.discover !== true || e.serial !== undefined, {
    message: 'discover: true needs the serial the deck announces',
    path: ['serial'],
  })
  .refine((e) => e.discover !== true || e.port === undefined, {
    message: 'a discovered deck announces its port',
    path: ['port'],
  })
  .describe('An Elgato Stream Deck on the network: a Stream Deck Studio, or the deck plugged into a Network Dock.')

type NetEntry = SurfaceEntry<typeof schema>

/** Where an entry's deck is, as people read it. */
function whereOf(entry: NetEntry): string {
  return entry.host !== undefined
    ? `at ${entry.host}:${entry.port ?? DEFAULT_DECK_PORT}`
    : `announcing ${entry.serial ?? ''}`
}

export const streamdeckNet: MappingFamily<typeof schema, NetDeckConfig> = {
  schema,
  controlsOf: (_name, entry) => modelControls(netDeckModels, entry.model),
  deviceName: async (entry) => `${await modelName(netDeckModels, entry.model)} ${whereOf(entry)}`,
  // The address is always part of the claim: a deck is taken only through the address its entry names
  // (a discovered one: the serial it was announced by, which for a dock's deck is the dock's).
  claimOf: (name, entry) => ({
    name,
    driver: entry.driver,
    match: {
      port: entryAddress(entry),
      ...(entry.serial !== undefined && entry.discover !== true ? { serial: entry.serial } : {}),
      ...(entry.model !== undefined ? { model: entry.model } : {}),
    },
  }),
  driverOptions: (entry) => ({
    ...(entry.host !== undefined ? { host: entry.host } : {}),
    ...(entry.discover === true ? { discover: true } : {}),
    ...(entry.port !== undefined ? { port: entry.port } : {}),
    ...(entry.serial !== undefined ? { serial: entry.serial } : {}),
    ...(entry.brightness !== undefined ? { brightness: entry.brightness } : {}),
  }),
  // The deck's own default is what every connect sends without one (`NetDeckSurface`), so a reload that
  // drops `brightness` sends it at once, as the next connect would.
  brightnessOf: (entry) => entry.brightness ?? DEFAULT_NET_BRIGHTNESS,
  // A detected network deck's `port` is the address it is reached through.
  entryFor: (device) => {
    const address = parseDeckAddress(device.port ?? '')
    const model = device.modelId !== undefined ? { model: device.modelId } : {}
    if (address && 'discovered' in address)
      return { driver: device.driver, discover: true, serial: address.discovered, ...model }
    return {
      driver: device.driver,
      ...(address ? { host: address.host } : {}),
      ...(address && address.port !== DEFAULT_DECK_PORT ? { port: address.port } : {}),
      ...(device.serial !== undefined ? { serial: device.serial } : {}),
      ...model,
    }
  },
}
