/**
 * Completeness over the registries: the contract's commands (a hand-typed fixture), the catalogue,
 * the simulator's handlers and the client tests against the simulator must all agree.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { COMMAND_NAMES } from '../../src/api/commands.js'
import { SIMULATOR_COMMANDS } from '../../src/simulator/index.js'

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/contract-commands.json', import.meta.url), 'utf8'),
) as Record<string, unknown>
const contractNames = Object.entries(fixture)
  .filter(([key]) => key !== 'source')
  .flatMap(([, names]) => names as string[])
const simulatorTest = readFileSync(new URL('./client-simulator.test.ts', import.meta.url), 'utf8')

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

  it('every catalogue command is called by name in the client tests against the simulator', () => {
    // The test file also asserts at run time that each command went through the client; this checks
    // that each name is written there as a command argument, so that a rename cannot slip through.
    const called = (name: string): boolean =>
      new RegExp(`\\b(run|runWith|refused)\\([^)]*'${name}'`).test(simulatorTest) ||
      new RegExp(`client\\.request\\('${name}'`).test(simulatorTest)
    expect(COMMAND_NAMES.filter((n) => !called(n))).toEqual([])
  })
})
