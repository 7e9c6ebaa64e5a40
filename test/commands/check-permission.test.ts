/**
 * `panelbridge check /etc/panelbridge/config.yaml` by a user who may not read the file (the packaged config
 * is root's and the service's, 0640): the refusal says permission denied and what to run instead. The
 * check runs as its own process as a user the file refuses: under root (which reads anything) as `nobody`
 * (setpriv), else as this user with the file's mode 0000.
 */
import { spawn } from 'node:child_process'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { assertBuilt, BUILT_CLI } from '../helpers/cli.js'

/** `panelbridge check FILE` as a user who may not read FILE: the exit code, stdout and stderr. */
async function checkUnreadable(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  assertBuilt()
  const node = [process.execPath, BUILT_CLI, 'check', file]
  const asRoot = process.getuid?.() === 0
  const [cmd, ...args] = asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', ...node] : node
  const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  onTestFinished(() => void child.kill('SIGKILL'))
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)))
  return { code, stdout, stderr }
}

describe('check of a file this user may not read', () => {
  it('is refused with permission denied, and says to run it with sudo', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-check-eacces-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    await chmod(dir, 0o755)
    const file = join(dir, 'config.yaml')
    await writeFile(file, 'version: 1\napp: { url: http://127.0.0.1:9022 }\n')
    await chmod(file, process.getuid?.() === 0 ? 0o600 : 0o000)
    const { code, stdout, stderr } = await checkUnreadable(file)
    expect(code, stdout + stderr).toBe(1)
    expect(stdout).toContain(`${file}: refused: 1 error`)
    expect(stderr).toContain(
      `panelbridge: cannot read ${file}: permission denied; try: sudo panelbridge check ${file}\n`,
    )
  })
})
