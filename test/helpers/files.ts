/**
 * Files a test writes: a temporary folder of its own, removed (with what the test put in it) when the test
 * finishes, and a config file written into one.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

/** A fresh folder under the system's temporary folder, named `pb-<name>-…`, removed when the test finishes. */
export async function testDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `pb-${name}-`))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** `text` written as `config.yaml` in a fresh test folder; returns the file's path. */
export async function testConfigFile(name: string, text: string): Promise<string> {
  const file = join(await testDir(name), 'config.yaml')
  await writeFile(file, text)
  return file
}
