/** The `panelbridge` command line: argument parsing in-process, and the real program in a child process. */
import { spawn, type ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, it } from 'vitest'
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, HELP, parseCli } from '../src/cli.js'
import { startSimulator } from '../src/simulator/index.js'

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url))
// tsx's loader inside one node process (not the tsx wrapper, whose child a SIGKILL would orphan).
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

describe('parseCli', () => {
  it('defaults to the real application ports on 127.0.0.1', () => {
    expect(parseCli(['sim'])).toEqual({
      kind: 'sim',
      httpPort: 9022,
      wsPort: 9023,
      host: '127.0.0.1',
      animationMs: 1000,
    })
  })
  it('reads every option', () => {
    expect(
      parseCli([
        'sim',
        '--port',
        '0',
        '--ws-port',
        '9100',
        '--host',
        '0.0.0.0',
        '--data-dir',
        '/srv/sim',
        '--animation-ms',
        '50',
      ]),
    ).toEqual({
      kind: 'sim',
      httpPort: 0,
      wsPort: 9100,
      host: '0.0.0.0',
      dataDir: '/srv/sim',
      animationMs: 50,
    })
  })
  it('help wins', () => {
    expect(parseCli(['--help'])).toEqual({ kind: 'help' })
    expect(parseCli(['sim', '-h'])).toEqual({ kind: 'help' })
    expect(HELP).toContain('Examples:')
    expect(HELP).toContain('panelbridge sim --port 0')
  })
  it.each([
    [[], 'no command given'],
    [['serve'], "unknown command 'serve'"],
    [['sim', 'extra'], "unexpected argument 'extra'"],
    [['sim', '--port', '70000'], '--port must be a port number'],
    [['sim', '--port', 'abc'], '--port must be a port number'],
    [['sim', '--ws-port=-1'], '--ws-port must be a port number'],
    [['sim', '--animation-ms', '1.5'], '--animation-ms must be a whole number'],
    [['sim', '--host', ''], '--host must not be empty'],
    [['sim', '--colour'], "Unknown option '--colour'"],
  ])('refuses %j', (argv, message) => {
    const r = parseCli(argv)
    expect(r.kind).toBe('error')
    expect(r.kind === 'error' && r.message).toContain(message)
  })
})

describe('the panelbridge program', () => {
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    children.length = 0
  })

  /** Runs the CLI from an unrelated working directory (nothing may depend on the cwd). */
  function run(args: string[]): ChildProcess {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, CLI, ...args], {
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(child)
    return child
  }
  function exitCode(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  }
  function firstLine(child: ChildProcess): Promise<string> {
    return new Promise((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! })
      lines.once('line', (line) => {
        lines.close()
        resolve(line)
      })
      child.once('exit', (code) => reject(new Error(`exited with ${code} before printing`)))
    })
  }

  it('sim prints its URL, answers getAllVideoIns with the envelope, and stops cleanly on SIGTERM', async () => {
    const child = run(['sim', '--port', '0', '--ws-port', '0'])
    const line = await firstLine(child)
    const url = /listening on (http:\/\/\S+)/.exec(line)![1]!
    const body = await (await fetch(`${url}/api/command/getAllVideoIns?requestId=r1`)).json()
    expect(body.result).toMatchObject({
      command: 'getAllVideoIns',
      reply: 'getAllVideoIns',
      success: true,
      requestId: 'r1',
    })
    expect(body.result.count).toBe(String(body.result.videoIns.length))
    expect(body.result.videoIns).toContain('Camera 1')
    const exited = exitCode(child)
    child.kill('SIGTERM')
    expect(await exited).toBe(EXIT_OK)
  })

  it('exits 2 on a bad command line and 0 on --help', async () => {
    const bad = run(['sim', '--port', 'nope'])
    expect(await exitCode(bad)).toBe(EXIT_USAGE)
    const help = run(['--help'])
    const text = firstLine(help)
    expect(await exitCode(help)).toBe(EXIT_OK)
    expect(await text).toContain('panelbridge')
  })

  it('exits 1 when the data folder cannot be made', async () => {
    const child = run(['sim', '--port', '0', '--ws-port', '0', '--data-dir', join(tmpdir(), 'pb-no-parent', 'data')])
    expect(await exitCode(child)).toBe(EXIT_FAILURE)
  })

  it('exits 1 when the port is taken', async () => {
    const busy = await startSimulator({ httpPort: 0, wsPort: 0 })
    try {
      const child = run(['sim', '--port', String(busy.httpPort), '--ws-port', '0'])
      expect(await exitCode(child)).toBe(EXIT_FAILURE)
    } finally {
      await busy.close()
    }
  })
})
