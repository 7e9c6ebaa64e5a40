/**
 * Pictures on keys in the daemon (issue 26, item 3): a config whose `image:` file is missing starts
 * (a warning: `check` is the one that refuses it), its key shows its text and says why in the detail
 * the remote API shows; once the file is there, a reload (read in the config worker) puts the picture
 * on the key and the reason goes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { Daemon } from '../../src/daemon/daemon.js'
import { setLogSink, type LogRecord } from '../../src/log.js'
import { simulatedConfig } from '../helpers/config.js'
import { SAFETY_MS } from '../helpers/until.js'

const require = createRequire(import.meta.url)
const { createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas')

describe('a daemon with a picture key', () => {
  it('starts with the file missing, says why on the key, and shows the picture after a reload', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pb-daemon-images-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'config.yaml')
    await writeFile(file, simulatedConfig(`  - on: console/key:0\n    label: "CAM 1"\n    image: cam.png\n`))
    const logs: LogRecord[] = []
    const prev = setLogSink((r) => logs.push(r))
    onTestFinished(() => void setLogSink(prev))
    const daemon = await Daemon.start({ config: file, drivers: [], watch: false, reloadTimeoutMs: SAFETY_MS })
    onTestFinished(() => daemon.stop())

    expect(daemon.controlState('console', 'key:0')).toMatchObject({ label: 'CAM 1', detail: 'image: file not found' })
    expect(logs.some((r) => r.level === 'warn' && r.message.includes('image cam.png: file not found'))).toBe(true)

    const canvas = createCanvas(16, 16)
    canvas.getContext('2d').fillRect(0, 0, 16, 16)
    await writeFile(join(dir, 'cam.png'), canvas.encodeSync('png'))
    expect(await daemon.reload()).toBe(true)
    const state = daemon.controlState('console', 'key:0')
    expect(state).toMatchObject({ label: 'CAM 1' })
    expect(state).not.toHaveProperty('detail')
  })
})
