/**
 * `npm start` (`node scripts/start.mjs run [ARG ...]`): build what changed, then run `./dist/cli.js` with
 * the arguments, in one node process (issue 29, `npm start` twice: a second start of an unchanged tree
 * is ready in under 2 s). It does what `npm run build && ./dist/cli.js run` did, in the same order, and
 * spares a second npm (≈0.33 s), `tsc -b` when nothing it reads changed (≈0.38 s) and a node for the
 * page bundle's stamp check (≈0.16 s, measured for issue 29):
 *
 * 1. TypeScript: `tsc -b tsconfig.build.json`, exactly as `npm run build` runs it, unless nothing it reads
 *    is newer than its build info (`typescriptUpToDate`). The build itself stays TypeScript's.
 * 2. The page bundle: the stamp check of client-stamp.mjs, here in process; only a stale bundle starts
 *    `build-client-changed.mjs --force` (tsx and esbuild are loaded in that child, not in this process,
 *    which lives as long as the daemon).
 * 3. `chmod +x dist/cli.js`, as the build script does.
 * 4. The worker bundles, by their stamp as the page bundle (`build-workers.mjs --force` in a child when
 *    stale), and the build stamp `dist/build.json` again when anything was built or it is missing.
 * 5. `./dist/cli.js ARG ...` as a child (its launcher gives the daemon its V8 flags), stdio inherited;
 *    this process passes the signals on (`runForwarding`) and leaves with the child's exit code, or by
 *    its signal.
 *
 * Plain JavaScript so that it needs node alone. A failed build step ends it with that step's code,
 * before the daemon, as `&&` did.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync, readdirSync, realpathSync, statSync, utimesSync } from 'node:fs'
import { createRequire } from 'node:module'
import { constants } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BUILD_STAMP, WORKER_BUNDLES_STAMP, writeBuildStamp } from './build-workers.mjs'
import { PAGE_BUNDLE_STAMP, stampFresh } from './client-stamp.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const ROOT = join(here, '..')

/**
 * What `tsc -b tsconfig.build.json` reads, as tsconfig.build.json says (a test holds the two together):
 * the build info of its last part (the command line's, `src/tsconfig.cli.json`, which every part the
 * daemon runs comes before: tsc -b leaves it as it was when any of them fails), the folder its parts
 * include (their own tsconfig files are in it), and the files that shape their options (package.json's
 * `type` decides the module format under NodeNext).
 */
export const TS_BUILD = {
  buildInfo: join('dist', 'tsconfig.cli.tsbuildinfo'),
  sources: ['src'],
  configs: ['tsconfig.json', 'tsconfig.parts.json', 'tsconfig.build.json', 'package.json'],
  /** What must exist for the build to count as done (the program this script runs). */
  outputs: [join('dist', 'cli.js')],
}

/**
 * The build info's top-level keys after a clean build, nothing pending (TypeScript 5.9). A key beyond
 * these (`semanticDiagnosticsPerFile` after a type error, `affectedFilesPendingEmit`, `errors`, ...)
 * means the last build did not finish clean, and `tsc -b` runs again (it reports the errors again and
 * fails, as every `npm run build` did). An unknown key costs only a `tsc -b`, never a skipped build.
 */
const CLEAN_BUILD_INFO_KEYS = new Set([
  'fileNames',
  'fileIdsList',
  'fileInfos',
  'root',
  'options',
  'referencedMap',
  'version',
  'emitSignatures',
  'latestChangedDtsFile',
])
/** A build info is a few hundred kilobytes here; a larger one is not read, and tsc decides. */
const BUILD_INFO_MAX_BYTES = 64 * 1024 * 1024
/** The scan of the sources gives up (and tsc decides) past this many entries: a tree gone wrong. */
const SCAN_MAX_ENTRIES = 100_000
/**
 * How far before a `tsc -b` that emitted nothing its build info's time is set (see `markBuilt`): more
 * than the kernel's coarse file clock lags `Date.now()` (a few ms), and than the coarsest file times
 * (2 s on FAT). ASSUMED (issue 29): a margin only makes the next check more careful, never less.
 */
const MARK_MARGIN_MS = 2_000

/**
 * The first path under `dir` (the folder itself, a folder or a file in it) modified at or after
 * `since` (ms); undefined when none. A folder's time changes when a file in it is added, removed or
 * renamed, so a removed source counts too. Throws past `budget.left` entries.
 * @param {string} dir
 * @param {number} since
 * @param {{ left: number }} budget
 * @returns {string | undefined}
 */
