/**
 * `npm run package`: builds build/deb/panelbridge_<version>_amd64.deb and ..._arm64.deb with dpkg-deb
 * (issue 25). Runs `npm run build` first unless --no-build; `--arch arm64` builds one. Each package is
 * staged in build/deb/stage-<arch>/ (left there for inspection). The layout: scripts/package/layout.ts;
 * the program and its native modules: scripts/package/program.ts. `npm run package:verify` proves it.
 */
import { execFileSync } from 'node:child_process'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  BUILD_DIR,
  DEB_ARCHES,
  DOC_DIR,
  REPO_ROOT,
  buildDeb,
  copyrightText,
  debVersion,
  installedSizeKiB,
  stageSkeleton,
  writeControl,
  type DebArch,
} from './package/layout.js'
import { dependsFor, stageProgram } from './package/program.js'

const { values } = parseArgs({
  options: { arch: { type: 'string', multiple: true }, 'no-build': { type: 'boolean', default: false } },
})
const arches = (values.arch ?? DEB_ARCHES).flatMap((a) => a.split(','))
for (const a of arches) {
  if (!DEB_ARCHES.includes(a as DebArch)) throw new Error(`--arch ${a}: one of ${DEB_ARCHES.join(', ')}`)
}

if (!values['no-build']) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' })
const epoch = execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()
const version = debVersion()

for (const arch of arches as DebArch[]) {
  const stage = join(BUILD_DIR, `stage-${arch}`)
  stageSkeleton(stage)
  const report = await stageProgram(stage, arch)
  writeFileSync(join(stage, DOC_DIR, 'copyright'), copyrightText(report.modules))
  const fields = { arch, version, depends: dependsFor(report.natives) }
  writeControl(stage, fields)
  const deb = buildDeb(stage, BUILD_DIR, fields, epoch)
  const size = statSync(deb).size
  process.stdout.write(
    `package: ${deb}: ${(size / 2 ** 20).toFixed(1)} MiB, installed ${(installedSizeKiB(stage) / 1024).toFixed(1)} MiB\n` +
      `package: Depends: ${fields.depends.join(', ')}\n`,
  )
}
