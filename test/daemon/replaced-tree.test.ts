/**
 * One version per running daemon (issue 40, item 3): an upgrade replaces the installed tree under a
 * running daemon whose restart is held back. Here a built tree (a copy of dist/, package.json, the
 * config folder, node_modules linked) runs the daemon, then is replaced file by file (each file renamed
 * over the old one, as dpkg does) with a tree of another version whose config worker,
 * simulator and page script each leave a mark in a file when they run. Then: a reload, the simulator
 * started, the page loaded. The daemon runs its own version throughout (no mark),
 * or refuses and says a restart is needed; the running mapping stays.
 *
 * Needs `npm run build` (dist/ with its worker bundles), as the other tests of the built daemon.
 */
import { spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { describe, expect, it, onTestFinished } from 'vitest'
import { WORKER_BUNDLES } from '../../scripts/build-workers.mjs'
import { WORKER_BUNDLE_FILES } from '../../src/installed.js'
import { until } from '../helpers/until.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const DIST = join(ROOT, 'dist')
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
/** The version the replacing tree says it is. */
const NEW_VERSION = '9.9.9-replaced'
/** Worker threads and a daemon start on a loaded machine. */
const SLOW = 120_000

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-replaced-'))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A built tree at `dir`: dist/ and package.json copied, config/ and node_modules/ linked. */
function builtTree(dir: string): string {
  if (!existsSync(join(DIST, 'build.json'))) throw new Error('dist/ has no build stamp: run npm run build first')
  cpSync(DIST, join(dir, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') })
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'))
  symlinkSync(join(ROOT, 'config'), join(dir, 'config'))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

/** JavaScript that appends `what` to the mark file (CommonJS or ESM), then fails. */
const marking = (mark: string, what: string, esm: boolean): string =>
  (esm ? `import { appendFileSync } from 'node:fs'\n` : `const { appendFileSync } = require('node:fs')\n`) +
  `appendFileSync(${JSON.stringify(mark)}, ${JSON.stringify(`${what} ${NEW_VERSION}\n`)})\n`

/**
 * Replaces `tree` with another version: every file of a copy in which the config worker and the
 * simulator (bundles and compiled modules alike) and the page script leave a mark in `mark`,
 * package.json and the build stamp say NEW_VERSION, renamed over the tree's own, one by one.
 */
function replaceTree(tree: string, mark: string): void {
  const next = join(dirname(tree), 'next')
  cpSync(join(tree, 'dist'), join(next, 'dist'), { recursive: true })
  const put = (rel: string, text: string): void => writeFileSync(join(next, 'dist', rel), text)
  for (const [name, file] of Object.entries(WORKER_BUNDLE_FILES)) {
    const fail = `throw new Error('${name} of the replacing tree')\n`
    writeFileSync(join(next, 'dist', file), gzipSync(`${marking(mark, name, false)}${fail}`))
    put(file.replace('.bundle.cjs.gz', '.js'), `${marking(mark, name, true)}${fail}`)
  }
  put(
    'app-kit/simulator/index.js',
    `${marking(mark, 'simulator', true)}export async function startSimulator() { throw new Error('replacing tree') }\n`,
  )
  put('surfaces/web/client.bundle.js', `/* the page script of ${NEW_VERSION} */\n`)
  put('build.json', JSON.stringify({ version: NEW_VERSION, id: 'ffffffffffffffff' }))
  const pkg = JSON.parse(readFileSync(join(tree, 'package.json'), 'utf8')) as Record<string, unknown>
  writeFileSync(join(next, 'package.json'), JSON.stringify({ ...pkg, version: NEW_VERSION }))
  const move = (rel: string): void => {
    for (const entry of readdirSync(join(next, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name)
      if (entry.isDirectory()) {
        mkdirSync(join(tree, path), { recursive: true })
        move(path)
      } else renameSync(join(next, path), join(tree, path))
    }
  }
  move('')
}

const marks = (mark: string): string => (existsSync(mark) ? readFileSync(mark, 'utf8') : '')

/** `run` from the built tree, its output collected as lines. */
function runFrom(tree: string, config: string) {
  const child = spawn(join(tree, 'dist', 'cli.js'), ['run', '--config', config], {
    cwd: tree,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onTestFinished(() => void child.kill('SIGKILL'))
  const lines: string[] = []
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(l))
  createInterface({ input: child.stderr }).on('line', (l) => lines.push(l))
  const count = (re: RegExp): number => lines.filter((l) => re.test(l)).length
  return {
    child,
    lines,
    count,
    /** Waits until `re` has been printed `n` times in all. */
    printed: (re: RegExp, n = 1) =>
      until(`${String(re)} ×${n}; output:\n${lines.join('\n')}`, () => count(re) >= n, 60_000),
  }
}

/** A reload's end, whichever way it went. */
const RELOADS = /config reloaded|reload failed/

interface Status {
  version: string
  configState: { state: string; lastGoodLoad?: string; error?: string }
}

const config = (app: string, label: string): string => `version: 1
app: ${app}
listen: { host: 127.0.0.1, port: 0 }
surfaces:
  console: { driver: web, rows: 1, columns: 2 }
bindings:
  - on: console/key:0
    label: ${label}
    press: { command: schedule, params: { action: automatic, title: 'Lower Third' } }
`

describe('a tree replaced under a running daemon', () => {
  it('the worker bundles the daemon reads are the ones the build makes', () => {
    expect(WORKER_BUNDLES.map((w) => [w.name, w.out])).toEqual(
      Object.entries(WORKER_BUNDLE_FILES).map(([name, file]) => [name, join('dist', file)]),
    )
  })

  it(
    'reloads with its own config worker, refuses a reload that would start the simulator from the new tree, serves its own page',
    { timeout: SLOW },
    async () => {
      const dir = tempDir()
      const tree = builtTree(join(dir, 'tree'))
      const mark = join(dir, 'marks.txt')
      const file = join(dir, 'config.yaml')
      // An application port nothing answers on: the daemon runs without the simulator to begin with.
      const app = '{ url: "http://127.0.0.1:9" }'
      writeFileSync(file, config(app, 'one'))
      const daemon = runFrom(tree, file)
      await daemon.printed(/panelbridge running: http:\/\/127\.0\.0\.1:\d+/)
      const base = /panelbridge running: (http:\/\/127\.0\.0\.1:\d+)/.exec(daemon.lines.join('\n'))![1]!
      const status = async (): Promise<Status> => (await (await fetch(`${base}/api/status`)).json()) as Status
      const page = readFileSync(join(tree, 'dist', 'surfaces', 'web', 'client.bundle.js'), 'utf8')

      replaceTree(tree, mark)
      expect(JSON.parse(readFileSync(join(tree, 'package.json'), 'utf8'))).toMatchObject({ version: NEW_VERSION })

      // A save: reloaded by the config worker the daemon read at start.
      writeFileSync(file, config(app, 'two'))
      await daemon.printed(RELOADS, 1)
      const reloaded = await status()
      expect(reloaded.configState.state).toBe('ok')
      expect(reloaded.version).toBe(VERSION)
      expect(marks(mark)).toBe('')

      // The page script is the running version's, whatever is installed now.
      expect(await (await fetch(`${base}/client.js`)).text()).toBe(page)

      // A save that starts the simulator: its code would come from the new tree, so the reload is refused.
      writeFileSync(file, config('{ url: "http://127.0.0.1:0", simulate: true }', 'three'))
      await daemon.printed(/reload failed/, 1)
      const refused = await status()
      expect(refused.configState).toMatchObject({ state: 'refused', lastGoodLoad: reloaded.configState.lastGoodLoad })
      expect(refused.configState.error).toContain(
        `panelbridge was upgraded on disk (${VERSION} → ${NEW_VERSION}): restart the service to use it`,
      )
      // SIGHUP: the same file, the same refusal; the mapping of the second save still runs.
      daemon.child.kill('SIGHUP')
      await daemon.printed(/reload failed/, 2)
      expect((await status()).configState).toMatchObject({ state: 'refused', error: refused.configState.error })
      expect(marks(mark)).toBe('')
    },
  )
})
