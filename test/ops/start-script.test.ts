/**
 * `npm start` (scripts/start.mjs, issue 29 `npm start` twice): when `tsc -b` is skipped, and how the
 * daemon's process is run (signals passed on, its exit code or signal passed back). The up-to-date
 * decision over a folder of its own with explicit file times (no waiting on the clock), once against a
 * real TypeScript build (so a build info of another shape shows here); the signals with a small child
 * behind the real forwarding code, in a process of its own (signals sent to the test's process would
 * reach vitest).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'
import { describe, expect, it, onTestFinished } from 'vitest'
import { foregroundOf, markBuilt, TS_BUILD, typescriptUpToDate } from '../../scripts/start.mjs'
import { until } from '../helpers/until.js'

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const START = pathToFileURL(join(REPO, 'scripts', 'start.mjs')).href
const VERSION = '5.9.3'
/** Every time in these trees is set explicitly, relative to now: the sources 100 s ago, the build info 50 s ago. */
const NOW = Date.now()
const ago = (seconds: number): Date => new Date(NOW - seconds * 1000)

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Sets a path's modification time (a folder's too). */
function age(path: string, seconds: number): void {
  utimesSync(path, ago(seconds), ago(seconds))
}

/** A built tree as tsc -b leaves it: sources and configs 100 s old, the build info and dist/cli.js 50 s old. */
function builtTree(info: Record<string, unknown> = { fileNames: [], root: [], version: VERSION }): string {
  const root = tempDir('pb-start-')
  mkdirSync(join(root, 'src', 'sub'), { recursive: true })
  mkdirSync(join(root, 'dist'))
  writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1\n')
  writeFileSync(join(root, 'src', 'sub', 'b.ts'), 'export const b = 2\n')
  for (const config of TS_BUILD.configs) writeFileSync(join(root, config), '{}\n')
  writeFileSync(join(root, TS_BUILD.buildInfo), JSON.stringify(info))
  writeFileSync(join(root, 'dist', 'cli.js'), '')
  for (const path of ['src/a.ts', 'src/sub/b.ts', 'src/sub', 'src', ...TS_BUILD.configs]) age(join(root, path), 100)
  age(join(root, TS_BUILD.buildInfo), 50)
  age(join(root, 'dist', 'cli.js'), 50)
  return root
}

const check = (root: string, version = VERSION): { upToDate: boolean; why: string } =>
  typescriptUpToDate(root, TS_BUILD, version)

