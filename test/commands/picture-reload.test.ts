/**
 * Issue 46, item 1, in the daemon's own process: a reload that adds a key whose `image:` is the SVG
 * `<use>` bomb ends within the reload's limit (the bomb is refused before anything draws it; the key
 * keeps its text and says why), and SIGTERM then stops the process cleanly. Before, the reload timed
 * out while its worker stayed inside the rasteriser, and SIGTERM no longer ended the process.
 */
import { describe, expect, it } from 'vitest'
import { daemonGainingPicture } from '../helpers/picture-daemon.js'
import { useBomb } from '../helpers/svg-bomb.js'

describe('a reload adding the SVG <use> bomb', () => {
  it('ends within its limit, the bomb refused, and SIGTERM stops the daemon', async () => {
    const cli = await daemonGainingPicture('bomb.svg', useBomb(7, 10), 'bomb')
    // The daemon's own reload timer decides whether it ended in time (it says "reload timed out" if not).
    const reloaded = await cli.waitFor(/"msg":"(config reloaded|reload timed out[^"]*|reload failed[^"]*)"/)
    expect(reloaded[1], cli.out()).toBe('config reloaded')
    expect(cli.out()).toMatch(/"bindings":2/)
    cli.child.kill('SIGTERM')
    expect(await cli.exited, cli.out()).toBe(0)
  })
})
