/**
 * The one OS boundary of the network Stream Decks: a byte stream to `host:port`. Production opens a TCP
 * socket; tests hand the driver an in-memory pair whose far end is a fake deck speaking the device's side
 * of the protocol, so everything above this file (our framing, the library's HID reports, the deck) runs
 * as it does against a real Studio or Network Dock.
 */
import { Socket } from 'node:net'

/** What the link needs of a connected byte stream. */
export interface NetDeckSocket {
  write(data: Uint8Array): void
  /** Bytes written and not yet sent (a TCP socket's; a deck that does not read lets them grow). */
  readonly writableLength?: number
  /** Closes the stream; `close` follows (once). */
  destroy(): void
  on(event: 'connect', listener: () => void): this
  on(event: 'data', listener: (data: Buffer) => void): this
  on(event: 'close', listener: () => void): this
  on(event: 'error', listener: (err: Error) => void): this
}

/** Opens byte streams to decks. */
export interface NetDeckTransport {
  /** Starts connecting; `connect` or `error` then `close` follow on the returned stream. */
  connect(host: string, port: number): NetDeckSocket
}

/** The production transport: a TCP socket, with keep-alive off (the deck sends its own keepalives). */
export const tcpTransport: NetDeckTransport = {
  connect(host, port) {
    const socket = new Socket()
    socket.setNoDelay(true)
    socket.connect(port, host)
    return socket
  },
}