function newerUnder(dir, since, budget) {
  if (statSync(dir).mtimeMs >= since) return dir
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (--budget.left < 0) throw new Error(`more than ${SCAN_MAX_ENTRIES} entries`)
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      const newer = newerUnder(path, since, budget)
      if (newer !== undefined) return newer
    } else if (statSync(path).mtimeMs >= since) return path
  }
  return undefined
}

/** The installed TypeScript's version, or null when it cannot be found. */
function installedTypeScript() {
  try {
    const require = createRequire(import.meta.url)
    const { version } = JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8'))
    return typeof version === 'string' ? version : null
  } catch {
    return null
  }
}

/**
 * Whether `tsc -b` would find nothing to do: its build info exists, is of this TypeScript, records a
 * clean build, and nothing it reads (the configs, every folder and file under the sources) is as new
 * as the build info or newer. `tsc -b`'s own check compares the same times (and the TypeScript
 * version); it is only cheaper here because no TypeScript is loaded. When in doubt, not up to date.
 * @param {string} root
 * @param {{ buildInfo: string, sources: readonly string[], configs: readonly string[],
 *   outputs: readonly string[] }} [build]
 * @param {string | null} [typescript] the installed TypeScript's version (null: none found)
 * @returns {{ upToDate: boolean, why: string }}
 */
export function typescriptUpToDate(root, build = TS_BUILD, typescript = installedTypeScript()) {
  const stale = (why) => ({ upToDate: false, why })
  const infoPath = join(root, build.buildInfo)
  let since
  let info
  try {
    const stat = statSync(infoPath)
    if (stat.size > BUILD_INFO_MAX_BYTES) return stale(`${build.buildInfo} is too large to read`)
    since = stat.mtimeMs
    info = JSON.parse(readFileSync(infoPath, 'utf8'))
  } catch {
    return stale(`no readable ${build.buildInfo}`)
  }
  if (info === null || typeof info !== 'object' || Array.isArray(info))
    return stale(`${build.buildInfo} is not a build info`)
  if (typescript === null || info.version !== typescript) return stale('another TypeScript built it')
  if (Object.keys(info).some((key) => !CLEAN_BUILD_INFO_KEYS.has(key)))
    return stale('the last build left errors or work')
  for (const output of build.outputs) {
    try {
      statSync(join(root, output))
    } catch {
      return stale(`${output} is missing`)
    }
  }
  try {
    for (const config of build.configs) {
      if (statSync(join(root, config)).mtimeMs >= since) return stale(`${config} changed`)
    }
    const budget = { left: SCAN_MAX_ENTRIES }
    for (const source of build.sources) {
      const newer = newerUnder(join(root, source), since, budget)
      if (newer !== undefined) return stale(`${relative(root, newer)} changed`)
    }
  } catch (err) {
    return stale(`cannot scan: ${err instanceof Error ? err.message : String(err)}`)
  }
  return { upToDate: true, why: `nothing newer than ${build.buildInfo}` }
}

/**
 * After a `tsc -b` that succeeded: its build info is at least as new as the build's start (less the
 * margin). `tsc -b` rewrites the build info when it emits, and touches it when a changed time hid
 * unchanged text, but a change to a file it does not read (the page's sources under src/) leaves it as
 * it was, and every later start would run `tsc -b` again. Everything older than the build's start was
 * on disk when tsc read it, so the next check stays exact; the time only ever moves forward.
 * @param {string} root
 * @param {number} startedAt `Date.now()` before `tsc -b` started
 * @param {string} [buildInfo]
 */
export function markBuilt(root, startedAt, buildInfo = TS_BUILD.buildInfo) {
  const path = join(root, buildInfo)
  const at = startedAt - MARK_MARGIN_MS
  try {
    const stat = statSync(path)
    if (stat.mtimeMs < at) utimesSync(path, stat.atime, new Date(at))
  } catch {
    // No build info to mark: the next start runs tsc -b, which is all this would have spared.
  }
}

/**
 * Whether the process whose /proc/PID/stat reads `stat` is in its terminal's foreground process group
 * (pgrp equal to tpgid). False without a terminal (tpgid -1) or when the text does not parse.
 * @param {string} stat
 */
export function foregroundOf(stat) {
  // After the command's name, which may hold spaces and parentheses: state ppid pgrp session tty tpgid.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const pgrp = Number(fields[2])
  const tpgid = Number(fields[5])
  return Number.isInteger(tpgid) && tpgid > 0 && tpgid === pgrp
}

