/**
 * A stand-in Satellite client written from the protocol as Companion documents and speaks it: a TCP link
 * that reads the server's lines, answers its PINGs, and says what a Satellite of a given API version says
 * (a layout-manifest `ADD-DEVICE` from API 1.9, a key grid before). What the real client (the judge's)
 * does not reach in a test: old versions, formats, floods, silence.
 */
import { connect, type Socket } from 'node:net'
import { onTestFinished } from 'vitest'
import { until, untilFound } from '../helpers/until.js'

export interface ServerLine {
  command: string
  status?: 'OK' | 'ERROR'
  params: Record<string, string | true>
  raw: string
}

/** The protocol's parameters: `KEY=VALUE`, `KEY="quoted value"`, bare `KEY`. */
export function readParams(body: string): Record<string, string | true> {
  const out: Record<string, string | true> = {}
  for (const m of body.matchAll(/([A-Za-z_]+)(?:=(?:"([^"]*)"|(\S*)))?/g)) out[m[1]!] = m[2] ?? m[3] ?? true
  return out
}

export function readLine(raw: string): ServerLine {
  const [command = '', ...rest] = raw.split(' ')
  let body = rest.join(' ')
  let status: 'OK' | 'ERROR' | undefined
  if (body.startsWith('OK') || body.startsWith('ERROR')) {
    status = body.startsWith('OK') ? 'OK' : 'ERROR'
    body = body.slice(status.length).trimStart()
  }
  return { command, ...(status ? { status } : {}), params: readParams(body), raw }
}

export class StandInClient {
  readonly lines: ServerLine[] = []
  closed = false
  private buffer = ''

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8')
    socket.on('data', (text: string) => {
      this.buffer += text
      let at: number
      while ((at = this.buffer.indexOf('\n')) !== -1) {
        const raw = this.buffer.slice(0, at)
        this.buffer = this.buffer.slice(at + 1)
        const line = readLine(raw)
        this.lines.push(line)
        if (line.command === 'PING') socket.write(`PONG ${raw.slice(5)}\n`)
      }
    })
    socket.on('close', () => (this.closed = true))
    socket.on('error', () => undefined)
  }

  /** Connects to the server on loopback; closed when the test finishes. */
  static async connect(port: number, host = '127.0.0.1'): Promise<StandInClient> {
    const socket = connect({ port, host })
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    const client = new StandInClient(socket)
    onTestFinished(() => client.close())
    return client
  }

  send(line: string): void {
    this.socket.write(`${line}\n`)
  }

  close(): void {
    this.socket.destroy()
  }

  /** The first line from `from` on that `match` takes. */
  find(match: (l: ServerLine) => boolean, from = 0): ServerLine | undefined {
    return this.lines.slice(from).find(match)
  }

  async waitFor(what: string, match: (l: ServerLine) => boolean, from = 0): Promise<ServerLine> {
    return untilFound(what, () => this.find(match, from))
  }

  async waitClosed(): Promise<void> {
    await until('the server to close the link', () => this.closed)
  }

  /** The KEY-STATE lines of a device from `from` on, by the key they name (CONTROLID, else KEY). */
  keyStates(device: string, from = 0): Map<string, ServerLine> {
    const out = new Map<string, ServerLine>()
    for (const l of this.lines.slice(from))
      if (l.command === 'KEY-STATE' && l.params.DEVICEID === device)
        out.set(String(l.params.CONTROLID ?? l.params.KEY), l)
    return out
  }
}

/** A layout manifest: `rows`×`columns` keys of `bitmap` pixels (ids `row/column`), and `encoders` in a row below. */
export function manifest(rows: number, columns: number, bitmap: number, encoders = 0): string {
  const controls: Record<string, { row: number; column: number; stylePreset?: string }> = {}
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) controls[`${r}/${c}`] = { row: r, column: c }
  for (let e = 0; e < encoders; e++) controls[`enc${e}`] = { row: rows, column: e, stylePreset: 'knob' }
  const layout = { stylePresets: { default: { bitmap: { w: bitmap, h: bitmap } }, knob: {} }, controls }
  return Buffer.from(JSON.stringify(layout)).toString('base64')
}

/** A current client's ADD-DEVICE (a layout manifest, the negotiated format). */
export function addDevice(id: string, layout: string, format?: 'png' | 'webp'): string {
  return `ADD-DEVICE DEVICEID="${id}" LAYOUT_MANIFEST="${layout}" PRODUCT_NAME="Stand-in" BRIGHTNESS=1 PINCODE_LOCK="FULL"${format ? ` BITMAP_FORMAT="${format}"` : ''}`
}