describe('npm start skips tsc -b only when nothing it reads is newer than its build info', () => {
  it('nothing newer: skipped', () => {
    expect(check(builtTree())).toEqual({ upToDate: true, why: `nothing newer than ${TS_BUILD.buildInfo}` })
  })

  it('a source edited after the build: built', () => {
    const root = builtTree()
    age(join(root, 'src', 'sub', 'b.ts'), 10)
    expect(check(root)).toEqual({ upToDate: false, why: 'src/sub/b.ts changed' })
  })

  it('a source with the build info’s own time counts as newer (written in the same clock tick)', () => {
    const root = builtTree()
    age(join(root, 'src', 'a.ts'), 50)
    expect(check(root).upToDate).toBe(false)
  })

  it('a new file with an old time (moved in, or unpacked) shows by its folder: built', () => {
    const root = builtTree()
    writeFileSync(join(root, 'src', 'sub', 'c.ts'), 'export const c = 3\n')
    age(join(root, 'src', 'sub', 'c.ts'), 200)
    expect(check(root)).toEqual({ upToDate: false, why: 'src/sub changed' })
  })

  it('a removed source: built', () => {
    const root = builtTree()
    rmSync(join(root, 'src', 'sub', 'b.ts'))
    expect(check(root)).toEqual({ upToDate: false, why: 'src/sub changed' })
  })

  it('a config or package.json edited: built', () => {
    for (const config of TS_BUILD.configs) {
      const root = builtTree()
      age(join(root, config), 10)
      expect(check(root)).toEqual({ upToDate: false, why: `${config} changed` })
    }
  })

  it('no build info, an unreadable one, or dist/cli.js missing: built', () => {
    const missing = builtTree()
    rmSync(join(missing, TS_BUILD.buildInfo))
    expect(check(missing)).toEqual({ upToDate: false, why: `no readable ${TS_BUILD.buildInfo}` })

    const garbled = builtTree()
    writeFileSync(join(garbled, TS_BUILD.buildInfo), '{"fileNames": [')
    age(join(garbled, TS_BUILD.buildInfo), 50)
    expect(check(garbled).upToDate).toBe(false)

    const noCli = builtTree()
    rmSync(join(noCli, 'dist', 'cli.js'))
    expect(check(noCli)).toEqual({ upToDate: false, why: 'dist/cli.js is missing' })
  })

  it('a build info of another TypeScript, or none installed: built', () => {
    expect(check(builtTree(), '5.8.2')).toEqual({ upToDate: false, why: 'another TypeScript built it' })
    expect(typescriptUpToDate(builtTree(), TS_BUILD, null).upToDate).toBe(false)
  })

  it('a last build that left type errors or pending work: built (tsc -b reports them again and fails)', () => {
    const errors = { fileNames: [], version: VERSION, semanticDiagnosticsPerFile: [[1, []]] }
    expect(check(builtTree(errors))).toEqual({ upToDate: false, why: 'the last build left errors or work' })
    const pending = { fileNames: [], version: VERSION, affectedFilesPendingEmit: [1] }
    expect(check(builtTree(pending)).upToDate).toBe(false)
  })

  it('markBuilt brings an older build info up to the build’s start less the margin, never back', () => {
    const root = builtTree()
    const info = join(root, TS_BUILD.buildInfo)
    markBuilt(root, NOW - 20_000)
    expect(Math.round(statSync(info).mtimeMs)).toBe(NOW - 22_000)
    // A build info written after the start (tsc emitted) keeps its time.
    age(info, 1)
    markBuilt(root, NOW - 20_000)
    expect(Math.round(statSync(info).mtimeMs)).toBe(NOW - 1000)
  })

  it('what the script reads is what tsconfig.build.json names', () => {
    const read = (file: string): ts.ParsedCommandLine => {
      const { config } = ts.readConfigFile(file, (path) => ts.sys.readFile(path))
      return ts.parseJsonConfigFileContent(config, ts.sys, dirname(file), undefined, file)
    }
    const build = read(join(REPO, 'tsconfig.build.json'))
    const parts = (build.projectReferences ?? []).map((r) => r.path)
    const cli = parts.find((p) => p.endsWith('tsconfig.cli.json'))!
    expect(ts.getTsBuildInfoEmitOutputFilePath(read(cli).options)).toBe(join(REPO, TS_BUILD.buildInfo))
    for (const part of parts) {
      for (const file of read(part).fileNames) expect(relative(REPO, file).split(sep)[0]).toBe(TS_BUILD.sources[0])
    }
    expect(TS_BUILD.configs.map((c) => join(REPO, c))).toEqual(
      expect.arrayContaining([
        join(REPO, 'tsconfig.build.json'),
        join(REPO, 'tsconfig.parts.json'),
        join(REPO, 'tsconfig.json'),
        join(REPO, 'package.json'),
      ]),
    )
    expect(ts.version).toBe(
      JSON.parse(readFileSync(join(REPO, 'node_modules/typescript/package.json'), 'utf8')).version,
    )
  })
})