/**
 * Whether this process is in its terminal's foreground process group (Linux). A terminal sends Ctrl+C's
 * SIGINT, and SIGHUP when it closes, to that whole group, the child included (it shares the group):
 * passed on too, the daemon would see each twice. False when unknown.
 */
export function inTerminalForeground() {
  try {
    return foregroundOf(readFileSync('/proc/self/stat', 'utf8'))
  } catch {
    return false
  }
}

/** The signals passed on to the child. SIGTERM always; SIGINT and SIGHUP unless a terminal sent them to it too. */
export const FORWARDED_SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])
const TERMINAL_SIGNALS = new Set(['SIGINT', 'SIGHUP'])

/**
 * Runs `command args` as a child with stdio inherited and passes SIGINT, SIGTERM and SIGHUP on to it
 * while it runs (see `inTerminalForeground` for the two a terminal already gave it). This process does
 * not end by those signals meanwhile: it waits for the child, whose stop may take a while.
 * @param {string} command
 * @param {readonly string[]} args
 * @param {{ foreground?: () => boolean, stdio?: import('node:child_process').StdioOptions }} [options]
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null }>}
 */
export function runForwarding(command, args, { foreground = inTerminalForeground, stdio = 'inherit' } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio })
    const forward = (signal) => {
      if (TERMINAL_SIGNALS.has(signal) && foreground()) return
      // The child may have just exited (its exit not yet seen here): nothing to pass on to.
      try {
        child.kill(signal)
      } catch {
        // ESRCH
      }
    }
    const listen = (on) => {
      for (const signal of FORWARDED_SIGNALS) on ? process.on(signal, forward) : process.off(signal, forward)
    }
    listen(true)
    child.once('error', (err) => {
      listen(false)
      reject(err)
    })
    child.once('exit', (code, signal) => {
      listen(false)
      resolve({ code, signal })
    })
  })
}

/**
 * Leaves as the child left: with its code, or by its signal (raised again here, its listeners gone, so
 * the parent sees the same death); 128 + the signal's number when the signal is ignored in this process.
 * @param {{ code: number | null, signal: NodeJS.Signals | null }} outcome
 */
export function exitLike({ code, signal }) {
  if (signal !== null) {
    process.kill(process.pid, signal)
    process.exit(128 + (constants.signals[signal] ?? 0))
  }
  process.exit(code ?? 1)
}

/**
 * Runs one build step as the build script would, output to this terminal; leaves with its code when it
 * fails (the daemon does not start, as after `&&`).
 * @param {string} label what is printed, as npm prints a script
 * @param {string[]} args node's arguments
 */
function step(label, args) {
  process.stdout.write(`> ${label}\n`)
  const done = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' })
  if (done.error) throw done.error
  if (done.status !== 0) exitLike({ code: done.status, signal: done.signal })
}

/** Builds what changed (see the module's comment). */
function build() {
  const ts = typescriptUpToDate(ROOT)
  let built = !ts.upToDate
  if (ts.upToDate) process.stdout.write(`TypeScript build up to date (${ts.why})\n`)
  else {
    const startedAt = Date.now()
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
    step(`tsc -b tsconfig.build.json (${ts.why})`, [tsc, '-b', 'tsconfig.build.json'])
    markBuilt(ROOT, startedAt)
  }
  const cli = join(ROOT, 'dist', 'cli.js')
  // chmod +x: what the umask allows.
  const mode = statSync(cli).mode
  const x = 0o111 & ~process.umask()
  if ((mode & x) !== x) chmodSync(cli, mode | x)
  if (stampFresh(ROOT, join(ROOT, PAGE_BUNDLE_STAMP))) {
    process.stdout.write('page bundle up to date (its inputs are unchanged)\n')
  } else {
    step('page bundle (an input changed)', [join(here, 'build-client-changed.mjs'), '--force'])
    built = true
  }
  if (stampFresh(ROOT, join(ROOT, WORKER_BUNDLES_STAMP))) {
    process.stdout.write('worker bundles up to date (their inputs are unchanged)\n')
    // The bundles' script writes the build stamp after them; here, after what else was built.
    if (built || !existsSync(join(ROOT, BUILD_STAMP))) writeBuildStamp(ROOT)
  } else step('worker bundles (an input changed)', [join(here, 'build-workers.mjs'), '--force'])
  return cli
}

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
if (main) {
  const cli = build()
  exitLike(await runForwarding(cli, process.argv.slice(2)))
}
