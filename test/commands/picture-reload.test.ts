/**
 * Issue 46, item 1, in the daemon's own process: a reload that adds a key whose `image:` is the SVG
 * `<use>` bomb ends within the reload's limit (the bomb is refused before anything draws it; the key
 * keeps its text and says why), and SIGTERM then stops the process cleanly. Before, the reload timed
 * out while its worker stayed inside the rasteriser, and SIGTERM no longer ended the process.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { LABEL_KEY, simulatedConfig } from '../helpers/config.js'
import { useBomb } from '../helpers/svg-bomb.js'

describe('a reload adding the SVG <use> bomb', () => {
  it('ends within its limit, the bomb refused, and SIGTERM stops the daemon', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-picture-reload-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const config = join(dir, 'config.yaml')
    await writeFile(config, simulatedConfig(LABEL_KEY))
    await writeFile(join(dir, 'bomb.svg'), useBomb(7, 10))
    const cli = runCli(['run', '--config', config], { env: { PANELBRIDGE_LOG_LEVEL: 'info' } })
    await cli.waitFor(/panelbridge running: http:\/\/127\.0\.0\.1:\d+/)
    await writeFile(
      config,
      simulatedConfig(`${LABEL_KEY}  - on: console/key:1\n    label: "bomb"\n    image: bomb.svg\n`),
    )
    cli.child.kill('SIGHUP')
    // The daemon's own reload timer decides whether it ended in time (it says "reload timed out" if not).
    const reloaded = await cli.waitFor(/"msg":"(config reloaded|reload timed out[^"]*|reload failed[^"]*)"/)
    expect(reloaded[1], cli.out()).toBe('config reloaded')
    expect(cli.out()).toMatch(/"bindings":2/)
    cli.child.kill('SIGTERM')
    expect(await cli.exited, cli.out()).toBe(0)
  })
})
