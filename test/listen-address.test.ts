/**
 * Where a client on this machine reaches a listen address (src/listen-address.ts), checked against real
 * listeners on the unspecified addresses.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { reachableHost } from '../src/listen-address.js'
import { expectMapping } from './helpers/table.js'

describe('reachableHost', () => {
  it('maps the unspecified addresses to their loopback and brackets IPv6', () => {
    expectMapping(reachableHost, { '0.0.0.0': '127.0.0.1', '::': '[::1]', '[::]': '[::1]', '0:0:0:0:0:0:0:0': '[::1]' })
    expectMapping(reachableHost, { '::1': '[::1]', 'fe80::1': '[fe80::1]', '[fe80::1]': '[fe80::1]' })
    expectMapping(reachableHost, { '127.0.0.1': '127.0.0.1', '127.0.0.5': '127.0.0.5' })
    expectMapping(reachableHost, { localhost: 'localhost', 'panel.lan': 'panel.lan' })
  })

  /** A listener, or the error code of a machine without IPv6 (the case then cannot apply). */
  async function listen(options: { host: string; ipv6Only?: boolean }): Promise<Server | string> {
    const server = createServer((_req, res) => res.end('ok'))
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen({ port: 0, ...options }, resolve)
      })
    } catch (err) {
      return String((err as NodeJS.ErrnoException).code)
    }
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
    return server
  }

  it.each([{ host: '0.0.0.0' }, { host: '::' }, { host: '::', ipv6Only: true }])(
    'reaches a listener on %j',
    async (options) => {
      const server = await listen(options)
      if (typeof server === 'string') {
        expect(['EAFNOSUPPORT', 'EADDRNOTAVAIL']).toContain(server)
        return
      }
      const { port } = server.address() as AddressInfo
      const res = await fetch(`http://${reachableHost(options.host)}:${port}/`)
      expect(await res.text()).toBe('ok')
    },
  )

  it('why not 127.0.0.1 for ::: an IPv6-only listener refuses it', async () => {
    const server = await listen({ host: '::', ipv6Only: true })
    if (typeof server === 'string') {
      expect(['EAFNOSUPPORT', 'EADDRNOTAVAIL']).toContain(server)
      return
    }
    const { port } = server.address() as AddressInfo
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow()
  })
})
