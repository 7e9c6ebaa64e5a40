/**
 * Issue 13, Build 4: stream keys and tokens never reach what a process prints. Real child processes,
 * everything they print (stdout and stderr) grepped: the logger on its own in both formats, and the
 * simulator handed a stream key over HTTP and a token in a QWebChannel debug message it logs.
 * (The daemon-level version, `panelbridge run` with `listen.token`, comes with `run`.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import WebSocket from 'ws'
import { runCli, runNode, type CliChild } from '../helpers/cli.js'
import { until } from '../helpers/until.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/log-secrets.ts', import.meta.url))

const STREAM_KEY = 'live_4f1c9e2a7b3d5e6f-streamkey'
const TOKEN = 'tok_9a8b7c6d5e4f3a2b1c0d-secret'
const BEARER = 'bearer_0f1e2d3c4b5a69788796-cred'

/** A script as its own process from an unrelated folder, both output streams collected. */
const run = (args: string[], env: NodeJS.ProcessEnv): CliChild => runNode(args, { cwd: tmpdir(), env })

function expectNoSecret(text: string): void {
  for (const secret of [STREAM_KEY, TOKEN, BEARER]) expect(text).not.toContain(secret)
}

describe('secrets in what a process prints', () => {
  it.each([
    ['JSON lines under journald', { JOURNAL_STREAM: '8:4242', PANELBRIDGE_LOG_FORMAT: '' }],
    ['readable lines', { PANELBRIDGE_LOG_FORMAT: 'pretty' }],
  ] as [string, NodeJS.ProcessEnv][])(
    'the logger, %s: every record printed, no stream key or token in any',
    async (_, env) => {
      const r = run([FIXTURE, STREAM_KEY, TOKEN, BEARER], env)
      expect(await r.exited).toBe(0)
      const text = r.out()
      // The positive signal first: all four records were printed, secrets masked in place.
      expect(text).toContain('startStreaming?serverUrl=rtmp://x/live&streamKey=***')
      expect(text).toContain('Bearer ***')
      expect(text).toContain('daemon/api')
      expect(text).toContain('done')
      expect(text.trim().split('\n')).toHaveLength(4)
      if (env.JOURNAL_STREAM !== undefined) for (const line of text.trim().split('\n')) JSON.parse(line)
      expectNoSecret(text)
    },
  )

  it('panelbridge sim at debug level: a streamKey over HTTP and a token in a logged debug message never show', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-secrets-'))
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
    const commandLog = join(dir, 'commands.jsonl')
    const r = runCli(['sim', '--port', '0', '--ws-port', '0', '--log-commands', commandLog], {
      cwd: tmpdir(),
      env: { PANELBRIDGE_LOG_LEVEL: 'debug', PANELBRIDGE_LOG_FORMAT: 'json' },
    })
    await until('the simulator address', () => /WebSocket on ws:\/\/\S+/.test(r.out()))
    const httpUrl = /listening on (http:\/\/\S+)/.exec(r.out())![1]!
    const wsUrl = /WebSocket on (ws:\/\/\S+)/.exec(r.out())![1]!

    const query = `serverUrl=${encodeURIComponent('rtmp://example.invalid/live')}&streamKey=${STREAM_KEY}&requestId=s1`
    const reply = (await (
      await fetch(`${httpUrl}/api/command/startStreaming?${query}`, { headers: { authorization: `Bearer ${BEARER}` } })
    ).json()) as { result: { success: boolean } }
    expect(reply.result.success).toBe(true)

    const ws = new WebSocket(wsUrl)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    ws.send(JSON.stringify({ type: 5, data: `client says token=${TOKEN} Authorization: Bearer ${BEARER}` }))
    await until('the debug message in the log', () => r.out().includes('client debug message'))
    ws.close()

    r.child.kill('SIGTERM')
    expect(await r.exited).toBe(0)
    const printed = r.out()
    expect(printed).toContain('token=***')
    expectNoSecret(printed)
    const logged = readFileSync(commandLog, 'utf8')
    expect(logged).toContain('startStreaming')
    expectNoSecret(logged)
  })
})
