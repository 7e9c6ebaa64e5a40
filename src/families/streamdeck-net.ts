/**
 * The network Stream Deck family, as data: the addresses its decks are reached through (as detection
 * reports them and claims match them), an entry as its driver takes it, and the models a network deck
 * can be: the Studio, or any deck a Network Dock takes (the USB models), so the Stream Deck model table
 * (`streamdeck.ts`: the library's ids, the controls of each).
 */
import type { FamilyFacts, ModelTable } from './family.js'
import { streamdeckModels } from './streamdeck.js'

/** The port a Studio or Network Dock listens on (the library's DEFAULT_TCP_PORT). */
export const DEFAULT_DECK_PORT = 5343

/**
 * The address a deck is reached through, as detection reports it (`DetectedDevice.port`) and a claim
 * matches it (a part of it, so the delimiters: `tcp://10.0.0.1:5343/` is no part of `tcp://110.0.0.1:5343/`
 * nor of `tcp://10.0.0.1:53430/`).
 */
export function deckAddress(host: string, port: number = DEFAULT_DECK_PORT): string {
  return `tcp://${host}:${port}/`
}

/** What an address made by `deckAddress` or `discoveredAddress` names; undefined for anything else. */
export function parseDeckAddress(address: string): { host: string; port: number } | { discovered: string } | undefined {
  const m = /^tcp:\/\/(.+):(\d{1,5})\/$/.exec(address)
  if (m) return { host: m[1]!, port: Number(m[2]) }
  const d = /^mdns:\/\/(.+)\/$/.exec(address)
  return d ? { discovered: d[1]! } : undefined
}

/** The brightness every open sends when the entry gives none. ASSUMED: full, as a deck starts. */
export const DEFAULT_NET_BRIGHTNESS = 100

/**
 * The address of the decks found through the announcement of this serial (`discover: true`): a
 * Studio's own, or a Network Dock's (its deck then has a serial of its own).
 */
export function discoveredAddress(serial: string): string {
  return `mdns://${serial.trim()}/`
}

/** One `streamdeck-net` entry as the driver takes it: an address (`host`), or `discover` with a serial. */
export interface NetDeckConfig {
  host?: string
  port?: number
  discover?: boolean
  serial?: string
  brightness?: number
}

/** The address an entry's decks are reached through (`deckAddress`, or `discoveredAddress`). */
export function entryAddress(entry: NetDeckConfig): string {
  return entry.host !== undefined ? deckAddress(entry.host, entry.port) : discoveredAddress(entry.serial ?? '')
}

export const netDeckModels: ModelTable = { ...streamdeckModels, label: 'network Stream Deck' }

export const streamdeckNetFacts: FamilyFacts = { models: netDeckModels }
