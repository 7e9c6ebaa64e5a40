/**
 * The satellite family, mapping side (see `common.ts`): a surface a Companion Satellite program
 * forwards to panelbridge (issue 44), claimed by the device id its client gives (stable across
 * reconnects: `streamdeck:CL12K1A00042`). Its controls come with the device's layout, so they are known
 * only once the device is added. Also the mapping file's top-level `satellite:`, the server's own
 * section (`satelliteSection`, joined to the file's schema through `index.ts`). The surface side is
 * `src/surfaces/satellite/`.
 */
import { isIP } from 'node:net'
import { z } from 'zod'
import { satellitePorts, type SatelliteServerConfig } from '../../families/satellite.js'
import type { DetectedDevice } from '../../face/surface.js'
import { claimFields, modelClaim, rehearseField, type MappingFamily } from './common.js'

const schema = z
  .strictObject({
    driver: z.literal('satellite'),
    device: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe(
        'The device id its Satellite client gives it (`panelbridge devices` and `learn` show it, e.g. ' +
          '`streamdeck:CL12K1A00042`); absent, with `any: true`, the first device no other entry claims.',
      ),
    any: claimFields.any,
    ...rehearseField,
  })
  .describe(
    'A surface that a Companion Satellite program (on a Pi or another box) forwards to this daemon; ' +
      'the top-level `satellite:` starts the server it connects to.',
  )

/** An address or a CIDR network (`10.0.0.0/24`), as the allow list takes it. */
const network = z
  .string()
  .max(64)
  .refine(
    (entry) => {
      const [address = '', bits, extra] = entry.split('/')
      const family = isIP(address)
      if (family === 0 || extra !== undefined) return false
      return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
    },
    { error: 'an IP address or a network such as 10.0.0.0/24' },
  )

/** The mapping file's `satellite:`: the Companion Satellite server, off when absent. */
export const satelliteSection = z
  .strictObject({
    port: z
      .int()
      .min(0)
      .max(65_535)
      .default(satellitePorts.tcp)
      .describe(`The TCP port Satellite connects to (Satellite’s default ${satellitePorts.tcp}; 0 picks a free one).`),
    ws_port: z
      .int()
      .min(0)
      .max(65_535)
      .optional()
      .describe(
        `The WebSocket port for Satellite’s WebSocket connection (its default ${satellitePorts.ws}); none when absent.`,
      ),
    host: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe(
        'The address to listen on (default 127.0.0.1: only this machine). The protocol has no password: ' +
          'listen beyond loopback only with `allow`.',
      ),
    allow: z
      .array(network)
      .max(64)
      .optional()
      .describe(
        'The addresses or networks (`10.0.0.0/24`) whose Satellite clients may attach; any other is closed ' +
          'at connect and logged once. Absent: every peer that reaches the address.',
      ),
    announce: z
      .boolean()
      .optional()
      .describe('Announce the server over mDNS as Companion does, so Satellite’s discovery finds it (default false).'),
  })
  .optional()
  .describe(
    'Companion Satellite server: every surface a Satellite program forwards here becomes a `driver: satellite` ' +
      'surface (Loupedecks, Razer Stream Controllers, Mirabox docks, Infinittons, ...). Off when absent.',
  ) satisfies z.ZodType<SatelliteServerConfig | undefined, unknown>

export const satellite: MappingFamily<typeof schema> = {
  schema,
  // Known only from the device's layout: a binding's control is checked when the device is added.
  controlsOf: () => Promise.resolve({ controls: undefined }),
  deviceName: (entry) =>
    Promise.resolve(entry.device !== undefined ? `Satellite device "${entry.device}"` : 'Satellite device'),
  claimOf: (name, entry) =>
    modelClaim(name, {
      driver: entry.driver,
      serial: entry.device,
      any: entry.any,
    }),
  entryFor: (device: DetectedDevice) => ({ driver: device.driver, device: device.id }),
}
