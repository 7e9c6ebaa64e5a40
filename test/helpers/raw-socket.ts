/**
 * A bare WebSocket to a QWebChannel server, for the tests that write frames by hand (a method called by
 * name, a reply's exact shape): open, every frame it receives parsed into `frames` in order, and
 * terminated when the test ends.
 */
import { onTestFinished } from 'vitest'
import WebSocket from 'ws'

export type Frame = Record<string, unknown>

export async function rawSocket(url: string): Promise<{ ws: WebSocket; frames: Frame[] }> {
  const ws = new WebSocket(url)
  onTestFinished(() => ws.terminate())
  await new Promise((r) => ws.once('open', r))
  const frames: Frame[] = []
  ws.on('message', (raw: WebSocket.RawData) => frames.push(JSON.parse((raw as Buffer).toString()) as Frame))
  return { ws, frames }
}
