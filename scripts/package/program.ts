/**
 * The program in the package's staging tree for one architecture: dist/ (npm run build) and the
 * production dependencies under /usr/lib/panelbridge, with the native modules for that architecture.
 *
 * The five native modules, checked one by one (issue 25, item 1):
 * - @napi-rs/canvas ships one optional package per platform (@napi-rs/canvas-linux-arm64-gnu, ...):
 *   npm's --os/--cpu/--libc pick the target's at install time.
 * - node-hid, usb, @julusian/midi and @julusian/jpeg-turbo carry every platform's prebuilt binary inside
 *   their own tarball (prebuilds/<platform>-<arch>/): the other platforms' folders are pruned here.
 *   Their install scripts only verify or build for the machine that runs npm, so they are skipped
 *   (--ignore-scripts): the prebuilt binary is the one that ships.
 * Then every .node file left is checked to be an ELF object for the target (readelf reads any
 * architecture's), and what each links is read back for the package's Depends.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join, relative } from 'node:path'
import { LIB_DIR, NODE_ARCH, REPO_ROOT, filesUnder, type DebArch } from './layout.js'
import { pruneToRuntime, runtimeGraph } from './runtime.js'

/** readelf's Machine line for each target. */
const ELF_MACHINE: Record<DebArch, string> = { amd64: 'Advanced Micro Devices X86-64', arm64: 'AArch64' }

/** The modules with every platform's binaries inside, and the folder that holds them. */
const PREBUILT_INSIDE = ['node-hid', 'usb', '@julusian/midi', '@julusian/jpeg-turbo'] as const
/** Build-only sources inside those modules (C/C++ trees node-gyp or cmake-js would compile). */
const BUILD_ONLY = [
  'node-hid/hidapi',
  'node-hid/src',
  'usb/libusb',
  'usb/src',
  'usb/test',
  '@julusian/midi/vendor',
  '@julusian/midi/src-cpp',
  '@julusian/jpeg-turbo/src',
]

/** Files no module reads at run time that lintian rightly flags: linters', npm's and git's dotfiles, editor backups. */
const JUNK = /^(\.eslintrc(\..*)?|\.npmignore|\.gitattributes|\.gitignore|\.travis\.yml|\.editorconfig|.*~)$/
/** pino's documentation site page (loads scripts from CDNs; nothing requires it). */
const DOC_ONLY = ['pino/index.html']

/**
 * The key font (src/surfaces/render/fonts.ts: DejaVu Sans Bold) comes from Debian's fonts-dejavu-core
 * (the same DejaVu 2.37 as the npm package): the file becomes a link to it and the module's other fonts
 * go, as Debian wants one copy of a font on a system.
 */
export const KEY_FONT = { module: 'dejavu-fonts-ttf/ttf', file: 'DejaVuSans-Bold.ttf', package: 'fonts-dejavu-core' }
export const SYSTEM_FONT_DIR = '/usr/share/fonts/truetype/dejavu'

/**
 * ASSUMED (checked with readelf -d on each shipped .node, issue 25): the Debian package that provides
 * each library a native module links. A library not listed stops the build, so a new need is never
 * dropped silently. null: bundled beside the module (jpeg-turbo's own libturbojpeg, found by $ORIGIN).
 */
export const SONAME_PACKAGE: Record<string, string | null> = {
  'libc.so.6': 'libc6',
  'libm.so.6': 'libc6',
  'libdl.so.2': 'libc6',
  'librt.so.1': 'libc6',
  'libpthread.so.0': 'libc6',
  'ld-linux-x86-64.so.2': 'libc6',
  'ld-linux-aarch64.so.1': 'libc6',
  'libstdc++.so.6': 'libstdc++6',
  'libgcc_s.so.1': 'libgcc-s1',
  'libudev.so.1': 'libudev1',
  'libusb-1.0.so.0': 'libusb-1.0-0',
  // Debian 13 renamed it libasound2t64 (the time_t transition); bookworm and Raspberry Pi OS 12 keep libasound2.
  'libasound.so.2': 'libasound2t64 | libasound2',
  'libturbojpeg.so.0': null,
}

export interface NativeBinary {
  file: string
  needed: string[]
  glibc: string
}

export interface ProgramReport {
  natives: NativeBinary[]
  modules: { name: string; version: string; license: string }[]
}

