/**
 * Where the packaged service may write, for `check`: a record file the service cannot write stops no
 * show (the daemon runs on without recording), but `check` says so before the show rather than during it.
 */
import { isAbsolute, resolve } from 'node:path'

/**
 * ASSUMED to match systemd/panelbridge.service (test/ops/service-sandbox.test.ts reads the unit back):
 * `ProtectSystem=strict` makes the whole file system read-only to the service but for its state folder
 * (`StateDirectory=panelbridge`: /var/lib/panelbridge, also its `$STATE_DIRECTORY`, where a relative
 * record file goes); `PrivateTmp=yes` gives it a /tmp and /var/tmp of its own, which no one else sees
 * and which go when it stops.
 */
export const SERVICE_SANDBOX = {
  stateDirectory: 'panelbridge',
  writable: ['/var/lib/panelbridge'],
  privateTmp: ['/tmp', '/var/tmp'],
} as const

function under(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`)
}

/**
 * Why the packaged service could not keep a recording in `file` (an absolute `record.file`), or
 * undefined when it could. A relative file goes to the state folder, which it may write.
 */
export function serviceRecordProblem(file: string): string | undefined {
  if (!isAbsolute(file)) return undefined
  const path = resolve(file)
  if (SERVICE_SANDBOX.writable.some((f) => under(path, f))) return undefined
  const state = SERVICE_SANDBOX.writable.join(', ')
  const tmp = SERVICE_SANDBOX.privateTmp.find((f) => under(path, f))
  if (tmp !== undefined)
    return (
      `record.file ${path}: the packaged service has a ${tmp} of its own, which no one else sees and ` +
      `which is emptied when it stops; use a relative file name (kept in ${state})`
    )
  return (
    `record.file ${path}: the packaged service may write only under ${state} (where a relative file ` +
    `name goes), so it would run without recording`
  )
}
