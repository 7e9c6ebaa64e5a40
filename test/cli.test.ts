/** The `panelbridge` command line: argument parsing in-process, and the real program in a child process. */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, HELP, helpText, parseCli } from '../src/cli.js'
import { SUBCOMMANDS } from '../src/commands/index.js'
import { parseSimArgs, simCommand } from '../src/commands/sim.js'
import { startSimulator } from '../src/app-kit/simulator/index.js'
import { runCli, type CliChild } from './helpers/cli.js'
import { until } from './helpers/until.js'

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url))

describe('parseSimArgs (panelbridge sim)', () => {
  it('defaults to the real application ports on 127.0.0.1', () => {
    expect(parseSimArgs([])).toEqual({
      kind: 'sim',
      httpPort: 9022,
      wsPort: 9023,
      host: '127.0.0.1',
      animationMs: 1000,
    })
  })
  it('reads every option', () => {
    expect(
      parseSimArgs([
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
        '--log-commands',
        '/srv/log.jsonl',
        '--profile',
        'strict-unknowns',
      ]),
    ).toEqual({
      kind: 'sim',
      httpPort: 0,
      wsPort: 9100,
      host: '0.0.0.0',
      dataDir: '/srv/sim',
      animationMs: 50,
      logCommands: '/srv/log.jsonl',
      profile: 'strict-unknowns',
    })
    expect(parseSimArgs(['--list-profiles'])).toEqual({ kind: 'list-profiles' })
  })
  it('is a subcommand: main dispatches it, --help lists it, sim --help shows its options', () => {
    expect(SUBCOMMANDS.sim).toBe(simCommand)
    expect(helpText()).toContain('sim [options]')
    expect(HELP).toContain('Examples:')
    expect(HELP).toContain('panelbridge sim --port 0')
    for (const option of ['--port', '--ws-port', '--host', '--data-dir', '--animation-ms', '--log-commands'])
      expect(simCommand.help).toContain(option)
    expect(simCommand.help).toContain('--profile NAME')
    expect(simCommand.help).toContain('--list-profiles')
  })
  it('the top level no longer parses sim; help still wins there', () => {
    expect(parseCli(['--help'])).toEqual({ kind: 'help' })
    expect(parseCli(['sim'])).toMatchObject({ kind: 'error', message: "unknown command 'sim'" })
  })
  it.each([
    [[], 'no command given'],
    [['serve'], "unknown command 'serve'"],
  ])('parseCli refuses %j', (argv, message) => {
    const r = parseCli(argv)
    expect(r.kind).toBe('error')
    expect(r.kind === 'error' && r.message).toContain(message)
  })
  it.each([
    [['extra'], "unexpected argument 'extra'"],
    [['--port', '70000'], '--port must be a port number'],
    [['--port', 'abc'], '--port must be a port number'],
    [['--ws-port=-1'], '--ws-port must be a port number'],
    [['--animation-ms', '1.5'], '--animation-ms must be a whole number'],
    [['--host', ''], '--host must not be empty'],
    [['--profile', ''], '--profile must not be empty'],
    [['--no-hardware'], "--no-hardware is an option of 'surfaces', not of 'sim'"],
    [['--colour'], "Unknown option '--colour'"],
  ])('sim refuses %j', (argv, message) => {
    const r = parseSimArgs(argv)
    expect(r.kind).toBe('error')
    expect(r.kind === 'error' && r.message).toContain(message)
  })
})

