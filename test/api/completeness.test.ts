/**
 * Completeness over the registries: the contract's commands (a hand-typed fixture), the catalogue and
 * the simulator's handlers must all agree. That the client's tests run every catalogue command against
 * the simulator is checked at run time, in client/simulator.test.ts.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { COMMAND_NAMES } from '../../src/api/commands.js'
import { SIMULATOR_COMMANDS } from '../../src/app-kit/simulator/index.js'

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/contract-commands.json', import.meta.url), 'utf8'),
) as Record<string, unknown>
const contractNames = Object.entries(fixture)
  .filter(([key]) => key !== 'source')
  .flatMap(([, names]) => names as string[])

describe('completeness', () => {
  it('the fixture holds the 58 contract commands, each once', () => {
    expect(contractNames).toHaveLength(58)
    expect(new Set(contractNames).size).toBe(58)
  })

  it('every contract command is in the catalogue', () => {
    const catalogue = new Set<string>(COMMAND_NAMES)
    expect(contractNames.filter((n) => !catalogue.has(n))).toEqual([])
  })

  it('every catalogue command has a simulator handler', () => {
    expect(COMMAND_NAMES.filter((n) => !SIMULATOR_COMMANDS.includes(n))).toEqual([])
  })
})
