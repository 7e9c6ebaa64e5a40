/**
 * A simulator that dies without close() leaves no temporary data folder behind (issue 9, finding 7):
 * a child process starts one, prints its folder, and then throws, is sent SIGTERM or SIGINT, or exits.
 */
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runNode } from '../../helpers/cli.js'

const SIMULATOR = pathToFileURL(fileURLToPath(new URL('../../../src/app-kit/simulator/index.ts', import.meta.url))).href

type Ending = 'throw' | 'SIGTERM' | 'SIGINT' | 'exit'

/** Runs a simulator in a child until `ending`; resolves with its data folder and how it ended. */
function runChild(ending: Ending): Promise<{ dir: string; code: number | null; signal: NodeJS.Signals | null }> {
  const script = `
    import { startSimulator } from ${JSON.stringify(SIMULATOR)}
    const sim = await startSimulator()
    process.stdout.write('DIR ' + sim.state.dataDir + '\\n')
    const ending = ${JSON.stringify(ending)}
    if (ending === 'throw') setTimeout(() => { throw new Error('crash') }, 20)
    if (ending === 'exit') setTimeout(() => process.exit(3), 20)
    setInterval(() => {}, 1000)
  `
  const run = runNode(['--input-type=module', '-e', script])
  const child = run.child
  let dir = ''
  child.stdout!.on('data', () => {
    const m = /DIR (.+)\n/.exec(run.stdout())
    if (m && !dir) {
      dir = m[1]!
      expect(existsSync(dir)).toBe(true)
      if (ending === 'SIGTERM' || ending === 'SIGINT') child.kill(ending)
    }
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve({ dir, code, signal }))
  })
}

describe('the temporary data folder goes with the process', () => {
  it.each(['throw', 'SIGTERM', 'SIGINT', 'exit'] as const)('ended by %s', async (ending) => {
    const { dir, code, signal } = await runChild(ending)
    expect(dir).not.toBe('')
    expect(existsSync(dir)).toBe(false)
    // The way it ended is unchanged: a signal still ends it by that signal, a crash with code 1.
    if (ending === 'throw') expect(code).toBe(1)
    if (ending === 'exit') expect(code).toBe(3)
    if (ending === 'SIGTERM' || ending === 'SIGINT') expect(signal).toBe(ending)
  })
})
