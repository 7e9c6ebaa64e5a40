/**
 * The Debian package's staging tree (issue 25, item 1), everything but the program itself: the unit,
 * the udev rules, /etc/panelbridge (config.yaml and the schema, both conffiles), the docs and examples,
 * the man page, the maintainer scripts and the control file. `scripts/package/program.ts` adds the
 * program (dist/ and the production node_modules for one architecture); `scripts/package-deb.ts` runs both
 * and `dpkg-deb`. The layout is one table, PACKAGE_FILES, so the test and the build read the same list.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync, constants as zlib } from 'node:zlib'

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const PACKAGE_NAME = 'panelbridge'
/** Where the program lives on the box; /usr/bin/panelbridge links to its cli.js. */
export const LIB_DIR = '/usr/lib/panelbridge'
export const DOC_DIR = '/usr/share/doc/panelbridge'
export const CONFIG_FILE = '/etc/panelbridge/config.yaml'
/** Under /usr/lib, not /lib: Debian 13 (merged /usr) wants no package files in the /lib alias. */
export const UNIT_FILE = '/usr/lib/systemd/system/panelbridge.service'
export const UDEV_RULES_FILE = '/usr/lib/udev/rules.d/60-panelbridge.rules'
/** Where the build writes: gitignored. */
export const BUILD_DIR = join(REPO_ROOT, 'build', 'deb')

export type DebArch = 'amd64' | 'arm64'
/** Debian's architecture name → Node's (process.arch), as npm's --cpu takes it. */
export const NODE_ARCH: Record<DebArch, 'x64' | 'arm64'> = { amd64: 'x64', arm64: 'arm64' }
export const DEB_ARCHES = Object.keys(NODE_ARCH) as DebArch[]

/**
 * ASSUMED (issue 25): the package's version is the project's version with Debian revision 1 (a package
 * built outside Debian's archive, from the project's own tree), so the changelog is changelog.Debian.gz
 * as Debian policy 12.7 asks of a non-native package. packaging/deb/changelog's top entry must match.
 */
export function debVersion(root = REPO_ROOT): string {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  return `${pkg.version}-1`
}

/** A file of the package: where it comes from (repo-relative) or its text, and its mode. */
export interface PackageFile {
  path: string
  mode: number
  from?: string
  /** Rewrites the source's text for its place on the box. */
  edit?: (text: string) => string
  /** gzip -9n, as Debian wants its docs and man pages. */
  gzip?: boolean
  conffile?: boolean
  /** A relative symlink to this target instead of a file. */
  link?: string
}

/** The unit names the packaged /usr/bin/panelbridge, not the manual route's /usr/local/bin. */
export function packagedUnit(text: string): string {
  const out = text.replace(/^ExecStart=\/usr\/local\/bin\/panelbridge /m, 'ExecStart=/usr/bin/panelbridge ')
  if (out === text) throw new Error('systemd/panelbridge.service: no ExecStart=/usr/local/bin/panelbridge to rewrite')
  return out
}

/**
 * The packaged /etc/panelbridge/config.yaml: config/default.yaml (the same surface and bindings, so the two
 * never drift apart) without `simulate:`, under a header of its own. On a box the application itself
 * owns 127.0.0.1:9022: the service talks to it there and never stands in for it; `npm start` in a clone
 * keeps the simulator.
 */
export function packagedConfig(text: string): string {
  const lines = text.split('\n')
  const version = lines.findIndex((l) => /^version: /.test(l))
  const simulate = lines.findIndex((l) => /^ {2}simulate: /.test(l))
  if (!lines[0]?.startsWith('# yaml-language-server: ') || version < 0 || simulate < version)
    throw new Error('config/default.yaml: no schema line, version: line or app.simulate line to rewrite')
  return [lines[0], ...PACKAGED_CONFIG_HEADER, ...lines.slice(version, simulate), ...lines.slice(simulate + 1)].join(
    '\n',
  )
}

/** The packaged config's header, in place of the default's (which introduces the simulator). */
export const PACKAGED_CONFIG_HEADER = [
  '#',
  '# panelbridge on this box: a web control surface at http://127.0.0.1:8088/ driving the graphics',
  '# application (NewBlue Captivate or Titler Live) running here, through its command interface at',
  '# app.url. Until the application answers there, the page says it is waiting for it.',
  '#',
  '# Add your surfaces and bindings (examples: /usr/share/doc/panelbridge/examples/, man panelbridge).',
  '# The service reloads this file when it is saved; a file with errors is refused and the last good',
  '# one keeps running. sudo panelbridge check /etc/panelbridge/config.yaml lists every problem.',
]

const EXAMPLES = readdirSync(join(REPO_ROOT, 'config', 'examples'))
  .filter((f) => f.endsWith('.yaml'))
  .sort()

