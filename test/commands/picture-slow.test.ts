/**
 * Issue 46, item 1, in the daemon's own process: a picture within every bound of its cost scan whose
 * drawing still takes minutes (`slowSvg`: finely dashed strokes). The rasteriser cannot be interrupted,
 * so it draws in a process of its own (`picture.ts`), killed at the picture's time bound, when
 * its reload ends and when the daemon stops. Before, it drew in the reload's worker thread: the reload
 * timed out while the thread kept a core busy, and SIGTERM no longer ended the process (Node waits for
 * its worker threads on the way out, and a thread inside native code never comes back).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { CliChild } from '../helpers/cli.js'
import { daemonGainingPicture } from '../helpers/picture-daemon.js'
import { slowSvg } from '../helpers/svg-bomb.js'
import { untilFound, until, running } from '../helpers/until.js'

/** The pids of `pid`'s child processes that draw pictures (their program loads the canvas library). */
function drawingChildren(pid: number): number[] {
  const found: number[] = []
  let tasks: string[]
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return found
  }
  for (const task of tasks) {
    let children: string
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
    } catch {
      continue
    }
    for (const child of children
      .split(/\s+/)
      .filter((c) => c !== '')
      .map(Number)) {
      if (running(child) && cmdline(child).includes('@napi-rs/canvas')) found.push(child)
    }
  }
  return found
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return ''
  }
}

/** The daemon of a one-key config, running; then the config gains a key whose image is the slow SVG. */
async function daemonGainingSlowPicture(): Promise<{ cli: CliChild; pid: number }> {
  const cli = await daemonGainingPicture('slow.svg', slowSvg(), 'slow')
  return { cli, pid: cli.child.pid! }
}

describe('a picture that passes the cost scan but draws for minutes', () => {
  it('in a reload: the reload ends within its limit, nothing keeps drawing, and SIGTERM stops the daemon', async () => {
    const { cli, pid } = await daemonGainingSlowPicture()
    // The daemon's own timers decide: the picture refused at its bound, or the reload at its own.
    const ended = await cli.waitFor(/"msg":"(config reloaded|reload timed out[^"]*|reload failed[^"]*)"/)
    expect(ended[1], cli.out()).toMatch(/^(config reloaded|reload timed out)/)
    if (ended[1] === 'config reloaded') expect(cli.out()).toMatch(/took longer than \d+ ms to draw/)
    await until('no picture drawing after the reload ended', () => drawingChildren(pid).length === 0)
    cli.child.kill('SIGTERM')
    expect(await cli.exited, cli.out()).toBe(0)
  })

  it('SIGTERM while it draws stops the daemon, and the drawing with it', async () => {
    const { cli, pid } = await daemonGainingSlowPicture()
    const drawing = await untilFound('the picture drawing', () => drawingChildren(pid)[0])
    cli.child.kill('SIGTERM')
    expect(await cli.exited, cli.out()).toBe(0)
    await until('the drawing process gone', () => !running(drawing))
  })
})
