/** The in-memory MIDI system for surface tests (the transport boundary): ports appear, vanish, send and receive. */
import { EventHub } from '../../../src/events.js'
import type {
  MidiBackend,
  MidiConnection,
  MidiConnectionEvents,
  MidiOpenOptions,
  MidiPortList,
} from '../../../src/surfaces/midi/port.js'

export class FakeMidiConnection implements MidiConnection {
  readonly hub = new EventHub<MidiConnectionEvents>()
  readonly events = this.hub.listenable
  /** Every message sent to the output port, in order. */
  readonly sent: number[][] = []
  closed = false
  /** Makes the next sends throw, as a port whose device vanished may. */
  failSends = false

  constructor(
    readonly input: string,
    readonly output: string | undefined,
    readonly sysex = false,
  ) {}

  send(bytes: readonly number[]): void {
    if (this.failSends) throw new Error('send failed: device gone')
    if (this.output !== undefined) this.sent.push([...bytes])
  }
  close(): void {
    if (this.closed) return
    this.closed = true
    this.hub.emit('closed')
  }
  /** Bytes from the device, as one packet. */
  receive(bytes: number[]): void {
    this.hub.emit('message', Uint8Array.from(bytes))
  }
}

export class FakeMidiBackend implements MidiBackend {
  inputs: string[] = []
  outputs: string[] = []
  readonly connections: FakeMidiConnection[] = []
  lists = 0

  constructor(ports: { inputs?: string[]; outputs?: string[] } = {}) {
    this.inputs = [...(ports.inputs ?? [])]
    this.outputs = [...(ports.outputs ?? [])]
  }

  list(): Promise<MidiPortList> {
    this.lists++
    return Promise.resolve({ inputs: [...this.inputs], outputs: [...this.outputs] })
  }
  open(o: MidiOpenOptions): Promise<MidiConnection> {
    if (!this.inputs.includes(o.input)) return Promise.reject(new Error(`no input ${o.input}`))
    if (o.output !== undefined && !this.outputs.includes(o.output))
      return Promise.reject(new Error(`no output ${o.output}`))
    const c = new FakeMidiConnection(o.input, o.output, o.sysex ?? false)
    this.connections.push(c)
    return Promise.resolve(c)
  }
  /** The latest connection still open. */
  get last(): FakeMidiConnection | undefined {
    return [...this.connections].reverse().find((c) => !c.closed)
  }
}
