/**
 * Starts `panelbridge sim` as a child process on free ports, as the real application would run beside us;
 * `profile` picks the application it plays (`config/app-profiles/`, its default when absent).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export interface SimulatorProcess {
  httpUrl: string
  /** Its QWebChannel WebSocket (the application's notifications). */
  wsUrl: string
  close(): Promise<void>
}

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url))

export async function startSimulatorProcess(options: { profile?: string } = {}): Promise<SimulatorProcess> {
  const profile = options.profile !== undefined ? ['--profile', options.profile] : []
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sim', '--port', '0', '--ws-port', '0', ...profile], {
    stdio: ['ignore', 'pipe', 'inherit'],
    // Warnings and errors still reach the terminal; routine lines would interleave with the tables.
    env: { ...process.env, PANELBRIDGE_LOG_LEVEL: 'warn' },
  })
  const lines = createInterface({ input: child.stdout })
  // The simulator prints its HTTP address, then its WebSocket's, on the lines that follow.
  const { httpUrl, wsUrl } = await new Promise<{ httpUrl: string; wsUrl: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulator exited with code ${code} before listening`)))
    let http: string | undefined
    lines.on('line', (line) => {
      http ??= /listening on (http:\/\/\S+)/.exec(line)?.[1]
      const ws = /QWebChannel WebSocket on (ws:\/\/\S+)/.exec(line)?.[1]
      if (http !== undefined && ws !== undefined) resolve({ httpUrl: http, wsUrl: ws })
    })
  })
  return {
    httpUrl,
    wsUrl,
    async close() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}
