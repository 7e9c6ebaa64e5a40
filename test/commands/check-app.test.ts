/**
 * Issue 22 items 1 and 4: `check --app URL` looks the file's titles, video inputs and replay inputs up
 * in the application (the simulator here), read-only; several files in one run; `--format json`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkCommand, parseCheckArgs, runCheck } from '../../src/commands/check.js'
import { EXIT } from '../../src/commands/subcommand.js'
import { startSimulator, type SimulatorHandle } from '../../src/app-kit/simulator/index.js'

const HEAD = `version: 1
surfaces:
  console: { driver: web, rows: 2, columns: 4 }
bindings:
`
const GOOD = `${HEAD}  - on: console/key:0
    press: { command: schedule, params: { action: animateIn, title: 'Lower Third' } }
    feedback: { title: 'Lower Third' }
  - on: console/key:1
    press: { command: switchVideoIn, params: { channel: 0, video: 'Camera 1' } }
    feedback: { input: 'Camera 1' }
`
const MISSPELT = `${HEAD}  - on: console/key:0
    label: '{{name}}'
    feedback: { title: 'Lower Thrid' }
  - on: console/key:1
    press: { command: switchVideoIn, params: { channel: 0, video: 'Camera 3' } }
  - on: console/key:2
    press: { command: replay_arm_inputs, params: { inputs: ['Camera 1', 'Camra 2'] } }
  - on: console/key:3
    press: { command: schedule, params: { action: cutout, title: '{{name}}' } }
    feedback: { title: 'Score Bug' }
`

let sim: SimulatorHandle
let dir: string
beforeAll(async () => {
  sim = await startSimulator()
  dir = await mkdtemp(join(tmpdir(), 'pb-check-app-'))
})
afterAll(async () => {
  await sim.close()
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  return path
}

async function check(files: string[], options: { app?: string; format?: 'json' } = {}) {
  let out = ''
  let err = ''
  const code = await runCheck(
    { files, format: options.format ?? 'text', ...(options.app ? { app: options.app } : {}) },
    (t) => void (out += t),
    (t) => void (err += t),
  )
  return { code, out, err }
}

/** A loopback port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('check --app', () => {
  it('passes a file whose titles and inputs the application has', async () => {
    const r = await check([await file('good.yaml', GOOD)], { app: sim.httpUrl })
    expect(r.out).toBe(`${dir}/good.yaml: ok: 2 bindings on 1 surface, names found at ${sim.httpUrl}\n`)
    expect(r.code).toBe(EXIT.ok)
  })

  it('reports each name the application lacks at its line and column, with the nearest name', async () => {
    const path = await file('misspelt.yaml', MISSPELT)
    const r = await check([path], { app: sim.httpUrl })
    expect(r.out.split('\n')).toEqual([
      `${path}:7:24: bindings[0].feedback.title: the application has no title 'Lower Thrid' (did you mean 'Lower Third'?)`,
      `${path}:9:67: bindings[1].press.params.video: the application has no video input 'Camera 3' (did you mean 'Camera 1'?)`,
      `${path}:11:73: bindings[2].press.params.inputs[1]: the application has no replay input 'Camra 2' (did you mean 'Camera 2'?)`,
      `${path}: refused: 3 errors, 0 warnings`,
      '',
    ])
    expect(r.code).toBe(EXIT.failure)
  })

  it('sends only the read-only listing commands, each once, whatever the file names', async () => {
    const before = sim.http.log.length
    await check([await file('a.yaml', MISSPELT), await file('b.yaml', GOOD)], { app: sim.httpUrl })
    const sent = sim.http.log.slice(before).map((e) => e.name)
    // Listings only: none of them changes the application.
    expect([...sent].sort()).toEqual(['getAllVideoIns', 'getTitleControlInfo', 'replay_get_inputs'])
  })

  it('asks nothing it does not need: a file naming only titles asks for titles alone', async () => {
    const before = sim.http.log.length
    await check([await file('titles.yaml', `${HEAD}  - on: console/key:0\n    feedback: { title: Clock }\n`)], {
      app: sim.httpUrl,
    })
    expect(sim.http.log.slice(before).map((e) => e.name)).toEqual(['getTitleControlInfo'])
  })

  it('says in one line that a refused file’s names were not looked up, and why; the other files’ names are', async () => {
    const refused = await file('refused.yaml', `${MISSPELT}  - on: console/key:9\n`)
    const good = await file('good3.yaml', GOOD)
    const r = await check([refused, good], { app: sim.httpUrl })
    const lines = r.out.split('\n')
    expect(r.out).toContain(`${refused}:15:9: on: console has no control key:9`)
    expect(lines).toContain(`${good}: ok: 2 bindings on 1 surface, names found at ${sim.httpUrl}`)
    expect(lines.filter((l) => l.startsWith('check --app:'))).toEqual([
      `check --app: ${refused}: names not looked up: the file is refused before its names can be read; ` +
        'fix the errors above and check again',
    ])
    expect(r.code).toBe(EXIT.failure)

    const json = JSON.parse((await check([refused, good], { app: sim.httpUrl, format: 'json' })).out) as {
      app: { notLookedUp: { path: string; reason: string }[] }
    }
    expect(json.app.notLookedUp).toEqual([{ path: refused, reason: expect.stringContaining('the file is refused') }])
  })

  it('looks the names up in a file whose only other errors are listen:’s (it loads)', async () => {
    const path = await file('listen.yaml', MISSPELT.replace('version: 1\n', 'version: 1\nlisten: { host: 0.0.0.0 }\n'))
    const r = await check([path], { app: sim.httpUrl })
    expect(r.out).toContain("the application has no title 'Lower Thrid'")
    expect(r.out).toMatch(/listen/)
    expect(r.out).not.toContain('names not looked up')
  })

  it('an application that does not answer is its own exit code, with the reason, and the files are still checked', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`
    const r = await check([await file('good2.yaml', GOOD)], { app: url })
    expect(r.code).toBe(EXIT.appUnreachable)
    expect(r.err).toMatch(new RegExp(`^panelbridge: check --app: the application at ${url} is not reachable: .+\\n$`))
    expect(r.out).toBe(`${dir}/good2.yaml: ok: 2 bindings on 1 surface\n`)
    // A refused file still says 1: something in it is certainly wrong.
    const both = await check([await file('bad.yaml', 'version: 2\n')], { app: url })
    expect(both.code).toBe(EXIT.failure)
  })
})

describe('several files and --format json', () => {
  it('checks every file; exit 1 when any is refused', async () => {
    const good = await file('one.yaml', GOOD)
    const bad = await file('two.yaml', `${HEAD}  - on: console/key:9\n`)
    const r = await check([good, bad])
    expect(r.out).toBe(
      `${good}: ok: 2 bindings on 1 surface\n` +
        `${bad}:5:9: on: console has no control key:9 (it has key:0–key:7)\n${bad}: refused: 1 error, 0 warnings\n`,
    )
    expect(r.code).toBe(EXIT.failure)
    expect((await check([good, good])).code).toBe(EXIT.ok)
  })

  it('prints one JSON document: per file its path, ok and problems with file, line, col, severity, message', async () => {
    const good = await file('j1.yaml', GOOD)
    const bad = await file('j2.yaml', MISSPELT)
    const r = await check([good, bad], { format: 'json', app: sim.httpUrl })
    const doc = JSON.parse(r.out) as {
      ok: boolean
      files: { path: string; ok: boolean; problems: Record<string, unknown>[] }[]
      app: Record<string, unknown>
    }
    expect(doc.ok).toBe(false)
    expect(doc.files.map((f) => [f.path, f.ok, f.problems.length])).toEqual([
      [good, true, 0],
      [bad, false, 3],
    ])
    expect(doc.files[1]!.problems[0]).toEqual({
      file: bad,
      line: 7,
      col: 24,
      severity: 'error',
      message: "bindings[0].feedback.title: the application has no title 'Lower Thrid' (did you mean 'Lower Third'?)",
    })
    expect(doc.app).toEqual({ url: sim.httpUrl, reachable: true, notes: [], notLookedUp: [] })
    expect(r.code).toBe(EXIT.failure)
  })
})

describe('the command line', () => {
  it('reads files, --app and --format', () => {
    expect(parseCheckArgs(['a.yaml', 'b.yaml', '--app', 'http://127.0.0.1:9022/', '--format', 'json'])).toEqual({
      kind: 'check',
      files: ['a.yaml', 'b.yaml'],
      format: 'json',
      app: 'http://127.0.0.1:9022',
    })
    expect(parseCheckArgs(['a.yaml'])).toEqual({ kind: 'check', files: ['a.yaml'], format: 'text' })
  })

  it.each([
    [[], 'check needs the mapping file'],
    [['a.yaml', '--format', 'xml'], '--format must be text or json'],
    [['a.yaml', '--app', 'ftp://127.0.0.1'], '--app must be an http:// URL'],
    [['a.yaml', '--app', 'not a url'], '--app must be an http:// URL'],
  ])('refuses %j', (argv, message) => {
    const r = parseCheckArgs(argv)
    expect(r.kind === 'error' && r.message).toContain(message)
  })

  it('check --help lists its options and the exit code of an unreachable application', () => {
    for (const text of ['--app URL', '--format', 'FILE...', '3 the application of --app could not be reached'])
      expect(checkCommand.help).toContain(text)
    expect(checkCommand.usage).toBe('check [--app URL] [--format text|json] FILE...')
  })
})
