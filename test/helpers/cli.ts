/**
 * Running panelbridge as its own process, the way it is deployed: `node dist/cli.js <args>`, the built
 * program (`npm test` builds before vitest). The built daemon starts its worker threads (the reload's
 * config worker among them) without compiling TypeScript on the way, so a loaded machine does not eat
 * the daemon's own bounds (the reload's) before the code under test runs. Scripts (`runNode`) still run
 * under tsx. The child is killed (SIGKILL) when the test finishes, whatever happened; its stdout and stderr
 * are collected as text and as lines, and `waitFor` waits on what it prints (the explicit signal a process
 * test waits for).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { onTestFinished, vi } from 'vitest'
import { SAFETY_MS, until } from './until.js'

/** The CLI's source entry point (tsx runs it; no build needed). */
export const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url))
/** The built CLI, as installed (`npm run build`). */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url))
const SRC = fileURLToPath(new URL('../../src/', import.meta.url))
const BUILD_STAMP = fileURLToPath(new URL('../../dist/build.json', import.meta.url))
/** tsx as a file URL, so that `--import` finds it from any working directory. */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

export interface CliChild {
  child: ChildProcess
  /** Everything printed so far, stdout then stderr as they arrived. */
  out(): string
  stdout(): string
  stderr(): string
  /** Complete lines printed so far (both streams, in arrival order). */
  lines: string[]
  /** The exit code (null when ended by a signal). */
  exited: Promise<number | null>
  /** Waits until the output matches `re` (fails early, with the output, if the process exits first). */
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>
}

export interface CliOptions {
  cwd?: string
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv
}

/** The newest modification time of a file under `dir`. */
function newest(dir: string): number {
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs)
  }
  return t
}

let checkedBuild = false
/**
 * Fails, saying what to run, when there is no build or src/ changed after it: a test of the built
 * program must not pass or fail on yesterday's code.
 */
export function assertBuilt(): void {
  if (checkedBuild) return
  if (!existsSync(BUILD_STAMP)) throw new Error('dist/ has no build stamp: run npm run build first')
  if (newest(SRC) > statSync(BUILD_STAMP).mtimeMs)
    throw new Error('src/ changed after the last build: run npm run build')
  checkedBuild = true
}

/** Starts `panelbridge <args>`: the built program. */
export function runCli(args: readonly string[], options: CliOptions = {}): CliChild {
  assertBuilt()
  return collect([BUILT_CLI, ...args], options)
}

/** Starts `node --import tsx <args>` (a script, or `-e` code), collected and killed as `runCli` is. */
export function runNode(args: readonly string[], options: CliOptions = {}): CliChild {
  return collect(['--import', TSX_LOADER, ...args], options)
}

/** Starts `node <args>`, collected and killed when the test finishes. */
function collect(args: readonly string[], options: CliOptions): CliChild {
  const child = spawn(process.execPath, [...args], {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onTestFinished(() => void child.kill('SIGKILL'))
  let all = ''
  let out = ''
  let err = ''
  const lines: string[] = []
  child.stdout.on('data', (b: Buffer) => {
    all += b.toString()
    out += b.toString()
  })
  child.stderr.on('data', (b: Buffer) => {
    all += b.toString()
    err += b.toString()
  })
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr }).on('line', (l) => lines.push(l))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  // 'close' comes after the last output of both streams ('exit' may come before it).
  let gone = false
  child.once('close', () => (gone = true))
  return {
    child,
    out: () => all,
    stdout: () => out,
    stderr: () => err,
    lines,
    exited,
    async waitFor(re, ms = SAFETY_MS) {
      let m: RegExpExecArray | null = null
      await until(`${String(re)} in the output`, () => (m = re.exec(all)) !== null || gone, ms)
      if (m === null) throw new Error(`exited before printing ${String(re)}; output:\n${all}`)
      return m
    },
  }
}

/** Runs the CLI in this process (its `main`) with stdout and stderr captured, the mocks restored after. */
export async function cliInProcess(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true))
  try {
    // Loaded here: the tests that only spawn the CLI need not load it in their own process.
    const { main } = await import('../../src/cli.js')
    const code = await main(argv)
    return { code, out, err }
  } finally {
    vi.restoreAllMocks()
  }
}
