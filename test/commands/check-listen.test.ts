/**
 * Issue 22 item 3: the rules of `listen:` that only `run` knew (a bind beyond loopback without a
 * token, `token` beside `token_file`, a token file that cannot be read) are applied by one function,
 * which the daemon's token reading and `check` both call; `check` reports them at their key.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readListenToken, ServerAuth } from '../../src/daemon/auth.js'
import { applyListenRules, MAX_TOKEN_FILE_BYTES } from '../../src/daemon/listen-rules.js'
import { EXIT } from '../../src/commands/subcommand.js'
import { createLogger } from '../../src/log.js'
import { checkText, type CheckRun } from './check-helpers.js'

const TOKEN = 'a-token-of-at-least-16-chars'
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pb-check-listen-'))
  await writeFile(join(dir, 'token'), `${TOKEN}\n`)
  await writeFile(join(dir, 'short'), 'short\n')
  await writeFile(join(dir, 'huge'), 'x'.repeat(MAX_TOKEN_FILE_BYTES + 1))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const check = (listen: string): Promise<CheckRun> =>
  checkText(dir, `version: 1\nlisten:\n${listen}surfaces:\n  console: { driver: web, rows: 1, columns: 2 }\n`)

describe('check applies the listen rules at their keys', () => {
  it('a host beyond loopback without a token, at host', async () => {
    const r = await check('  host: 0.0.0.0\n')
    expect(r.out).toBe(
      `${r.path}:3:3: listen: 0.0.0.0 is not a loopback address, so the API needs a token: set listen.token or ` +
        `listen.token_file (or bind 127.0.0.1)\n${r.path}: refused: 1 error, 0 warnings\n`,
    )
    expect(r.code).toBe(EXIT.failure)
  })

  it('token beside token_file, at token_file', async () => {
    const r = await check(`  token: ${TOKEN}\n  token_file: ${join(dir, 'token')}\n`)
    expect(r.out).toContain(`${r.path}:4:3: listen: set token or token_file, not both\n`)
    expect(r.code).toBe(EXIT.failure)
  })

  it('a token file that is missing, too short or too large, at token_file', async () => {
    const missing = await check(`  host: 0.0.0.0\n  token_file: ${join(dir, 'absent')}\n`)
    // The file's problem alone: "needs a token" would say the same thing twice.
    expect(missing.out).toBe(
      `${missing.path}:4:3: listen.token_file ${join(dir, 'absent')}: cannot read it (ENOENT)\n` +
        `${missing.path}: refused: 1 error, 0 warnings\n`,
    )
    expect((await check(`  token_file: ${join(dir, 'short')}\n`)).out).toContain(
      'the token must be at least 16 characters',
    )
    expect((await check(`  token_file: ${join(dir, 'huge')}\n`)).out).toContain(
      `larger than ${MAX_TOKEN_FILE_BYTES} bytes, not a token file`,
    )
  })

  it('a named pipe as the token file is refused at token_file, without waiting for a writer', async () => {
    const pipe = join(dir, 'token-pipe')
    execFileSync('mkfifo', [pipe])
    const r = await check(`  token_file: ${pipe}\n`)
    expect(r.out).toContain(`${r.path}:3:3: listen.token_file ${pipe}: it is a named pipe, not a regular file\n`)
    expect(r.code).toBe(EXIT.failure)
  })

  it('passes a bind beyond loopback with a readable token file; the token never reaches the output', async () => {
    const r = await check(`  host: 0.0.0.0\n  token_file: ${join(dir, 'token')}\n`)
    expect(r.out).toBe(`${r.path}: ok: 0 bindings on 1 surface\n`)
    expect(r.out).not.toContain(TOKEN)
    expect(r.code).toBe(EXIT.ok)
  })
})

describe('the daemon reads its token through the same rules', () => {
  it.each([
    [{ host: '0.0.0.0' }],
    [{ token: TOKEN, token_file: 'x' }],
    [{ host: '0.0.0.0', token_file: '/nonexistent/pb-token' }],
  ])('readListenToken(%j) refuses with the message check gives', async (listen) => {
    const rules = await applyListenRules(listen)
    expect(rules.problems).toHaveLength(1)
    await expect(readListenToken(listen)).rejects.toThrow(rules.problems[0]!.message)
  })

  it('reads the token (file trimmed), and the server guard states the bind rule in the same words', async () => {
    expect(await readListenToken({ host: '0.0.0.0', token_file: join(dir, 'token') })).toBe(TOKEN)
    expect(await readListenToken({ host: '127.0.0.1' })).toBeUndefined()
    const rules = await applyListenRules({ host: '0.0.0.0' })
    expect(() => new ServerAuth({ host: '0.0.0.0', log: createLogger('test') })).toThrow(rules.problems[0]!.message)
  })
})