describe('the panelbridge program', () => {
  /** The program, and a promise kept once both its output streams have ended ('close', after 'exit'). */
  interface Program extends CliChild {
    closed: Promise<void>
    kill(signal: NodeJS.Signals): boolean
  }

  /** Runs the CLI from an unrelated working directory (nothing may depend on the cwd). */
  function run(args: string[]): Program {
    const cli = runCli(args, { cwd: tmpdir() })
    return {
      ...cli,
      closed: new Promise<void>((resolve) => cli.child.once('close', () => resolve())),
      kill: (signal) => cli.child.kill(signal),
    }
  }
  function exitCode(child: Program): Promise<number | null> {
    return child.exited
  }
  /** The first `n` lines of stdout; fails, with what came, if the program ends first. */
  async function firstLines(child: Program, n: number): Promise<string[]> {
    let gone = false
    void child.closed.then(() => (gone = true))
    await until(`${n} lines on stdout`, () => child.stdout().split('\n').length > n || gone)
    const got = child.stdout().split('\n')
    if (got.length <= n) throw new Error(`exited with ${child.child.exitCode} after ${JSON.stringify(got)}`)
    return got.slice(0, n)
  }
  async function firstLine(child: Program): Promise<string> {
    return (await firstLines(child, 1))[0]!
  }
  /** Everything the child writes on `stream` until it exits. */
  async function allOf(child: Program, stream: 'stdout' | 'stderr'): Promise<string> {
    await child.closed
    return stream === 'stdout' ? child.stdout() : child.stderr()
  }

  it('sim prints its URL, answers getAllVideoIns with the envelope, and stops cleanly on SIGTERM', async () => {
    const child = run(['sim', '--port', '0', '--ws-port', '0'])
    const line = await firstLine(child)
    const url = /listening on (http:\/\/\S+)/.exec(line)![1]!
    const body = (await (await fetch(`${url}/api/command/getAllVideoIns?requestId=r1`)).json()) as {
      result: { count: unknown; videoIns: unknown[] }
    }
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
    expect(await exited).toBe(EXIT.ok)
  })

  it('sim --profile plays that profile and says so; the default profile is named too', async () => {
    const child = run(['sim', '--port', '0', '--ws-port', '0', '--profile', 'strict-unknowns'])
    const lines = await firstLines(child, 4)
    expect(lines[3]).toBe('application profile: strict-unknowns')
    const url = /listening on (http:\/\/\S+)/.exec(lines[0]!)![1]!
    const body = (await (await fetch(`${url}/api/command/getOutputDevice`)).json()) as { result: unknown }
    // strict-unknowns answers every value as text.
    expect(body.result).toMatchObject({ command: 'getOutputDevice', success: 'true' })
    const exited = exitCode(child)
    child.kill('SIGTERM')
    expect(await exited).toBe(EXIT.ok)

    const plain = run(['sim', '--port', '0', '--ws-port', '0'])
    expect((await firstLines(plain, 4))[3]).toBe('application profile: captivate')
    const stopped = exitCode(plain)
    plain.kill('SIGTERM')
    expect(await stopped).toBe(EXIT.ok)
  })

  it('sim --profile with an unknown name exits 2 naming the known ones', async () => {
    const child = run(['sim', '--port', '0', '--ws-port', '0', '--profile', 'titler-live-1999'])
    const err = allOf(child, 'stderr')
    expect(await exitCode(child)).toBe(EXIT.usage)
    expect(await err).toContain('no application profile named titler-live-1999 (known: captivate, ')
    expect(await err).toContain('strict-unknowns')
  })

  it('sim --list-profiles prints every profile with its summary, the default first', async () => {
    const child = run(['sim', '--list-profiles'])
    const out = allOf(child, 'stdout')
    expect(await exitCode(child)).toBe(EXIT.ok)
    const lines = (await out).trimEnd().split('\n')
    expect(lines[0]).toMatch(/^captivate\s+The current Captivate.*\(default\)$/)
    for (const name of ['titler-live-2021', 'strict-unknowns', 'feedback-signal-only'])
      expect(lines.some((l) => l.startsWith(`${name} `))).toBe(true)
    expect(lines.every((l) => /^[a-z0-9-]+\s{2,}\S/.test(l))).toBe(true)
  })

  it('surfaces serves its web page and stops cleanly on SIGINT', async () => {
    const child = run(['surfaces', '--no-hardware', '--port', '0'])
    const lines = await firstLines(child, 3)
    expect(lines).toContain('web web (Web surface): open')
    expect(lines).toContain('no hardware drivers: only the web surface')
    const url = /^web surface on (http:\/\/\S+)$/.exec(lines[2]!)![1]!
    expect((await fetch(url)).status).toBe(200)
    const exited = exitCode(child)
    child.kill('SIGINT')
    expect(await exited).toBe(EXIT.ok)
  })

  it('sim --help shows its options', async () => {
    const child = run(['sim', '--help'])
    const out = allOf(child, 'stdout')
    expect(await exitCode(child)).toBe(EXIT.ok)
    expect(await out).toContain('--profile NAME')
    expect(await out).toContain('--animation-ms N')
  })

  it('check refuses an unknown app.simulate profile at its line and column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-cli-check-'))
    try {
      const file = join(dir, 'config.yaml')
      writeFileSync(file, 'version: 1\napp:\n  simulate:\n    profile: titler-live-1999\n')
      const child = run(['check', file])
      const out = allOf(child, 'stdout')
      expect(await exitCode(child)).toBe(EXIT.failure)
      const line = (await out).split('\n').find((l) => l.startsWith(`${file}:4:14: `))
      expect(line).toContain('titler-live-1999')
      expect(line).toContain('captivate')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('exits 2 on a bad command line and 0 on --help', async () => {
    const bad = run(['sim', '--port', 'nope'])
    expect(await exitCode(bad)).toBe(EXIT.usage)
    const help = run(['--help'])
    const text = firstLine(help)
    expect(await exitCode(help)).toBe(EXIT.ok)
    expect(await text).toContain('panelbridge')
  })

  it('exits 1 when the data folder cannot be made', async () => {
    const child = run(['sim', '--port', '0', '--ws-port', '0', '--data-dir', join(tmpdir(), 'pb-no-parent', 'data')])
    expect(await exitCode(child)).toBe(EXIT.failure)
  })

  it('exits 1 when the port is taken', async () => {
    const busy = await startSimulator({ httpPort: 0, wsPort: 0 })
    try {
      const child = run(['sim', '--port', String(busy.httpPort), '--ws-port', '0'])
      expect(await exitCode(child)).toBe(EXIT.failure)
    } finally {
      await busy.close()
    }
  })
})

