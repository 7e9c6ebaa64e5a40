/**
 * Issue 13, Build 5: the systemd unit. Its settings are read back line by line, and `systemd-analyze
 * verify` (Debian's `systemd` package; scripts/ensure-system-deps.sh installs it) checks the file as
 * systemd would load it. Why a copy for verify: it refuses a unit whose ExecStart binary does not exist,
 * and /usr/local/bin/panelbridge exists only once installed; the copy points ExecStart at this node.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT } from '../../src/commands/subcommand.js'
import { UDEV_GROUP } from '../../src/families/udev.js'

const UNIT_FILE = new URL('../../systemd/panelbridge.service', import.meta.url)
const unit = readFileSync(UNIT_FILE, 'utf8')
/** The ExecStart docs/install.md installs. */
const EXEC_START = '/usr/local/bin/panelbridge run --config /etc/panelbridge/config.yaml'

/** Every `Key=value` of the unit, per key in file order (a key may repeat, e.g. DeviceAllow). */
function settings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim())
    if (!m) continue
    out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!])
  }
  return out
}
const s = settings(unit)
const one = (key: string): string | undefined => s.get(key)?.at(-1)

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('systemd/panelbridge.service', () => {
  it('runs the daemon with the explicit config as the panelbridge user, notifying systemd, with a watchdog', () => {
    expect(one('ExecStart')).toBe(EXEC_START)
    expect(one('Type')).toBe('notify')
    expect(one('NotifyAccess')).toBe('all') // the daemon notifies through systemd-notify, a child process
    expect(one('User')).toBe(UDEV_GROUP)
    expect(one('Group')).toBe(UDEV_GROUP)
    expect(Number.parseInt(one('WatchdogSec') ?? '', 10)).toBeGreaterThan(0)
    expect(one('ExecReload')).toBe('/bin/kill -HUP $MAINPID')
    expect(one('Restart')).toBe('on-failure')
    // A configuration that stops the start stops the unit too, rather than a restart loop.
    expect(one('RestartPreventExitStatus')).toBe(String(EXIT.config))
    expect(one('KillSignal')).toBe('SIGINT')
  })

  it('bounds the stop above the daemon’s own 3 s bound, but not by much', () => {
    const stop = Number(one('TimeoutStopSec'))
    expect(stop).toBeGreaterThan(3)
    expect(stop).toBeLessThanOrEqual(30)
  })

  it('is hardened, and reaches only hidraw, USB and sound devices', () => {
    for (const [key, value] of [
      ['NoNewPrivileges', 'yes'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'yes'],
      ['PrivateTmp', 'yes'],
      ['DevicePolicy', 'closed'],
      ['CapabilityBoundingSet', ''],
    ] as const)
      expect([key, one(key)]).toEqual([key, value])
    expect(s.get('DeviceAllow')).toEqual(['char-hidraw rw', 'char-usb_device rw', 'char-alsa rw'])
    // Either would break the daemon: PrivateDevices hides the HID nodes, MemoryDenyWriteExecute V8's JIT.
    expect(s.has('PrivateDevices')).toBe(false)
    expect(s.has('MemoryDenyWriteExecute')).toBe(false)
    // Hot-plug needs netlink; nothing writes outside the private /tmp and the state folder.
    expect(one('RestrictAddressFamilies')?.split(' ')).toContain('AF_NETLINK')
    expect(s.has('ReadWritePaths')).toBe(false)
    expect(unit).not.toMatch(/writes no files/)
  })

  it('gives the daemon one writable folder, /var/lib/panelbridge, its own and closed to others', () => {
    // systemd makes /var/lib/<StateDirectory> and sets $STATE_DIRECTORY to it, writable under ProtectSystem=strict.
    expect(one('StateDirectory')).toBe('panelbridge')
    expect(one('StateDirectoryMode')).toBe('0750')
  })

  it('passes systemd-analyze verify with no message at all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-unit-'))
    dirs.push(dir)
    const copy = join(dir, 'panelbridge.service')
    const pointed = unit.replace(`ExecStart=${EXEC_START}`, `ExecStart=${process.execPath} run`)
    expect(pointed).not.toBe(unit)
    writeFileSync(copy, pointed)
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', ['verify', copy])
    expect(stdout + stderr).toBe('')
  })

  it('systemd-analyze verify does speak up about a broken unit (so its silence above means something)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-unit-'))
    dirs.push(dir)
    const copy = join(dir, 'panelbridge.service')
    writeFileSync(copy, unit.replace('Type=notify', 'Type=notifyy'))
    const result = await promisify(execFile)('systemd-analyze', ['verify', copy]).catch(
      (err: { stdout: string; stderr: string }) => err,
    )
    expect(result.stdout + result.stderr).toMatch(/notifyy/)
  })
})