/**
 * Every file the package installs outside /usr/lib/panelbridge/{dist,node_modules}. Modes: the config
 * may hold secrets (a stream key, an inline token), so it ships 0640 and the postinst gives it group
 * panelbridge (dpkg-statoverride); the schema holds none.
 */
export const PACKAGE_FILES: PackageFile[] = [
  { path: '/usr/bin/panelbridge', mode: 0o777, link: `${LIB_DIR}/dist/cli.js` },
  { path: UNIT_FILE, mode: 0o644, from: 'systemd/panelbridge.service', edit: packagedUnit },
  { path: UDEV_RULES_FILE, mode: 0o644, from: 'systemd/60-panelbridge.rules' },
  { path: CONFIG_FILE, mode: 0o640, from: 'config/default.yaml', edit: packagedConfig, conffile: true },
  {
    path: '/etc/panelbridge/panelbridge.schema.json',
    mode: 0o644,
    from: 'config/panelbridge.schema.json',
    conffile: true,
  },
  { path: '/usr/share/man/man1/panelbridge.1.gz', mode: 0o644, from: 'packaging/deb/panelbridge.1', gzip: true },
  { path: `${DOC_DIR}/changelog.Debian.gz`, mode: 0o644, from: 'packaging/deb/changelog', gzip: true },
  { path: `${DOC_DIR}/README.md.gz`, mode: 0o644, from: 'README.md', gzip: true },
  { path: `${DOC_DIR}/install.md.gz`, mode: 0o644, from: 'docs/install.md', gzip: true },
  { path: `${DOC_DIR}/commands.md.gz`, mode: 0o644, from: 'docs/commands.md', gzip: true },
  // The examples name the schema one folder up (../panelbridge.schema.json), as in the repository.
  { path: `${DOC_DIR}/panelbridge.schema.json`, mode: 0o777, link: `${LIB_DIR}/config/panelbridge.schema.json` },
  { path: `${DOC_DIR}/examples/reference.yaml`, mode: 0o644, from: 'config/reference.yaml', edit: schemaOneUp },
  ...EXAMPLES.map((f) => ({ path: `${DOC_DIR}/examples/${f}`, mode: 0o644, from: `config/examples/${f}` })),
  // Desktop sessions only (uaccess): an example, not installed as a rule.
  {
    path: `${DOC_DIR}/examples/70-panelbridge-uaccess.rules`,
    mode: 0o644,
    from: 'systemd/70-panelbridge-uaccess.rules',
  },
  { path: '/usr/share/lintian/overrides/panelbridge', mode: 0o644, from: 'packaging/deb/lintian-overrides' },
]

/** reference.yaml names the schema beside it; among the examples it sits one folder down. */
function schemaOneUp(text: string): string {
  return text.replace(/^(# yaml-language-server: \$schema=)\.\//, '$1../')
}

/** The maintainer scripts, from packaging/deb/, 0755. */
export const MAINTAINER_SCRIPTS = ['postinst', 'prerm', 'postrm'] as const

/** Folders the program copies whole (besides dist/ and node_modules/, which program.ts stages). */
const LIB_TREES = ['config']

function writeAt(stage: string, path: string, data: string | Buffer, mode: number): void {
  const target = join(stage, path)
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, data)
  chmodSync(target, mode)
}

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name)
    const dst = join(to, entry.name)
    if (entry.isDirectory()) copyTree(src, dst)
    else if (entry.isFile()) {
      copyFileSync(src, dst)
      chmodSync(dst, 0o644)
    }
  }
}

/** The copyright file: the project's licence, then each bundled module's, named (filled by program.ts). */
export function copyrightText(modules: { name: string; version: string; license: string }[]): string {
  const head = readFileSync(join(REPO_ROOT, 'packaging', 'deb', 'copyright'), 'utf8')
  if (modules.length === 0) return head
  const rows = modules.map((m) => `  ${m.name} ${m.version}: ${m.license}`)
  return [
    head,
    `The Node.js modules bundled under ${LIB_DIR}/node_modules, each with its licence file beside its`,
    'code (the Apache License 2.0 is also in /usr/share/common-licenses/Apache-2.0):',
    '',
    ...rows,
    '',
  ].join('\n')
}

/**
 * Stages everything but dist/ and node_modules/ for one architecture into `stage` (emptied first):
 * the files of PACKAGE_FILES, /usr/lib/panelbridge/{package.json,config}, DEBIAN/ with the maintainer
 * scripts and conffiles. The control file and md5sums come last (writeControl), once the program is in.
 */
