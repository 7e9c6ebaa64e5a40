/** Starts `panelbridge sim` as a child process on free ports, as the real application would run beside us. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export interface SimulatorProcess {
  httpUrl: string
  close(): Promise<void>
}

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url))

export async function startSimulatorProcess(): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sim', '--port', '0', '--ws-port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // Warnings and errors still reach the terminal; routine lines would interleave with the tables.
    env: { ...process.env, PANELBRIDGE_LOG_LEVEL: 'warn' },
  })
  const lines = createInterface({ input: child.stdout })
  const httpUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulator exited with code ${code} before listening`)))
    lines.on('line', (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1]
      if (url) resolve(url)
    })
  })
  return {
    httpUrl,
    async close() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}
