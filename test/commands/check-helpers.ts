/** `panelbridge check` run in-process on one config file written for the test, its text report collected. */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { runCheck } from '../../src/commands/check.js'

/** What one `check` run gave: its exit code, its text output, and the path of the file it checked. */
export interface CheckRun {
  code: number
  out: string
  path: string
}

/** Writes `text` as `c.yaml` in `dir` (over the last one) and runs `check` on it with the text format. */
export async function checkText(dir: string, text: string): Promise<CheckRun> {
  const path = join(dir, 'c.yaml')
  await writeFile(path, text)
  let out = ''
  const code = await runCheck({ files: [path], format: 'text' }, (t) => void (out += t))
  return { code, out, path }
}
