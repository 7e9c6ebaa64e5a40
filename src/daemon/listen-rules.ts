/**
 * The rules of a `listen:` section that its schema cannot state, because they need two keys at once or
 * a file: `token` beside `token_file`, a `token_file` that cannot be read or holds too short a token,
 * and a bind beyond loopback without a token. `applyListenRules` applies them all, for the daemon (its
 * listener reads the token through `readListenToken`, which calls it) and for `check` (which places
 * each problem at its key); the server's own guard (`ServerAuth`) states the last rule through
 * `hostRuleProblem`, so each rule is written once.
 */
import { readRegularFile } from '../read-regular.js'
import { isLoopbackAddress } from '../http-guard.js'

/** Shortest token accepted from `listen.token_file` (the schema asks the same of `listen.token`). */
const MIN_TOKEN_LENGTH = 16
/**
 * The largest token file read, bytes. ASSUMED: a token is a line of text (the README suggests 32 random
 * bytes in hex); a larger file is not a token file, and is not read whole.
 */
export const MAX_TOKEN_FILE_BYTES = 4096

/** The keys of `listen` the rules read. */
export interface ListenKeys {
  host?: string | undefined
  token?: string | undefined
  token_file?: string | undefined
}

/** A rule broken, with the key of `listen:` it is about. */
export interface ListenProblem {
  key: 'host' | 'token_file'
  message: string
}

export type ListenRules = { token: string | undefined; problems: [] } | { token?: never; problems: ListenProblem[] }

/** A bind beyond loopback needs a token: the refusal, or undefined when the rule holds. */
export function hostRuleProblem(host: string, token: string | undefined): string | undefined {
  if (isLoopbackAddress(host) || (token !== undefined && token.trim() !== '')) return undefined
  return (
    `listen: ${host} is not a loopback address, so the API needs a token: set listen.token or listen.token_file ` +
    '(or bind 127.0.0.1)'
  )
}

/** The token in `file` (trimmed; a trailing newline is usual), or why it cannot be used. Never its contents. */
async function readTokenFile(file: string): Promise<{ token: string } | { problem: string }> {
  // Never blocking on what is at the path: a named pipe there would hold a reload (and a thread of the pool).
  const read = await readRegularFile(file, MAX_TOKEN_FILE_BYTES)
  if ('notRegular' in read)
    return { problem: `listen.token_file ${file}: it is ${read.notRegular}, not a regular file` }
  if ('tooLarge' in read)
    return { problem: `listen.token_file ${file}: larger than ${MAX_TOKEN_FILE_BYTES} bytes, not a token file` }
  if ('error' in read)
    return { problem: `listen.token_file ${file}: cannot read it (${read.error.code ?? 'unreadable'})` }
  const text = read.bytes.toString('utf8')
  const token = text.trim()
  if (token.length < MIN_TOKEN_LENGTH)
    return { problem: `listen.token_file ${file}: the token must be at least ${MIN_TOKEN_LENGTH} characters` }
  return { token }
}

/**
 * Applies every rule of `listen` and reads its token: `token`, or the contents of `token_file`
 * (undefined when neither is set). Without `host`, the bind rule is not applied (a token file given on
 * a command line). Never throws.
 */
export async function applyListenRules(listen: ListenKeys): Promise<ListenRules> {
  if (listen.token !== undefined && listen.token_file !== undefined)
    return { problems: [{ key: 'token_file', message: 'listen: set token or token_file, not both' }] }
  let token = listen.token
  if (listen.token_file !== undefined) {
    const read = await readTokenFile(listen.token_file)
    if ('problem' in read) return { problems: [{ key: 'token_file', message: read.problem }] }
    token = read.token
  }
  const hostProblem = listen.host === undefined ? undefined : hostRuleProblem(listen.host, token)
  if (hostProblem !== undefined) return { problems: [{ key: 'host', message: hostProblem }] }
  return { token, problems: [] }
}
