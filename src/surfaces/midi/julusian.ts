/**
 * The real MIDI backend: `@julusian/midi` (RtMidi; ALSA sequencer on Linux), loaded on first use, so a
 * machine without it, without ALSA, or without sound devices runs on with no MIDI surfaces and one
 * clear log line.
 */
import { accessSync, constants } from 'node:fs'
import { EventHub } from '../../events.js'
import { lateImport } from '../../installed.js'
import { createLogger, type Logger } from '../../log.js'
import type { DeviceAccess } from '../hotplug.js'
import type { MidiBackend, MidiConnection, MidiConnectionEvents, MidiOpenOptions, MidiPortList } from './port.js'

type MidiModule = typeof import('@julusian/midi/lazy')
type NativeInput = InstanceType<MidiModule['Input']>
type NativeOutput = InstanceType<MidiModule['Output']>

/**
 * The ALSA sequencer device. Why it is checked: RtMidi prints its own lines to stderr (through the ALSA
 * library: `ALSA lib seq_hw.c:...`, `MidiInAlsa::initialize: ...`) each time it fails to reach the
 * sequencer, so the native side is not tried while this node is missing (a box without sound devices:
 * RtMidi's ALSA backend can reach no sequencer then), and after a failure it is tried again only once
 * the node appears or becomes accessible (a sound device appeared, a permission was fixed), never on
 * every rescan.
 */
const ALSA_SEQUENCER_PATH = '/dev/snd/seq'

/** The log line of a machine without MIDI. */
const MIDI_UNAVAILABLE_MESSAGE =
  'MIDI unavailable (no MIDI system: no ALSA sequencer or no sound devices); MIDI surfaces stay closed until it appears'

/** The log line of a sequencer this user may not open. */
const MIDI_PERMISSION_MESSAGE =
  `MIDI unavailable: no permission to open ${ALSA_SEQUENCER_PATH}; add the user panelbridge runs as to group ` +
  'audio (the systemd unit does) and restart it'

/** The sequencer's path and the two lines above, as one record for the tests that pin them. */
export const MIDI_SYSTEM = {
  sequencerPath: ALSA_SEQUENCER_PATH,
  unavailableMessage: MIDI_UNAVAILABLE_MESSAGE,
  permissionMessage: MIDI_PERMISSION_MESSAGE,
} as const

/** Empty lists, fresh each time (callers own what `list` returns). */
const noPorts = (): MidiPortList => ({ inputs: [], outputs: [] })

/** Whether this process may open the ALSA sequencer (`ok` off Linux: there is nothing to check). */
function alsaSequencer(): DeviceAccess {
  if (process.platform !== 'linux') return 'ok'
  try {
    accessSync(ALSA_SEQUENCER_PATH, constants.R_OK | constants.W_OK)
    return 'ok'
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    return code === 'EACCES' || code === 'EPERM' ? 'denied' : 'missing'
  }
}

export interface JulusianBackendOptions {
  logger?: Logger
  /** Loads the module; tests pass one that fails. */
  load?: () => Promise<MidiModule>
  /** Whether this process may open the ALSA sequencer; default: `fs.access` on ALSA_SEQUENCER_PATH. */
  sequencer?: () => DeviceAccess
}

export class JulusianMidiBackend implements MidiBackend {
  private readonly log: Logger
  private readonly load: () => Promise<MidiModule>
  private readonly sequencer: () => DeviceAccess
  private module: MidiModule | undefined
  /** Set after a failure: the native side is left alone until the sequencer comes (back) within reach. */
  private failed = false
  /** Since the failure the sequencer was out of reach (missing or denied): its return is worth a try. */
  private awaitingSequencer = false

  constructor(opts: JulusianBackendOptions = {}) {
    this.log = opts.logger ?? createLogger('midi')
    this.load = opts.load ?? (() => lateImport('@julusian/midi', () => import('@julusian/midi/lazy')))
    this.sequencer = opts.sequencer ?? alsaSequencer
  }