/** What dist/ holds for the build alone: source maps, the parts' declarations and build info, the page bundle's stamp. */
const DIST_BUILD_ONLY = ['.map', '.d.ts', '.tsbuildinfo', '.stamp.json']

function copyDist(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name)
    if (entry.isDirectory()) copyDist(src, join(to, entry.name))
    else if (entry.isFile() && !DIST_BUILD_ONLY.some((suffix) => entry.name.endsWith(suffix))) {
      mkdirSync(to, { recursive: true })
      copyFileSync(src, join(to, entry.name))
      chmodSync(join(to, entry.name), 0o644)
    }
  }
}

/** npm ci of the production dependencies for the target, into <lib>/node_modules. */
function installDependencies(lib: string, arch: DebArch, root: string): void {
  copyFileSync(join(root, 'package-lock.json'), join(lib, 'package-lock.json'))
  const flags = ['--omit=dev', '--ignore-scripts', '--os=linux', `--cpu=${NODE_ARCH[arch]}`, '--libc=glibc']
  execFileSync('npm', ['ci', ...flags, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: lib, stdio: 'inherit' })
  rmSync(join(lib, 'package-lock.json'))
  // The links to the modules' own command-line tools: nothing on the box runs them.
  rmSync(join(lib, 'node_modules', '.bin'), { recursive: true, force: true })
}

/** Removes the other platforms' prebuilt binaries and the build-only source trees. */
export function pruneNatives(modules: string, arch: DebArch): string[] {
  const removed: string[] = []
  const keep = `linux-${NODE_ARCH[arch]}`
  for (const name of PREBUILT_INSIDE) {
    const prebuilds = join(modules, name, 'prebuilds')
    if (!existsSync(prebuilds)) throw new Error(`${name}: no prebuilds/ folder (has the module changed how it ships?)`)
    for (const dir of readdirSync(prebuilds)) {
      // HID-linux-x64 and HID_hidraw-linux-x64 stay; *-linux-x64-musl, *-linux-arm, darwin, win32 go.
      if (dir.endsWith(keep)) continue
      rmSync(join(prebuilds, dir), { recursive: true })
      removed.push(`${name}/prebuilds/${dir}`)
    }
  }
  for (const musl of filesUnder(join(modules, 'usb', 'prebuilds')).filter((f) => f.includes('.musl.'))) {
    rmSync(join(modules, 'usb', 'prebuilds', musl))
    removed.push(`usb/prebuilds/${musl}`)
  }
  for (const f of filesUnder(modules).filter((f) => JUNK.test(f.split('/').at(-1)!) || DOC_ONLY.includes(f))) {
    rmSync(join(modules, f))
    removed.push(f)
  }
  for (const dir of BUILD_ONLY) {
    if (!existsSync(join(modules, dir))) continue
    rmSync(join(modules, dir), { recursive: true })
    removed.push(dir)
  }
  return removed
}

/** The key font as a relative link to Debian's copy; the module's other fonts removed. */
export function useSystemFont(modules: string): void {
  const dir = join(modules, KEY_FONT.module)
  for (const f of readdirSync(dir)) rmSync(join(dir, f))
  // node_modules/dejavu-fonts-ttf/ttf sits at /usr/lib/panelbridge/node_modules/dejavu-fonts-ttf/ttf.
  const from = join(LIB_DIR, 'node_modules', KEY_FONT.module)
  symlinkSync(relative(from, join(SYSTEM_FONT_DIR, KEY_FONT.file)), join(dir, KEY_FONT.file))
}

