/** Every contract command and every catalogue entry has a simulator handler that answers. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { COMMAND_NAMES } from '../../../src/api/commands.js'
import { APP_ERRORS } from '../../../src/api/protocol.js'
import { SIMULATOR_COMMANDS } from '../../../src/app-kit/simulator/index.js'
import { useTestSim } from './helpers.js'

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/contract-commands.json', import.meta.url), 'utf8'),
) as Record<string, unknown>
const CONTRACT = Object.values(fixture).filter(Array.isArray).flat() as string[]

const t = useTestSim('file')

describe('completeness', () => {
  it('handles the 58 contract commands and exactly the catalogue', () => {
    expect(CONTRACT).toHaveLength(58)
    expect(CONTRACT.filter((c) => !SIMULATOR_COMMANDS.includes(c))).toEqual([])
    expect([...SIMULATOR_COMMANDS].sort()).toEqual([...COMMAND_NAMES].sort())
  })

  it('every command answers HTTP 200 JSON without parameters, and the server survives all of them', async () => {
    for (const name of SIMULATOR_COMMANDS) {
      const body = await t.raw(name, { requestId: `c-${name}` })
      if (Object.keys(body).length === 0) {
        expect(['loadProject', 'saveProject', 'subscribe']).toContain(name)
        continue
      }
      expect(body.result.command === name || body.result.command === 'setTitleInput').toBe(true)
      expect(body.result.success).toBe(true)
      expect(body.result.requestId).toBe(`c-${name}`)
      if (name !== 'setStreamHostServers') expect(body.result.error).not.toBe(APP_ERRORS.unknownCommand)
      expect(String(body.result.error ?? '')).not.toMatch(/^internal error/)
    }
  })
})
