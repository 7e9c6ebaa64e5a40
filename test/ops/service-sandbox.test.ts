/**
 * The folders `check` takes the packaged service to be able to write (`SERVICE_SANDBOX`, marked ASSUMED)
 * against the unit itself: its StateDirectory=, ProtectSystem=strict, PrivateTmp=yes, and no other
 * writable path.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SERVICE_SANDBOX } from '../../src/daemon/service-sandbox.js'

const unit = readFileSync(new URL('../../systemd/panelbridge.service', import.meta.url), 'utf8')

/** Every value of `key=` in the unit, each space-separated word apart. */
function values(key: string): string[] {
  const out: string[] = []
  for (const line of unit.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim())
    if (m?.[1] === key) out.push(...m[2]!.split(/\s+/).filter((w) => w !== ''))
  }
  return out
}

describe('where the packaged service may write', () => {
  it('is the unit’s state folder, /var/lib/ and its StateDirectory=, on a file system otherwise read-only', () => {
    expect(values('StateDirectory')).toEqual([SERVICE_SANDBOX.stateDirectory])
    expect(values('StateDirectory').map((d) => `/var/lib/${d}`)).toEqual([...SERVICE_SANDBOX.writable])
    expect(values('ProtectSystem')).toEqual(['strict'])
    for (const key of ['ReadWritePaths', 'LogsDirectory', 'CacheDirectory', 'RuntimeDirectory'])
      expect(values(key), `${key}= would be writable too`).toEqual([])
  })

  it('has a /tmp and /var/tmp of its own', () => {
    expect(values('PrivateTmp')).toEqual(['yes'])
    expect([...SERVICE_SANDBOX.privateTmp]).toEqual(['/tmp', '/var/tmp'])
  })
})
