/**
 * Issue 25: the Debian package's file list and maintainer scripts. The test stages the package as
 * `npm run package` does, less the program (dist/ and node_modules/, whose npm install takes minutes:
 * `npm run package:verify` builds and installs the whole package in a throwaway Debian root), builds it
 * with the real dpkg-deb and reads it back with dpkg-deb: what goes where, owners and modes, conffiles.
 * The maintainer scripts run as shipped, with the system's commands stood in by a logging stub on PATH
 * and the few absolute paths they test (/run/systemd/system, /run/udev, /etc/panelbridge) moved into a
 * temporary folder.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { parse as parseYaml } from 'yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  CONFIG_FILE,
  LIB_DIR,
  MAINTAINER,
  MAINTAINER_SCRIPTS,
  PACKAGED_CONFIG_HEADER,
  REPO_ROOT,
  UDEV_RULES_FILE,
  UNIT_FILE,
  buildDeb,
  debVersion,
  packagedConfig,
  stageSkeleton,
  writeControl,
} from '../../scripts/package/layout.js'
import { dependsFor } from '../../scripts/package/program.js'
import { runCheck } from '../../src/commands/check.js'

const dir = mkdtempSync(join(tmpdir(), 'pb-deb-'))
const stage = join(dir, 'stage')
const version = debVersion()
let deb = ''
/** dpkg-deb -c: path → { mode, owner, link target }. */
const entries = new Map<string, { mode: string; owner: string; link?: string }>()
const control = join(dir, 'control')

