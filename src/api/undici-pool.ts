/**
 * undici's connection pool, loaded alone. `import { Pool } from 'undici'` loads all of undici (fetch,
 * WebSocket, caches, mock agents): 3 MB of heap and about 7 MB resident in a daemon that needs only the
 * pool (`npm run bench daemon`). The path is undici's own module file: undici 7 publishes no `exports`
 * map, so it is reachable, and the lockfile pins the version; if an upgrade moves it, every client test
 * fails at import. The types are undici's public ones.
 */
import { createRequire } from 'node:module'
import type { Pool as UndiciPool } from 'undici'

const require = createRequire(import.meta.url)

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool
export type Pool = UndiciPool