describe('against a real TypeScript build', () => {
  /** A small incremental project laid out as tsconfig.build.json is, built with the solution builder (tsc -b's). */
  function project(): { root: string; build: () => number } {
    const root = tempDir('pb-start-ts-')
    mkdirSync(join(root, 'src', 'page'), { recursive: true })
    writeFileSync(join(root, 'src', 'cli.ts'), 'export const answer: number = 42\n')
    writeFileSync(join(root, 'src', 'page', 'notes.md'), 'not read by tsc\n')
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n')
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', lib: ['es5'], types: [], skipLibCheck: true },
      }),
    )
    // What the parts share: read by none of this one-part build, but a config the script watches.
    writeFileSync(join(root, 'tsconfig.parts.json'), '{}\n')
    const buildOptions = { rootDir: 'src', outDir: 'dist', incremental: true, tsBuildInfoFile: TS_BUILD.buildInfo }
    writeFileSync(
      join(root, 'tsconfig.build.json'),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: buildOptions, include: ['src'] }),
    )
    const build = (): number => {
      const host = ts.createSolutionBuilderHost(
        ts.sys,
        undefined,
        () => undefined,
        () => undefined,
      )
      return ts.createSolutionBuilder(host, [join(root, 'tsconfig.build.json')], {}).build()
    }
    return { root, build }
  }
  /** Every file and folder of the project (the build's output aside) made `seconds` old. */
  function ageSources(root: string, seconds: number): void {
    for (const path of ['src/cli.ts', 'src/page/notes.md', 'src/page', 'src', ...TS_BUILD.configs]) {
      age(join(root, path), seconds)
    }
  }

  it('clean build: up to date; a type error recorded: not, until a clean build again', () => {
    const { root, build } = project()
    ageSources(root, 100)
    expect(build()).toBe(ts.ExitStatus.Success)
    expect(typescriptUpToDate(root, TS_BUILD, ts.version)).toEqual({
      upToDate: true,
      why: `nothing newer than ${TS_BUILD.buildInfo}`,
    })

    // Each edit newer than the build info, as an edit after a build is (tsc -b compares the same times).
    age(join(root, TS_BUILD.buildInfo), 95)
    writeFileSync(join(root, 'src', 'cli.ts'), "export const answer: number = 'forty-two'\n")
    age(join(root, 'src', 'cli.ts'), 90)
    expect(build()).not.toBe(ts.ExitStatus.Success)
    expect(typescriptUpToDate(root, TS_BUILD, ts.version)).toEqual({
      upToDate: false,
      why: 'the last build left errors or work',
    })

    age(join(root, TS_BUILD.buildInfo), 85)
    writeFileSync(join(root, 'src', 'cli.ts'), 'export const answer: number = 42\n')
    age(join(root, 'src', 'cli.ts'), 80)
    expect(build()).toBe(ts.ExitStatus.Success)
    expect(typescriptUpToDate(root, TS_BUILD, ts.version).upToDate).toBe(true)
  })

  it('a changed file tsc does not read: its build leaves the build info as it was; markBuilt settles it', () => {
    const { root, build } = project()
    ageSources(root, 100)
    expect(build()).toBe(ts.ExitStatus.Success)
    age(join(root, TS_BUILD.buildInfo), 60)
    age(join(root, 'src', 'page', 'notes.md'), 30)
    expect(typescriptUpToDate(root, TS_BUILD, ts.version)).toEqual({
      upToDate: false,
      why: 'src/page/notes.md changed',
    })
    const startedAt = Date.now()
    expect(build()).toBe(ts.ExitStatus.Success)
    // tsc -b found nothing to do and left its build info 60 s old: every start would run it again.
    expect(Math.round(statSync(join(root, TS_BUILD.buildInfo)).mtimeMs)).toBe(ago(60).getTime())
    markBuilt(root, startedAt)
    expect(typescriptUpToDate(root, TS_BUILD, ts.version).upToDate).toBe(true)
  })
})