beforeAll(() => {
  stageSkeleton(stage)
  const fields = { arch: 'amd64' as const, version, depends: dependsFor([]) }
  writeControl(stage, fields)
  deb = buildDeb(stage, dir, fields)
  for (const line of execFileSync('dpkg-deb', ['-c', deb], { encoding: 'utf8' }).trim().split('\n')) {
    const m = /^(\S+) (\S+)\s+\d+ \S+ \S+ \.(\/\S*?)\/?(?: -> (\S+))?$/.exec(line)
    if (!m) throw new Error(`dpkg-deb -c: unexpected line ${line}`)
    entries.set(m[3]!, { mode: m[1]!, owner: m[2]!, ...(m[4] !== undefined ? { link: m[4] } : {}) })
  }
  execFileSync('dpkg-deb', ['-e', deb, control])
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const readStaged = (path: string): string => readFileSync(join(stage, path), 'utf8')
const repo = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8')

describe('the package’s files', () => {
  it('is named and described as Debian wants, for the version of package.json', () => {
    expect(deb.endsWith(`panelbridge_${version}_amd64.deb`)).toBe(true)
    const field = (name: string): string => execFileSync('dpkg-deb', ['-f', deb, name], { encoding: 'utf8' }).trim()
    expect(field('Package')).toBe('panelbridge')
    expect(field('Architecture')).toBe('amd64')
    expect(field('Depends').split(', ')).toEqual(
      expect.arrayContaining(['nodejs (>= 20)', 'adduser', 'procps', 'fonts-dejavu-core']),
    )
    expect(Number(field('Installed-Size'))).toBeGreaterThan(0)
    const changelog = gunzipSync(readFileSync(join(stage, 'usr/share/doc/panelbridge/changelog.Debian.gz'))).toString()
    expect(changelog.split('\n')[0]).toBe(`panelbridge (${version}) unstable; urgency=medium`)
    // A real address, not a reserved example domain, and the one the changelog is signed with.
    expect(field('Maintainer')).toBe(MAINTAINER)
    expect(MAINTAINER).toMatch(/^[^<>]+ <[^@\s]+@[^@\s]+\.[a-z]+>$/)
    expect(MAINTAINER).not.toMatch(/example|invalid|localhost/)
    expect(changelog).toContain(` -- ${MAINTAINER}  `)
  })

  it('installs the command, the unit, the udev rules, the config, the docs and the man page where they belong', () => {
    expect(entries.get('/usr/bin/panelbridge')?.link).toBe(`../lib/panelbridge/dist/cli.js`)
    expect(readStaged(UNIT_FILE)).toMatch(
      /^ExecStart=\/usr\/bin\/panelbridge run --config \/etc\/panelbridge\/config\.yaml$/m,
    )
    // Everything else in the unit as the repository's (its own test covers the settings).
    expect(readStaged(UNIT_FILE).replace('/usr/bin/', '/usr/local/bin/')).toBe(repo('systemd/panelbridge.service'))
    expect(readStaged(UDEV_RULES_FILE)).toBe(repo('systemd/60-panelbridge.rules'))
    for (const path of [
      UNIT_FILE,
      UDEV_RULES_FILE,
      CONFIG_FILE,
      '/etc/panelbridge/panelbridge.schema.json',
      `${LIB_DIR}/package.json`,
      `${LIB_DIR}/config/app-profiles`,
      `${LIB_DIR}/config/default.yaml`,
      '/usr/share/doc/panelbridge/copyright',
      '/usr/share/doc/panelbridge/README.md.gz',
      '/usr/share/doc/panelbridge/install.md.gz',
      '/usr/share/doc/panelbridge/examples/reference.yaml',
      '/usr/share/doc/panelbridge/examples/streamdeck-xl-titles.yaml',
      '/usr/share/doc/panelbridge/examples/70-panelbridge-uaccess.rules',
      '/usr/share/man/man1/panelbridge.1.gz',
    ]) {
      expect([path, entries.has(path)]).toEqual([path, true])
    }
    // The desktop rules are an example only: the box's devices belong to the service's group.
    expect([...entries.keys()].filter((p) => p.startsWith('/usr/lib/udev/'))).toEqual([
      '/usr/lib/udev/rules.d',
      UDEV_RULES_FILE,
    ])
    // Nothing in the /lib alias of a merged-/usr system (Debian 13).
    expect(UNIT_FILE).toBe('/usr/lib/systemd/system/panelbridge.service')
    expect([...entries.keys()].filter((p) => p === '/lib' || p.startsWith('/lib/'))).toEqual([])
    expect(gunzipSync(readFileSync(join(stage, 'usr/share/man/man1/panelbridge.1.gz'))).toString()).toMatch(
      /^\.TH PANELBRIDGE 1/,
    )
  })

  it('names each schema where it lies: the config beside it in /etc, the examples one folder up', () => {
    const schemaLine = (text: string): string => text.split('\n')[0]!
    expect(schemaLine(readStaged(CONFIG_FILE))).toBe('# yaml-language-server: $schema=./panelbridge.schema.json')
    expect(readStaged('/etc/panelbridge/panelbridge.schema.json')).toBe(repo('config/panelbridge.schema.json'))
    expect(schemaLine(readStaged('/usr/share/doc/panelbridge/examples/reference.yaml'))).toBe(
      '# yaml-language-server: $schema=../panelbridge.schema.json',
    )
    expect(schemaLine(readStaged('/usr/share/doc/panelbridge/examples/xkeys24-titles.yaml'))).toMatch(
      /\$schema=\.\.\/panelbridge/,
    )
    // ../panelbridge.schema.json from examples/ is a link to the program's copy.
    expect(entries.get('/usr/share/doc/panelbridge/panelbridge.schema.json')?.link).toBe(
      '../../../lib/panelbridge/config/panelbridge.schema.json',
    )
    expect(entries.has(`${LIB_DIR}/config/panelbridge.schema.json`)).toBe(true)
  })

  it('keeps the config from everyone but root and the service: 0640 and 0750, root-owned, no token shipped', () => {
    for (const [path, e] of entries) expect([path, e.owner]).toEqual([path, 'root/root'])
    expect(entries.get(CONFIG_FILE)?.mode).toBe('-rw-r-----')
    expect(entries.get('/etc/panelbridge')?.mode).toBe('drwxr-x---')
    expect(entries.get('/etc/panelbridge/panelbridge.schema.json')?.mode).toBe('-rw-r--r--')
    for (const [path, e] of entries) {
      if (e.link === undefined) expect([path, e.mode.at(8)]).not.toEqual([path, 'w'])
    }
    expect([...entries.keys()].filter((p) => /token/i.test(p))).toEqual([])
  })

  it('marks every file in /etc as a conffile, and nothing else', () => {
    const conffiles = readFileSync(join(control, 'conffiles'), 'utf8').trim().split('\n').sort()
    const inEtc = [...entries].filter(([p, e]) => p.startsWith('/etc/') && e.mode.startsWith('-')).map(([p]) => p)
    expect(conffiles).toEqual(inEtc.sort())
    expect(conffiles).toEqual([CONFIG_FILE, '/etc/panelbridge/panelbridge.schema.json'])
  })

  it('ships each maintainer script executable and valid for sh', () => {
    for (const script of MAINTAINER_SCRIPTS) {
      expect(execFileSync('stat', ['-c', '%a', join(control, script)], { encoding: 'utf8' }).trim()).toBe('755')
      expect(spawnSync('sh', ['-n', join(control, script)]).status).toBe(0)
    }
  })
})

/** Runs one maintainer script as shipped, with stubs on PATH; returns the stubs' log and the output. */
function runScript(
  script: (typeof MAINTAINER_SCRIPTS)[number],
  args: string[],
  opts: { systemd?: boolean; userExists?: boolean; checkExit?: number; overrides?: boolean } = {},
): { calls: string[]; stderr: string; status: number | null; root: string } {
  const root = mkdtempSync(join(dir, 'run-'))
  const bin = join(root, 'bin')
  mkdirSync(bin)
  mkdirSync(join(root, 'etc/panelbridge'), { recursive: true })
  writeFileSync(join(root, 'etc/panelbridge/token'), 'secret\n')
  if (opts.systemd !== false) mkdirSync(join(root, 'run/systemd/system'), { recursive: true })
  mkdirSync(join(root, 'run/udev'), { recursive: true })
  const log = join(root, 'calls.log')
  // One stub for every command the scripts call: logs its name and arguments, answers as the case says.
  const stub = `#!/bin/sh
echo "$(basename "$0") $*" >> '${log}'
case "$(basename "$0") $*" in
  "getent group audio") exit 0 ;;
  "id -nG panelbridge") [ "${opts.userExists ? 1 : 0}" = 1 ] && echo "panelbridge audio"; exit 0 ;;
  getent*) [ "${opts.userExists ? 1 : 0}" = 1 ] && exit 0; exit 2 ;;
  "dpkg-statoverride --list"*) exit ${opts.overrides ? 0 : 1} ;;
  runuser*) echo "${CONFIG_FILE}:3:1 error: app.url: not a URL"; exit ${opts.checkExit ?? 0} ;;
esac
exit 0
`
  for (const name of [
    'id',
    'getent',
    'addgroup',
    'adduser',
    'dpkg-statoverride',
    'udevadm',
    'runuser',
    'systemctl',
    'deb-systemd-helper',
    'deb-systemd-invoke',
  ]) {
    writeFileSync(join(bin, name), stub)
    chmodSync(join(bin, name), 0o755)
  }
  let text = readFileSync(join(control, script), 'utf8')
  // Only the postrm removes files: its folders move into the temporary root.
  const folders = script === 'postrm' ? ['/etc/panelbridge', '/var/lib/panelbridge'] : []
  for (const path of ['/run/systemd/system', '/run/udev', '/usr/bin/deb-systemd-helper', ...folders]) {
    const moved = path === '/usr/bin/deb-systemd-helper' ? join(bin, 'deb-systemd-helper') : join(root, path)
    text = text.replaceAll(path, moved)
  }
  const file = join(root, script)
  writeFileSync(file, text)
  const r = spawnSync('sh', [file, ...args], {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    encoding: 'utf8',
  })
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []
  return { calls, stderr: r.stderr, status: r.status, root }
}

describe('the packaged configuration', () => {
  it('drives the application on the box at 127.0.0.1:9022 and starts no simulator; check accepts it', async () => {
    const packaged = parseYaml(readStaged(CONFIG_FILE)) as { app: Record<string, unknown> }
    expect(packaged.app).toEqual({ url: 'http://127.0.0.1:9022' })
    const out: string[] = []
    const code = await runCheck({ files: [join(stage, CONFIG_FILE)], format: 'text' }, (t) => void out.push(t))
    expect([code, out.join('')]).toEqual([0, expect.stringMatching(/config\.yaml: ok: \d+ bindings/)])
    // The clone's default keeps the simulator (npm start).
    expect((parseYaml(repo('config/default.yaml')) as typeof packaged).app.simulate).toBe(true)
  })

  it('is the clone’s default otherwise: the same surfaces, bindings and listener, under its own header', () => {
    const { app, ...rest } = parseYaml(repo('config/default.yaml')) as { app: Record<string, unknown> }
    const { simulate, ...live } = app
    expect(simulate).toBe(true)
    expect(parseYaml(readStaged(CONFIG_FILE))).toEqual({ app: live, ...rest })
    const header = readStaged(CONFIG_FILE)
      .split('\n')
      .slice(1, PACKAGED_CONFIG_HEADER.length + 1)
    expect(header).toEqual(PACKAGED_CONFIG_HEADER)
    expect(readStaged(CONFIG_FILE)).not.toMatch(/simulat/i)
  })

  it('refuses to build from a default with nothing to rewrite, rather than ship the simulator', () => {
    const withoutSimulate = repo('config/default.yaml').replace(/^ {2}simulate: .*\n/m, '')
    expect(() => packagedConfig(withoutSimulate)).toThrow(/app\.simulate/)
  })
})

describe('the maintainer scripts', () => {
  it('first install: creates the user in audio, locks the config to its group, reloads udev, enables and starts', () => {
    const { calls, status } = runScript('postinst', ['configure', ''])
    expect(status).toBe(0)
    expect(calls).toEqual(
      expect.arrayContaining([
        'addgroup --system --quiet panelbridge',
        expect.stringMatching(
          /^adduser --system --quiet --ingroup panelbridge --no-create-home --home \/nonexistent .* panelbridge$/,
        ),
        'adduser --quiet panelbridge audio',
        'dpkg-statoverride --update --add root panelbridge 0750 /etc/panelbridge',
        `dpkg-statoverride --update --add root panelbridge 0640 ${CONFIG_FILE}`,
        'udevadm control --reload-rules',
        'deb-systemd-helper enable panelbridge.service',
        'deb-systemd-invoke start panelbridge.service',
      ]),
    )
    // The user is created before anything names it; the unit is enabled before it starts.
    const at = (prefix: string): number => calls.findIndex((c) => c.startsWith(prefix))
    expect(at('adduser --system')).toBeLessThan(at('dpkg-statoverride --update'))
    expect(at('deb-systemd-helper enable')).toBeLessThan(at('deb-systemd-invoke start'))
    expect(calls.some((c) => c.startsWith('runuser'))).toBe(false)
  })

  it('in a chroot (no systemd running): enables for the first boot, starts nothing', () => {
    const { calls } = runScript('postinst', ['configure', ''], { systemd: false })
    expect(calls).toContain('deb-systemd-helper enable panelbridge.service')
    expect(calls.filter((c) => c.startsWith('deb-systemd-invoke') || c.startsWith('systemctl'))).toEqual([])
  })

  it('upgrade: keeps the existing user, restarts only after panelbridge check accepts the config on disk', () => {
    const ok = runScript('postinst', ['configure', '0.0.9-1'], { userExists: true, checkExit: 0 })
    expect(ok.calls.some((c) => c.startsWith('adduser') || c.startsWith('addgroup'))).toBe(false)
    expect(ok.calls).toContain(`runuser -u panelbridge -- /usr/bin/panelbridge check ${CONFIG_FILE}`)
    expect(ok.calls.indexOf('deb-systemd-invoke restart panelbridge.service')).toBeGreaterThan(
      ok.calls.findIndex((c) => c.startsWith('runuser')),
    )
  })

  it('upgrade with a config check refuses: no restart, and says why', () => {
    const refused = runScript('postinst', ['configure', '0.0.9-1'], { userExists: true, checkExit: 1 })
    expect(refused.status).toBe(0) // the package still configures: the old daemon keeps running
    expect(refused.calls.filter((c) => c.startsWith('deb-systemd-invoke'))).toEqual([])
    expect(refused.stderr).toContain('app.url: not a URL')
    expect(refused.stderr).toMatch(/not restarted.*refuses the file/)
    expect(refused.stderr).toContain('keeps its old version')
  })

  it('remove: stops the service; an upgrade’s prerm leaves it running', () => {
    expect(runScript('prerm', ['remove']).calls).toEqual(['deb-systemd-invoke stop panelbridge.service'])
    expect(runScript('prerm', ['upgrade', '0.2.0-1']).calls).toEqual([])
  })

  it('purge: disables the unit, removes /etc/panelbridge (token too) and its statoverrides; the user stays', () => {
    const removed = runScript('postrm', ['remove'])
    expect(existsSync(join(removed.root, 'etc/panelbridge/token'))).toBe(true)
    expect(removed.calls.some((c) => c.startsWith('dpkg-statoverride'))).toBe(false)
    const purged = runScript('postrm', ['purge'], { overrides: true })
    expect(purged.calls).toContain('deb-systemd-helper purge panelbridge.service')
    expect(purged.calls.filter((c) => c.startsWith('dpkg-statoverride --remove')).length).toBe(2)
    expect(existsSync(join(purged.root, 'etc/panelbridge'))).toBe(false)
    expect(purged.calls.filter((c) => /^(deluser|delgroup|userdel)/.test(c))).toEqual([])
  })
})
