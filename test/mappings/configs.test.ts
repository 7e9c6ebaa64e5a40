/**
 * The shipped configs pass `panelbridge check`: the default one and every example; and a title on air
 * (Running while it animates, Paused while it holds on screen: both on air) shows as on air on each.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AppState } from '../../src/api/app-state.js'
import { EXIT, main } from '../../src/cli.js'
import { computeFeedback } from '../../src/mappings/feedback.js'
import { loadConfigFile } from '../../src/mappings/load.js'
import type { Binding } from '../../src/mappings/schema.js'
import { parseTemplate } from '../../src/mappings/template.js'

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
      'examples/replay-editor.yaml',
      'examples/satellite-loupedeck.yaml',
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
      expect(code).toBe(EXIT.ok)
    })
  }
  it('panelbridge check refuses a broken file with exit 1 and every problem located', async () => {
    const { code, out } = await check(fileURLToPath(new URL('../fixtures/mappings/broken.yaml', import.meta.url)))
    expect(code).toBe(EXIT.failure)
    expect(out.split('\n').filter((l) => /broken\.yaml:\d+:\d+: /.test(l))).toHaveLength(3)
    expect(out).toMatch(/broken\.yaml: refused: 3 errors, 0 warnings\n$/)
  })

  describe('a title on air shows as on air', () => {
    /** What a binding's control shows with its title in this play state (the engine's own feedback). */
    function shown(b: Binding, play: 'Running' | 'Paused' | 'Off'): { color?: string; text?: string } {
      const state = new AppState()
      state.resetTitles([{ id: '{1}', name: b.feedback!.title!, play }])
      state.setLink({ status: 'connected', since: 1 })
      const label = b.label === undefined ? undefined : parseTemplate(b.label).template
      return computeFeedback({ binding: b, label, look: { pending: false, failed: false, context: {} }, state })
    }

    for (const file of [...files, 'reference.yaml']) {
      it(`${file}: the same colour and words animating and holding, never 'Paused'`, async () => {
        const { config } = await loadConfigFile(`${configDir}${file}`)
        const following = config!.bindings.filter((b) => b.feedback?.title !== undefined)
        for (const b of following) {
          const [running, paused, off] = [shown(b, 'Running'), shown(b, 'Paused'), shown(b, 'Off')]
          expect(paused.color, b.on).toBe(running.color)
          expect(paused.color, b.on).not.toBe(off.color)
          expect(paused.text ?? '', b.on).not.toContain('Paused')
          if (b.label?.includes('{{play}}')) expect(paused.text, b.on).toContain('ON AIR')
        }
      })
    }
  })
})