describe('the launcher (the first lines of src/cli.ts, kept in dist/cli.js)', () => {
  /** The flags `npm run bench flags` weighs; only the long-running commands start with them. */
  const FLAGS = ['--max-semi-space-size=1', '--v8-pool-size=1', '--liftoff-only']
  // A stand-in `node` first on PATH that prints the arguments the launcher execs it with, one a line.
  const bin = mkdtempSync(join(tmpdir(), 'pb-launcher-'))
  writeFileSync(join(bin, 'node'), '#!/bin/sh\nprintf \'%s\\n\' "$@"\n')
  chmodSync(join(bin, 'node'), 0o755)
  afterAll(() => rmSync(bin, { recursive: true, force: true }))

  /** Runs the file as the kernel runs a `#!/bin/sh` program; what node was given. */
  function launch(args: string[]): string[] {
    const out = execFileSync('/bin/sh', [CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    })
    return out.split('\n').slice(0, -1)
  }

  it.each(['run', 'sim', 'surfaces', 'learn'])('%s starts node with the V8 flags, its arguments intact', (command) => {
    expect(launch([command, '--config', 'my file.yaml'])).toEqual([...FLAGS, CLI, command, '--config', 'my file.yaml'])
  })

  it.each([['check', 'config.yaml'], ['send', 'getAllVideoIns'], ['devices'], ['probe'], ['--help'], []])(
    '%j starts node without them',
    (...args: string[]) => {
      expect(launch(args)).toEqual([CLI, ...args])
    },
  )

  it('survives the compile: tsc keeps the launcher lines first, as dist/cli.js needs them', () => {
    const source = readFileSync(CLI, 'utf8')
    const emitted = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText
    expect(emitted.split('\n').slice(0, 3)).toEqual(source.split('\n').slice(0, 3))
    expect(source.split('\n')[0]).toBe('#!/bin/sh')
  })
})
