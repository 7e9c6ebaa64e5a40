/** The shipped configs pass `panelbridge check`: the default one and every example. */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EXIT_FAILURE, EXIT_OK, main } from '../../src/cli.js'

const configDir = fileURLToPath(new URL('../../config/', import.meta.url))
const files = ['default.yaml', ...readdirSync(`${configDir}examples`).map((f) => `examples/${f}`)]

afterEach(() => vi.restoreAllMocks())

async function check(file: string): Promise<{ code: number; out: string }> {
  let out = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk)
    return true
  })
  const code = await main(['check', file])
  vi.restoreAllMocks()
  return { code, out }
}

describe('shipped configs', () => {
  it('has the default and the examples', () => {
    expect(files.sort()).toEqual([
      'default.yaml',
      'examples/apc-mini-titles.yaml',
      'examples/shuttlepro-replay.yaml',
      'examples/streamdeck-plus-replay.yaml',
      'examples/streamdeck-xl-titles.yaml',
      'examples/usb-foot-pedal.yaml',
      'examples/web-control-room.yaml',
      'examples/xkeys24-titles.yaml',
      'examples/xtouch-mini-replay.yaml',
    ])
  })
  for (const file of files) {
    it(`panelbridge check ${file}: ok, no warnings`, async () => {
      const { code, out } = await check(`${configDir}${file}`)
      expect(out).toMatch(/: ok: \d+ bindings on \d+ surfaces?\n$/)
      expect(out).not.toContain('warning')
      expect(code).toBe(EXIT_OK)
    })
  }
  it('panelbridge check refuses a broken file with exit 1 and every problem located', async () => {
    const { code, out } = await check(fileURLToPath(new URL('../fixtures/mappings/broken.yaml', import.meta.url)))
    expect(code).toBe(EXIT_FAILURE)
    expect(out.split('\n').filter((l) => /broken\.yaml:\d+:\d+: /.test(l))).toHaveLength(3)
    expect(out).toMatch(/broken\.yaml: refused: 3 errors, 0 warnings\n$/)
  })
})
