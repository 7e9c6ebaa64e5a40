/**
 * `npm run build`'s worker bundles and build stamp (issue 40, one version per running daemon).
 *
 * 1. Each worker thread the daemon starts later (a reload's config worker)
 *    is bundled by esbuild into one self-contained CommonJS file beside its compiled module
 *    (`WORKER_BUNDLES`), gzipped: the daemon reads these files once, when it starts (`src/installed.ts`),
 *    holds them as they are (the config worker's 1.5 MB of JavaScript is 0.3 MB gzipped, resident for
 *    the daemon's life), and starts every worker from that text: a tree replaced under a running daemon
 *    (an upgrade whose restart is held back) never changes what its workers run. Native addons and their loaders stay outside,
 *    required from node_modules when the worker starts: the daemon checks the build stamp first.
 * 2. `dist/build.json`: the version and a hash of what the build made (every runtime file under dist/,
 *    package.json, package-lock.json). The daemon reads it when it starts; a different one on disk later
 *    means the installed tree was replaced, and whatever would still load from disk is refused with
 *    "restart the service".
 *
 * The bundles are rebuilt only when one of their inputs changed (the page bundle's stamp,
 * client-stamp.mjs); `--force` builds regardless. esbuild is imported only to build. Plain JavaScript,
 * so that `npm start`'s check needs node alone.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { buildIfChanged } from './client-stamp.mjs'

/** The worker bundles: entry and output, relative to the package root. Read back by `src/installed.ts`. */
export const WORKER_BUNDLES = [
  {
    name: 'config-worker',
    entry: join('src', 'daemon', 'config-worker.ts'),
    out: join('dist', 'daemon', 'config-worker.bundle.cjs.gz'),
    external: [],
  },
]

/** Native addons and their loaders: never bundled (their binaries are found beside their JavaScript). */
export const NATIVE_EXTERNALS = ['@napi-rs/canvas', '@napi-rs/canvas-*', 'node-hid', 'usb', '@julusian/midi']

/** The worker bundles' stamp (what the last build read), relative to the package root. */
export const WORKER_BUNDLES_STAMP = join('dist', 'worker-bundles.stamp.json')
/** The build stamp the daemon compares, relative to the package root. */
export const BUILD_STAMP = join('dist', 'build.json')

/**
 * What under dist/ the build stamp's hash leaves out: what only the build reads (source maps, tsc's
 * build info, the bundles' stamps) and the stamp itself.
 */
const NOT_RUNTIME = /(\.map|\.d\.ts|\.tsbuildinfo|\.stamp\.json|^build\.json)$/

const here = dirname(fileURLToPath(import.meta.url))

/**
 * esbuild plugin: `import.meta.url` in each of our modules becomes the URL its compiled file has in
 * dist/ (`__pbModuleUrl`, relative to the bundle's own URL, which the daemon gives the bundle when it
 * starts it), so paths found from a module (the config's folder, createRequire) are what they were.
 * @param {string} root
 * @param {string} out
 */
function moduleUrls(root, out) {
  const srcDir = join(root, 'src') + sep
  return {
    name: 'module-urls',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(srcDir)) return undefined
        const compiled = join(root, 'dist', relative(srcDir, args.path)).replace(/\.ts$/, '.js')
        const rel = relative(dirname(join(root, out)), compiled)
          .split(sep)
          .join('/')
        const text = readFileSync(args.path, 'utf8')
        return { contents: text.replaceAll('import.meta.url', `__pbModuleUrl(${JSON.stringify(rel)})`), loader: 'ts' }
      })
    },
  }
}

/**
 * Bundles every worker of WORKER_BUNDLES into `root`; says what it wrote and read.
 * @param {string} root
 * @returns {Promise<{ outputs: string[], inputs: string[] }>}
 */
export async function buildWorkers(root) {
  const esbuild = await import('esbuild')
  const outputs = []
  const inputs = [fileURLToPath(import.meta.url), join(root, 'tsconfig.json')]
  inputs.push(createRequire(import.meta.url).resolve('esbuild/package.json'))
  for (const worker of WORKER_BUNDLES) {
    const result = await esbuild.build({
      entryPoints: [join(root, worker.entry)],
      absWorkingDir: root,
      outfile: join(root, worker.out.replace(/\.gz$/, '')),
      write: false,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: ['node20'],
      // Smaller text held in memory for the daemon's life; names kept for readable stack traces.
      minifyWhitespace: true,
      minifySyntax: true,
      charset: 'ascii',
      legalComments: 'none',
      external: [...NATIVE_EXTERNALS, ...worker.external],
      // The daemon starts the bundle as `(function (require, module, exports, __pbBase) {...})`.
      banner: { js: 'var __pbModuleUrl = (rel) => new URL(rel, __pbBase).href;' },
      plugins: [moduleUrls(root, worker.out)],
      metafile: true,
      logLevel: 'warning',
    })
    const [code] = result.outputFiles
    if (code === undefined) throw new Error(`${worker.entry}: esbuild produced no output`)
    mkdirSync(dirname(join(root, worker.out)), { recursive: true })
    writeFileSync(join(root, worker.out), gzipSync(code.contents, { level: 9 }))
    outputs.push(join(root, worker.out))
    for (const input of Object.keys(result.metafile.inputs)) inputs.push(join(root, input))
    process.stdout.write(`wrote ${worker.out}\n`)
  }
  return { outputs, inputs }
}

/**
 * The runtime files under `dir` (relative to `root`, sorted): what the build stamp's hash covers.
 * @param {string} root
 * @param {string} dir
 * @returns {string[]}
 */
function runtimeFiles(root, dir) {
  const files = []
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...runtimeFiles(root, path))
    else if (!NOT_RUNTIME.test(entry.name)) files.push(path)
  }
  return files.sort()
}

/**
 * Writes `dist/build.json`: package.json's version and a hash of the runtime files under dist/,
 * package.json and package-lock.json (when there is one). The same tree gives the same id.
 * @param {string} root
 * @returns {{ version: string, id: string }}
 */
export function writeBuildStamp(root) {
  const hash = createHash('sha256')
  const files = [...runtimeFiles(root, 'dist'), 'package.json', 'package-lock.json']
  for (const file of files) {
    let content
    try {
      content = readFileSync(join(root, file))
    } catch {
      continue
    }
    hash.update(`${file.split(sep).join('/')}\0${content.length}\0`)
    hash.update(content)
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const stamp = { version: String(version), id: hash.digest('hex').slice(0, 16) }
  const path = join(root, BUILD_STAMP)
  writeFileSync(`${path}.tmp`, `${JSON.stringify(stamp)}\n`)
  renameSync(`${path}.tmp`, path)
  return stamp
}

/**
 * The worker bundles when an input changed (or `force`), then the build stamp.
 * @param {string} root
 * @param {{ force?: boolean }} [options]
 */
export async function buildWorkersChanged(root, { force = false } = {}) {
  const outcome = await buildIfChanged({
    root,
    stamp: join(root, WORKER_BUNDLES_STAMP),
    force,
    build: () => buildWorkers(root),
  })
  if (outcome === 'skipped') process.stdout.write('worker bundles up to date (their inputs are unchanged)\n')
  const stamp = writeBuildStamp(root)
  process.stdout.write(`build ${stamp.version} (${stamp.id})\n`)
}

const main = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href
if (main) await buildWorkersChanged(join(here, '..'), { force: process.argv.includes('--force') })
