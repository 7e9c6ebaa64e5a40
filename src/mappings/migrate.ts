/**
 * The `version:` key and the path from older file formats to the current one. Each migration takes
 * the raw data of version N and returns version N+1; the loader runs them in order, then validates.
 * Version 1 is the first format, so the table is empty: the next format change adds its step here.
 */
import { CONFIG_VERSION } from './schema.js'

type Migration = (raw: Record<string, unknown>) => Record<string, unknown>

/** `MIGRATIONS[n]` turns a version-n file into version n+1. */
const MIGRATIONS: Readonly<Record<number, Migration>> = {}

export type Migrated = { value: unknown } | { problem: string; atKey: boolean }

export function migrate(raw: unknown): Migrated {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { problem: 'the file must be a map of settings (version, app, surfaces, bindings, ...)', atKey: false }
  }
  let data = raw as Record<string, unknown>
  const version = data.version
  if (version === undefined) {
    return { problem: `version: is required (this panelbridge reads version ${CONFIG_VERSION})`, atKey: false }
  }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return {
      problem: `version: must be a whole number; this panelbridge reads version ${CONFIG_VERSION}`,
      atKey: false,
    }
  }
  if (version > CONFIG_VERSION) {
    return {
      problem: `version: ${version} is newer than this panelbridge reads (${CONFIG_VERSION}); upgrade panelbridge`,
      atKey: false,
    }
  }
  for (let v = version; v < CONFIG_VERSION; v++) {
    const step = MIGRATIONS[v]
    if (!step) return { problem: `version: no migration from version ${v}`, atKey: false }
    data = { ...step(data), version: v + 1 }
  }
  return { value: data }
}
