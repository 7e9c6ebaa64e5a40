/**
 * The driver families by name, in the order of the one driver list (`DRIVER_FAMILIES`, src/surfaces/drivers.ts):
 * what the architecture test reads from the tables and what `hardwareDrivers` lists, written once here so that a
 * new family is added to both expectations at once.
 */
export const FAMILY_NAMES = [
  'streamdeck',
  'streamdeck-net',
  'browser-deck',
  'shuttle',
  'xkeys',
  'replay-editor',
  'midi',
  'hid',
  'satellite',
]
