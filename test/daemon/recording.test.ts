/**
 * A recording never takes the desk down: a relative `record.file` lives in the service's state folder
 * (`$STATE_DIRECTORY`, systemd's StateDirectory=), else beside the config file. Real daemons against
 * the simulator, real files in a temporary folder.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import type { SentCommand } from '../../src/mappings/sender.js'
import { pagedConsoleHead } from '../helpers/paged-console.js'
import { until } from '../helpers/until.js'

/** One web console whose key:0 sends a command; `record` is the `record:` line's value, when any. */
function configText(record?: string): string {
  const head = pagedConsoleHead({ console: '{ driver: web, rows: 1, columns: 2 }' })
  const bindings = `  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`
  return `${head}${bindings}${record === undefined ? '' : `record: ${record}\n`}`
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** A daemon on `config`, its commands collected; stopped when the test ends. */
async function startDaemon(config: string): Promise<{ daemon: Daemon; sent: SentCommand[] }> {
  const sent: SentCommand[] = []
  const daemon = await Daemon.start({ config, drivers: [], watch: false, onCommand: (c) => void sent.push(c) })
  onTestFinished(() => daemon.stop())
  await until('the application link', () => daemon.status().app.state === 'connected')
  return { daemon, sent }
}

/** The `kind` of each line of a trace file. */
async function kinds(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8')
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => String((JSON.parse(l) as { kind: unknown }).kind))
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('where a relative record file lives', () => {
  it('in $STATE_DIRECTORY when systemd sets it, else beside the config file', async () => {
    const configDir = await tempDir('pb-rec-config-')
    const stateDir = await tempDir('pb-rec-state-')
    const config = join(configDir, 'show.yaml')
    await writeFile(config, configText('{ file: show.jsonl }'))

    vi.stubEnv('STATE_DIRECTORY', stateDir)
    const inState = await startDaemon(config)
    expect(inState.daemon.inject('console', 'key:0', 'press')).toBeUndefined()
    await until('the command', () => inState.sent.length === 1)
    await inState.daemon.stop()
    expect(await kinds(join(stateDir, 'show.jsonl'))).toEqual(['start', 'input', 'input', 'command'])
    await expect(readFile(join(configDir, 'show.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' })

    vi.stubEnv('STATE_DIRECTORY', '')
    const beside = await startDaemon(config)
    await beside.daemon.stop()
    expect(await kinds(join(configDir, 'show.jsonl'))).toEqual(['start'])
  })
})