export function stageSkeleton(stage: string, root = REPO_ROOT): void {
  rmSync(stage, { recursive: true, force: true })
  for (const f of PACKAGE_FILES) {
    if (f.link !== undefined) {
      const target = join(stage, f.path)
      mkdirSync(dirname(target), { recursive: true })
      symlinkSync(relative(dirname(f.path), f.link), target)
      continue
    }
    let data: string | Buffer = readFileSync(join(root, f.from!), 'utf8')
    if (f.edit) data = f.edit(data)
    if (f.gzip) data = gzipSync(data, { level: zlib.Z_BEST_COMPRESSION })
    writeAt(stage, f.path, data, f.mode)
  }
  for (const tree of LIB_TREES) copyTree(join(root, tree), join(stage, LIB_DIR, tree))
  writeAt(stage, `${LIB_DIR}/package.json`, readFileSync(join(root, 'package.json')), 0o644)
  writeAt(stage, `${DOC_DIR}/copyright`, copyrightText([]), 0o644)
  // /etc/panelbridge: the postinst gives it root:panelbridge 0750; until then root's alone.
  chmodSync(join(stage, 'etc', 'panelbridge'), 0o750)
  for (const script of MAINTAINER_SCRIPTS) {
    writeAt(stage, `/DEBIAN/${script}`, readFileSync(join(root, 'packaging', 'deb', script)), 0o755)
  }
  const conffiles = PACKAGE_FILES.filter((f) => f.conffile).map((f) => f.path)
  writeAt(stage, '/DEBIAN/conffiles', `${conffiles.join('\n')}\n`, 0o644)
}

/** Every regular file under `dir`, relative, sorted (symlinks and folders left out). */
export function filesUnder(dir: string, base = dir): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...filesUnder(p, base))
    else if (entry.isFile()) out.push(relative(base, p))
  }
  return out.sort()
}

/** Installed-Size as dpkg-gencontrol counts it: KiB per file rounded up, one per folder and link. */
export function installedSizeKiB(stage: string): number {
  let kib = 0
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (dir === stage && entry.name === 'DEBIAN') continue
      const p = join(dir, entry.name)
      if (entry.isDirectory()) {
        kib += 1
        walk(p)
      } else if (entry.isSymbolicLink()) kib += 1
      else kib += Math.ceil(lstatSync(p).size / 1024)
    }
  }
  walk(stage)
  return kib
}

export interface ControlFields {
  arch: DebArch
  version: string
  depends: string[]
}

const DESCRIPTION = `hardware control panels for a live-graphics application
 panelbridge bridges control surfaces (Elgato Stream Deck, MIDI controllers,
 X-keys, Contour ShuttlePro) and a web control surface to a live-graphics
 application's command interface: a key plays a title, a jog wheel scrubs
 a replay, and each key shows the application's state.
 .
 This package runs panelbridge as a hardened systemd service under its own
 user, with udev rules that give that user the control surfaces. The
 configuration is /etc/panelbridge/config.yaml; the service reloads it by
 itself when it changes.`

/**
 * ASSUMED: the maintainer field. Neither package.json nor the history names a person or an address, so the
 * project's maintainers as a team; packaging/deb/changelog's entries are signed with the same.
 */
export const MAINTAINER = 'panelbridge maintainers <maintainers@panelbridge.org>'

/** Writes DEBIAN/control and DEBIAN/md5sums for the staged tree. */
export function writeControl(stage: string, fields: ControlFields): string {
  const control = [
    `Package: ${PACKAGE_NAME}`,
    `Version: ${fields.version}`,
    `Architecture: ${fields.arch}`,
    `Maintainer: ${MAINTAINER}`,
    `Installed-Size: ${installedSizeKiB(stage)}`,
    `Depends: ${fields.depends.join(', ')}`,
    'Suggests: fonts-noto-color-emoji, fonts-noto-cjk',
    'Section: misc',
    'Priority: optional',
    `Description: ${DESCRIPTION}`,
    '',
  ].join('\n')
  writeAt(stage, '/DEBIAN/control', control, 0o644)
  const files = filesUnder(stage).filter((f) => !f.startsWith('DEBIAN/'))
  const md5 = files.map((f) => `${md5sum(join(stage, f))}  ${f}`)
  writeAt(stage, '/DEBIAN/md5sums', `${md5.join('\n')}\n`, 0o644)
  return control
}

function md5sum(file: string): string {
  return createHash('md5').update(readFileSync(file)).digest('hex')
}

/**
 * dpkg-deb --build with root:root as owner (no fakeroot needed) into `outDir`; the file name is Debian's
 * panelbridge_<version>_<arch>.deb. SOURCE_DATE_EPOCH (the last commit's time) clamps the mtimes.
 */
export function buildDeb(stage: string, outDir: string, fields: ControlFields, epoch?: string): string {
  mkdirSync(outDir, { recursive: true })
  const file = join(outDir, `${PACKAGE_NAME}_${fields.version}_${fields.arch}.deb`)
  const env = { ...process.env, ...(epoch !== undefined ? { SOURCE_DATE_EPOCH: epoch } : {}) }
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', stage, file], { env, stdio: 'pipe' })
  return file
}

/** The staged file's mode, for the tests. */
export function modeOf(stage: string, path: string): number {
  return statSync(join(stage, path)).mode & 0o7777
}
