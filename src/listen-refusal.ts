/**
 * Why a simulator did not start, when the reason is the address it was to listen on: the port taken
 * (most often by the application itself, whose ports 9022 and 9023 the simulator plays) or one the
 * process may not bind. Each caller words the fix in its own settings (`app.simulate` and `app.url` in a
 * mapping file, `--port` on the command line); the address and the likely cause are worded here, once.
 */

export interface ListenRefusal {
  /** `127.0.0.1:9022`, `[::1]:9022`. */
  address: string
  port: number
  /** The port is in use (EADDRINUSE); else the process may not bind it (EACCES). */
  inUse: boolean
}

/** The listen failure at the root of `err` (its own or a cause's), else undefined. */
export function listenRefusal(err: unknown): ListenRefusal | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const x = e as NodeJS.ErrnoException & { address?: unknown; port?: unknown }
    if (x.syscall !== 'listen' || (x.code !== 'EADDRINUSE' && x.code !== 'EACCES')) continue
    if (typeof x.address !== 'string' || typeof x.port !== 'number') continue
    const host = x.address.includes(':') ? `[${x.address}]` : x.address
    return { address: `${host}:${x.port}`, port: x.port, inUse: x.code === 'EADDRINUSE' }
  }
  return undefined
}

/** `the port is in use (is the application running here?)` or `permission denied ...`. */
export function refusalCause(r: ListenRefusal): string {
  return r.inUse
    ? 'the port is in use (is the application running here?)'
    : 'permission denied (a port below 1024 needs privileges)'
}
