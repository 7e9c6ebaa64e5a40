/** A WebSocket client for a test: open before it is handed over, every message it receives parsed as JSON. */
import WebSocket from 'ws'

export interface JsonSocket<M> {
  ws: WebSocket
  /** Every message received so far, in order. */
  messages: M[]
}

/**
 * Opens a WebSocket to `url` (with `headers` on the upgrade) and resolves once it is open, or rejects with the
 * error that stopped it. The caller closes it (or terminates it) when done.
 */
export async function openJsonSocket<M>(
  url: string | URL,
  headers: Record<string, string> = {},
): Promise<JsonSocket<M>> {
  const ws = new WebSocket(url, { headers })
  const messages: M[] = []
  ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as M))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return { ws, messages }
}
