/**
 * The daemon on the bundled default config, as the browser tests start it: the file copied into a
 * folder of its own and edited there (its text, then its YAML document), the page's listener on a free
 * port, no hardware drivers unless given.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseDocument, type Document } from 'yaml'
import { BUNDLED_CONFIG, Daemon, type DaemonOptions } from '../../src/daemon/daemon.js'
import { SAFETY_MS } from '../helpers/until.js'

export interface BundledDaemon {
  daemon: Daemon
  dir: string
}

export async function startBundledDaemon(
  prefix: string,
  edit: { text?: (text: string) => string; doc?: (doc: Document) => void } = {},
  drivers: DaemonOptions['drivers'] = [],
): Promise<BundledDaemon> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  const doc = parseDocument((edit.text ?? String)(await readFile(BUNDLED_CONFIG, 'utf8')))
  doc.setIn(['app', 'url'], 'http://127.0.0.1:0')
  doc.setIn(['listen', 'port'], 0)
  edit.doc?.(doc)
  const config = join(dir, 'config.yaml')
  await writeFile(config, String(doc))
  return { daemon: await Daemon.start({ config, drivers, watch: false, reloadTimeoutMs: SAFETY_MS }), dir }
}

export async function stopBundledDaemon(started: BundledDaemon | undefined): Promise<void> {
  await started?.daemon.stop()
  if (started) await rm(started.dir, { recursive: true, force: true })
}