/** Every .node file under `modules`: its machine must be the target's; what it links, read back. */
export function readNatives(modules: string, arch: DebArch): NativeBinary[] {
  return filesUnder(modules)
    .filter((f) => f.endsWith('.node') || /\.so(\.\d+)*$/.test(f))
    .map((f) => {
      const file = join(modules, f)
      const header = execFileSync('readelf', ['-h', file], { encoding: 'utf8' })
      if (!header.includes(ELF_MACHINE[arch])) throw new Error(`${f}: not a ${arch} binary:\n${header}`)
      const dynamic = execFileSync('readelf', ['-d', file], { encoding: 'utf8' })
      const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]!)
      const versions = execFileSync('readelf', ['-V', '-W', file], { encoding: 'utf8' })
      const glibc = [...versions.matchAll(/\bGLIBC_(\d+\.\d+(?:\.\d+)?)/g)].map((m) => m[1]!).sort(compareVersions)
      return { file: f, needed, glibc: glibc.at(-1) ?? '2.17' }
    })
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/** The package's Depends: Node 20 and what the natives link (libc6 at the newest symbol version used). */
export function dependsFor(natives: NativeBinary[]): string[] {
  const packages = new Set<string>()
  const unknown: string[] = []
  for (const n of natives) {
    for (const so of n.needed) {
      const pkg = SONAME_PACKAGE[so]
      if (pkg === undefined) unknown.push(`${n.file}: ${so}`)
      else if (pkg !== null) packages.add(pkg)
    }
  }
  if (unknown.length > 0) throw new Error(`no Debian package known for: ${unknown.join(', ')} (SONAME_PACKAGE)`)
  const glibc =
    natives
      .map((n) => n.glibc)
      .sort(compareVersions)
      .at(-1) ?? '2.17'
  const libs = [...packages].filter((p) => p !== 'libc6').sort()
  // adduser: the postinst creates the system user with it; procps: the unit's ExecReload runs /bin/kill
  // (both priority important, not essential: a minimal Debian root lacks them).
  return ['nodejs (>= 20)', 'adduser', 'procps', KEY_FONT.package, `libc6 (>= ${glibc})`, ...libs]
}

/** Files 0644 and folders 0755, as Debian wants them; scripts with a #! line 0755. */
function normaliseModes(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) {
      chmodSync(p, 0o755)
      normaliseModes(p)
    } else if (entry.isFile()) {
      chmodSync(p, readFileSync(p).subarray(0, 2).toString() === '#!' ? 0o755 : 0o644)
    }
  }
}

/** Each installed package's name, version and licence (for the copyright file). */
function listModules(modules: string): ProgramReport['modules'] {
  return filesUnder(modules)
    .filter((f) => /(^|\/)node_modules\/(@[^/]+\/)?[^/@]+\/package\.json$/.test(`node_modules/${f}`))
    .map(
      (f) =>
        JSON.parse(readFileSync(join(modules, f), 'utf8')) as { name?: string; version?: string; license?: unknown },
    )
    .filter((p): p is { name: string; version: string; license?: unknown } => !!p.name && !!p.version)
    .map((p) => ({
      name: p.name,
      version: p.version,
      license: typeof p.license === 'string' ? p.license : 'see its licence file',
    }))
    .sort((a, b) => a.name.localeCompare(b.name))
}

/** `a, b (file); c (other file)`: the specifiers by the file naming them (the canvas names every platform's). */
function unresolvedSummary(unresolved: readonly string[]): string {
  const byFile = new Map<string, string[]>()
  for (const u of unresolved) {
    const m = /^(.*) \((.*)\)$/.exec(u)!
    byFile.set(m[2]!, [...(byFile.get(m[2]!) ?? []), m[1]!])
  }
  return [...byFile].map(([file, names]) => `${names.join(', ')} (${file})`).join('; ') || 'none'
}

/** Stages dist/ and node_modules/ for `arch` into the tree stageSkeleton made: the runtime's modules only (runtime.ts). */
export async function stageProgram(stage: string, arch: DebArch, root = REPO_ROOT): Promise<ProgramReport> {
  const lib = join(stage, LIB_DIR)
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/cli.js missing: run npm run build first')
  copyDist(join(root, 'dist'), join(lib, 'dist'))
  chmodSync(join(lib, 'dist', 'cli.js'), 0o755)
  installDependencies(lib, arch, root)
  const modules = join(lib, 'node_modules')
  const removed = pruneNatives(modules, arch)
  process.stdout.write(`package: ${arch}: pruned ${removed.length} folders of other platforms and build sources\n`)
  const graph = await runtimeGraph(lib)
  const gone = pruneToRuntime(lib, graph)
  process.stdout.write(
    `package: ${arch}: ${graph.packages.size} packages the program loads; left out ${gone.packages.length} it never ` +
      `loads (${gone.packages.join(', ')}) and ${gone.files.length} type, map, source, documentation and test ` +
      `files or folders\n` +
      `package: ${arch}: named in code but not installed, so never loaded on the box: ${unresolvedSummary(graph.unresolved)}\n`,
  )
  useSystemFont(modules)
  normaliseModes(modules)
  const natives = readNatives(modules, arch)
  for (const n of natives) process.stdout.write(`package: ${arch}: ${relative(stage, join(modules, n.file))}\n`)
  return { natives, modules: listModules(modules) }
}