describe('the daemon runs as a child: signals passed on, its end passed back', () => {
  /**
   * Runs scripts/start.mjs's runForwarding and exitLike in a process of their own, around a child that
   * says which signals it got: SIGINT and SIGHUP are reported, SIGTERM ends it with code 7 (mode
   * `die`: by the signal itself), mode `exit5` leaves at once with 5.
   */
  function wrapped(mode: string, foreground = false): { wrapper: ChildProcess; out: () => string } {
    const dir = tempDir('pb-start-sig-')
    const child = join(dir, 'child.mjs')
    writeFileSync(
      child,
      `const mode = process.argv[2]
for (const s of ['SIGINT', 'SIGHUP']) process.on(s, () => process.stdout.write('got ' + s + '\\n'))
process.on('SIGTERM', () => {
  process.stdout.write('got SIGTERM\\n')
  if (mode !== 'die') process.exit(7)
  process.removeAllListeners('SIGTERM')
  process.kill(process.pid, 'SIGTERM')
})
setInterval(() => {}, 60_000)
process.stdout.write('ready\\n')
if (mode === 'exit5') process.exit(5)
`,
    )
    const code = `import { exitLike, runForwarding } from ${JSON.stringify(START)}
exitLike(await runForwarding(process.execPath, [${JSON.stringify(child)}, ${JSON.stringify(mode)}], { foreground: () => ${foreground} }))`
    const wrapper = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    onTestFinished(() => void wrapper.kill('SIGKILL'))
    let text = ''
    wrapper.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
    return { wrapper, out: () => text }
  }
  const ended = (p: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
    new Promise((done) => p.once('exit', (code, signal) => done({ code, signal })))

  it('SIGHUP and SIGINT reach the child, the wrapper stays; SIGTERM ends it and its code comes back', async () => {
    const { wrapper, out } = wrapped('stay')
    const end = ended(wrapper)
    await until('the child ready', () => out().includes('ready'))
    wrapper.kill('SIGHUP')
    await until('SIGHUP passed on', () => out().includes('got SIGHUP'))
    wrapper.kill('SIGINT')
    await until('SIGINT passed on', () => out().includes('got SIGINT'))
    wrapper.kill('SIGTERM')
    expect(await end).toEqual({ code: 7, signal: null })
    expect(out()).toBe('ready\ngot SIGHUP\ngot SIGINT\ngot SIGTERM\n')
  })

  it('a child that dies by its signal: the wrapper dies by the same signal', async () => {
    const { wrapper, out } = wrapped('die')
    const end = ended(wrapper)
    await until('the child ready', () => out().includes('ready'))
    wrapper.kill('SIGTERM')
    expect(await end).toEqual({ code: null, signal: 'SIGTERM' })
    expect(out()).toBe('ready\ngot SIGTERM\n')
  })

  it('a child that leaves on its own: its exit code', async () => {
    const { wrapper, out } = wrapped('exit5')
    expect(await ended(wrapper)).toEqual({ code: 5, signal: null })
    expect(out()).toBe('ready\n')
  })

  it('in the terminal’s foreground group, SIGINT and SIGHUP are not passed on (the terminal gave them to the child)', async () => {
    const { wrapper, out } = wrapped('stay', true)
    const end = ended(wrapper)
    await until('the child ready', () => out().includes('ready'))
    wrapper.kill('SIGINT')
    wrapper.kill('SIGHUP')
    // SIGTERM, sent last, is passed on: the wrapper survived the other two and the child saw only it.
    wrapper.kill('SIGTERM')
    expect(await end).toEqual({ code: 7, signal: null })
    expect(out()).toBe('ready\ngot SIGTERM\n')
  })

  it('reads the foreground from /proc/PID/stat, a command name with spaces and parentheses included', () => {
    expect(foregroundOf('4242 (node) S 4200 4242 4100 34816 4242 4194304 0 0')).toBe(true)
    expect(foregroundOf('4242 (a) b (c) S 4200 4242 4100 34816 4242 4194304 0 0')).toBe(true)
    // In the background of its terminal, or without one (tpgid -1).
    expect(foregroundOf('4242 (node) S 4200 4242 4100 34816 4300 4194304 0 0')).toBe(false)
    expect(foregroundOf('4242 (node) S 4200 4242 4242 0 -1 4194304 0 0')).toBe(false)
    expect(foregroundOf('garbage')).toBe(false)
  })
})
