/**
 * What the command client's tests share: a loopback server on port 0 and clients of it, both closed when
 * the test finishes (clients first: they were made after their server).
 */
import type { Server as HttpServer } from 'node:http'
import type { AddressInfo, Server } from 'node:net'
import { onTestFinished } from 'vitest'
import { CommandClient } from '../../../src/api/client.js'

/** Listens on 127.0.0.1, port 0; returns the base URL. The server (and, for HTTP, its sockets) closes at the end. */
export async function listen(server: Server | HttpServer): Promise<string> {
  onTestFinished(async () => {
    if ('closeAllConnections' in server) server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A CommandClient for `base`, closed when the test finishes. */
export function clientFor(
  base: string,
  opts: Partial<ConstructorParameters<typeof CommandClient>[0]> = {},
): CommandClient {
  const client = new CommandClient({ baseUrl: base, ...opts })
  onTestFinished(() => client.close())
  return client
}
