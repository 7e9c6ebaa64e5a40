import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { runCli, type CliChild } from './cli.js'
import { LABEL_KEY, simulatedConfig } from './config.js'

/**
 * The built daemon on a one-key config, running; then the config gains a key labelled `label` whose
 * `image:` is `svg` (written beside it as `file`), and the daemon is sent SIGHUP to reload it.
 */
export async function daemonGainingPicture(file: string, svg: string, label: string): Promise<CliChild> {
  const dir = await mkdtemp(join(tmpdir(), 'pb-picture-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  const config = join(dir, 'config.yaml')
  await writeFile(config, simulatedConfig(LABEL_KEY))
  await writeFile(join(dir, file), svg)
  const cli = runCli(['run', '--config', config], { env: { PANELBRIDGE_LOG_LEVEL: 'info' } })
  await cli.waitFor(/panelbridge running: http:\/\/127\.0\.0\.1:\d+/)
  await writeFile(
    config,
    simulatedConfig(`${LABEL_KEY}  - on: console/key:1\n    label: "${label}"\n    image: ${file}\n`),
  )
  cli.child.kill('SIGHUP')
  return cli
}