  async list(): Promise<MidiPortList> {
    const seq = this.sequencer()
    if (seq === 'denied') {
      // Why not try: RtMidi would print its failure to stderr on every rescan, and the answer is known.
      this.failed = true
      this.awaitingSequencer = true
      this.log.once('permission', 'warn', MIDI_PERMISSION_MESSAGE, { path: ALSA_SEQUENCER_PATH })
      return noPorts()
    }
    if (seq === 'missing') {
      // Why not try: with no sequencer RtMidi can only fail, and the ALSA library says so on stderr.
      this.failed = true
      this.awaitingSequencer = true
      this.log.once('unavailable', 'warn', MIDI_UNAVAILABLE_MESSAGE, { path: ALSA_SEQUENCER_PATH })
      return noPorts()
    }
    if (this.failed && !this.awaitingSequencer) return noPorts()
    try {
      const mod = (this.module ??= await this.load())
      const list = { inputs: mod.Input.getPortNames(), outputs: mod.Output.getPortNames() }
      if (this.failed) this.log.info('MIDI available again')
      this.failed = false
      this.log.clear('unavailable')
      this.log.clear('permission')
      return list
    } catch (err) {
      this.failed = true
      this.awaitingSequencer = seq !== 'ok'
      this.log.once('unavailable', 'warn', MIDI_UNAVAILABLE_MESSAGE, { error: err })
      return noPorts()
    }
  }

  async open(o: MidiOpenOptions): Promise<MidiConnection> {
    const mod = (this.module ??= await this.load())
    const input = new mod.Input()
    let output: NativeOutput | undefined
    try {
      openByName(input, o.input)
      // Why: RtMidi drops SysEx, clock and active sensing by default; SysEx only when a profile uses it.
      input.ignoreTypes(!o.sysex, true, true)
      if (o.output !== undefined) {
        output = new mod.Output()
        openByName(output, o.output)
      }
    } catch (err) {
      closeQuietly(input, output, this.log)
      throw err
    }
    return new JulusianConnection(o.input, o.output, input, output, this.log)
  }
}

/** Opens the port with this exact name; throws when it is not listed (it vanished since the scan). */
function openByName(port: NativeInput | NativeOutput, name: string): void {
  for (let i = 0; i < port.getPortCount(); i++) {
    if (port.getPortName(i) === name) {
      port.openPort(i)
      return
    }
  }
  throw new Error(`MIDI port ${JSON.stringify(name)} is not there`)
}

function closeQuietly(input: NativeInput, output: NativeOutput | undefined, log: Logger): void {
  for (const p of [input, output]) {
    if (!p) continue
    // Why no rethrow: closing a port whose device vanished may throw, and there is nothing left to free.
    try {
      p.closePort()
      p.destroy()
    } catch (err) {
      log.debug('MIDI port did not close cleanly', { error: err })
    }
  }
}

class JulusianConnection implements MidiConnection {
  private readonly hub = new EventHub<MidiConnectionEvents>()
  readonly events = this.hub.listenable
  private closed = false
  private readonly onMessage = (_delta: number, bytes: Buffer): void => {
    this.hub.emit('message', new Uint8Array(bytes))
  }

  constructor(
    readonly input: string,
    readonly output: string | undefined,
    private readonly nativeInput: NativeInput,
    private readonly nativeOutput: NativeOutput | undefined,
    private readonly log: Logger,
  ) {
    nativeInput.on('messageBuffer', this.onMessage)
  }

  send(bytes: readonly number[]): void {
    if (this.closed || !this.nativeOutput) return
    this.nativeOutput.sendMessage(Buffer.from(bytes))
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.nativeInput.off('messageBuffer', this.onMessage)
    closeQuietly(this.nativeInput, this.nativeOutput, this.log)
    this.hub.emit('closed')
  }
}
