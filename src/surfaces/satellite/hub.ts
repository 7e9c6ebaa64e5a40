/**
 * The devices Satellite clients have added, and what each client says: the server (`./server.ts`) hands
 * every client's lines here, one `SatelliteClient` a connection; the satellite driver lists the devices
 * and opens them (`./driver.ts`). An added device is a device plugged in: the surface manager finds it
 * at once (a hot-plug `attach`) and opens it when a `surfaces:` entry claims it by its id; a device
 * removed, or its client gone, is unplugged (`detach`): the surface shows stale until it is back.
 *
 * A device id is one surface: a second client that adds an id another client holds is refused
 * (`ADD-DEVICE ERROR`, logged) and the first keeps it.
 */
import { createLogger, type Logger } from '../../log.js'
import { listenerHotplugSource, type HotplugChange, type HotplugSource } from '../hotplug.js'
import { satelliteControls, type SatelliteControl } from '../../families/satellite.js'
import type { DetectedDevice } from '../../face/surface.js'
import { parseLayout } from './layout.js'
import {
  formatSatelliteMessage,
  isFalsey,
  isTruthy,
  rotationSteps,
  SATELLITE_API_VERSION,
  SATELLITE_BITMAP_FORMATS,
  type SatelliteBitmapFormat,
  type SatelliteLimits,
  type SatelliteParams,
  type SatelliteValue,
  parseSatelliteLine,
} from './protocol.js'

/** The driver name of the family (the `driver:` of the mapping file). */
export const SATELLITE_DRIVER = 'satellite'

/** What a client's connection gives the hub: where to write, and how to end it. */
export interface SatelliteLink {
  /** `1.2.3.4:5678`, for the log. */
  readonly peer: string
  /** Writes one line; false when the link is gone or was dropped for not reading. */
  write(line: string): boolean
  /** Ends the link (the hub then hears `closed`). */
  close(): void
}

/** A device's input, as a surface or `learn` takes it. */
export type SatelliteInput =
  { type: 'down' | 'up'; control: SatelliteControl } | { type: 'rotate'; control: SatelliteControl; delta: number }

/** One device a client added. */
export interface SatelliteDevice {
  readonly id: string
  readonly client: SatelliteClient
  readonly productName: string
  /** Its controls with our ids, in row order. */
  readonly controls: readonly SatelliteControl[]
  /** A layout-manifest client names controls by CONTROLID, an older one by key number. */
  readonly fromManifest: boolean
  readonly bitmapFormat: SatelliteBitmapFormat
  /** Whether it takes BRIGHTNESS. */
  readonly brightness: boolean
  /** Whether it draws a pin-code lock itself (`PINCODE_LOCK`): it is told at open that it is unlocked. */
  readonly lockedState: boolean
  /** Where its input goes while a surface has it open. */
  input?: ((input: SatelliteInput) => void) | undefined
  /** Told once when it is removed or its client goes. */
  gone?: (() => void) | undefined
  readonly byClientId: ReadonlyMap<string, SatelliteControl>
  /** A grid client's keys by position (`row/column`). */
  readonly byPlace: ReadonlyMap<string, SatelliteControl>
}

export class SatelliteHub {
  private readonly devices = new Map<string, SatelliteDevice>()
  private readonly listeners = new Set<(change: HotplugChange) => void>()
  private readonly unclaimedInput = new Set<(device: SatelliteDevice, input: SatelliteInput) => void>()
  readonly log: Logger

  constructor(log: Logger = createLogger('satellite')) {
    this.log = log
  }

  /** A new client: the server's greeting is sent at once. */
  connect(link: SatelliteLink, limits: SatelliteLimits, companionVersion: string): SatelliteClient {
    return new SatelliteClient(this, link, limits, companionVersion)
  }

  /** The devices added now, as detection lists them. */
  list(): DetectedDevice[] {
    return [...this.devices.values()].map((d) => ({
      driver: SATELLITE_DRIVER,
      id: d.id,
      model: d.productName,
      serial: d.id,
    }))
  }

  get(id: string): SatelliteDevice | undefined {
    return this.devices.get(id)
  }

  get size(): number {
    return this.devices.size
  }

  /** Devices come and go as hot-plug changes, so the manager scans at once. */
  hotplug(): HotplugSource {
    return listenerHotplugSource(this.listeners)
  }

  /** Follows the input of devices no surface has open (`learn`). Returns how to stop. */
  watchUnclaimedInput(listener: (device: SatelliteDevice, input: SatelliteInput) => void): () => void {
    this.unclaimedInput.add(listener)
    return () => void this.unclaimedInput.delete(listener)
  }

  /** @internal a client's device added. */
  register(device: SatelliteDevice): void {
    this.devices.set(device.id, device)
    this.log.info('a Satellite client added a device', {
      device: device.id,
      product: device.productName,
      peer: device.client.link.peer,
      controls: device.controls.length,
    })
    this.fire('attach')
  }

  /** @internal a device removed by its client, or its client gone. */
  unregister(device: SatelliteDevice, why: string): void {
    if (this.devices.get(device.id) !== device) return
    this.devices.delete(device.id)
    device.input = undefined
    const gone = device.gone
    device.gone = undefined
    this.log.info('a Satellite device went', { device: device.id, peer: device.client.link.peer, why })
    gone?.()
    this.fire('detach')
  }

  /** @internal input of a device. */
  input(device: SatelliteDevice, input: SatelliteInput): void {
    if (device.input) device.input(input)
    else if (this.unclaimedInput.size > 0) for (const l of this.unclaimedInput) l(device, input)
    else
      this.log.once(`unclaimed:${device.id}`, 'info', 'input from a Satellite device no surface claims', {
        device: device.id,
        hint: `to use it, add under surfaces: { driver: ${SATELLITE_DRIVER}, device: "${device.id}" }`,
      })
  }

  private fire(change: HotplugChange): void {
    for (const l of this.listeners) l(change)
  }
}

/** One client's connection: its commands, its devices. */
export class SatelliteClient {
  readonly devices = new Map<string, SatelliteDevice>()
  private closed = false

  constructor(
    private readonly hub: SatelliteHub,
    readonly link: SatelliteLink,
    private readonly limits: SatelliteLimits,
    companionVersion: string,
  ) {
    this.send('BEGIN', null, null, { CompanionVersion: companionVersion, ApiVersion: SATELLITE_API_VERSION })
    this.send('CAPS', null, null, {
      SUBSCRIPTIONS: false,
      NONSQUARE: true,
      BITMAP_FORMATS: SATELLITE_BITMAP_FORMATS.join(','),
      ROTARY_AMOUNT: true,
    })
  }

  /** Sends one message; false when the link is gone. */
  send(
    name: string,
    status: 'OK' | 'ERROR' | null,
    deviceId: string | null,
    args: Readonly<Record<string, SatelliteValue>> = {},
  ): boolean {
    if (this.closed) return false
    return this.link.write(formatSatelliteMessage(name, status, deviceId, args))
  }

  /** Handles one line from the client (without its newline). */
  line(text: string): void {
    if (this.closed) return
    const { command, body, params } = parseSatelliteLine(text)
    switch (command) {
      case '':
        return
      case 'PING':
        // The payload goes back as it came: Satellite drops a link whose pings go unanswered.
        this.link.write(`PONG ${body}\n`)
        return
      case 'PONG':
        return
      case 'QUIT':
        this.link.close()
        return
      case 'ADD-DEVICE':
        return this.addDevice(params)
      case 'REMOVE-DEVICE': {
        const device = this.deviceOf('REMOVE-DEVICE', params)
        if (!device) return
        this.devices.delete(device.id)
        this.hub.unregister(device, 'removed by its client')
        this.send('REMOVE-DEVICE', 'OK', device.id)
        return
      }
      case 'KEY-PRESS':
        return this.keyPress(params)
      case 'KEY-ROTATE':
        return this.keyRotate(params)
      // What panelbridge does not take: a clear refusal, the link kept.
      case 'SET-VARIABLE-VALUE':
      case 'PINCODE-KEY':
      case 'FIRMWARE-UPDATE-INFO':
      case 'CHANGE-PAGE':
      case 'ADD-SUB':
      case 'REMOVE-SUB':
      case 'SUB-PRESS':
      case 'SUB-ROTATE': {
        const id = typeof params.DEVICEID === 'string' ? params.DEVICEID : null
        this.send(command, 'ERROR', id, { MESSAGE: 'Not supported by panelbridge' })
        return
      }
      default:
        this.send('ERROR', null, null, { MESSAGE: `Unknown command: ${command.slice(0, 64)}` })
    }
  }

  /** The link is gone: its devices are unplugged. */
  closedLink(): number {
    if (this.closed) return 0
    this.closed = true
    const count = this.devices.size
    for (const device of this.devices.values()) this.hub.unregister(device, 'its Satellite client went')
    this.devices.clear()
    return count
  }

  private error(name: string, deviceId: string | undefined, message: string): void {
    this.send(name, 'ERROR', deviceId ?? null, { MESSAGE: message })
  }

  private addDevice(params: SatelliteParams): void {
    const name = 'ADD-DEVICE'
    const id = params.DEVICEID
    if (typeof id !== 'string' || id === '') return this.error(name, undefined, 'Missing DEVICEID')
    // ASSUMED: device ids as Satellite makes them (`streamdeck:CL12K1A00042`): at most 128 characters, no
    // control character, quote or backslash (the id goes back quoted in every line about the device).
    if (id.length > 128 || [...id].some((ch) => ch < ' ' || ch === '\x7f' || ch === '"' || ch === '\\'))
      return this.error(name, undefined, 'Invalid DEVICEID')
    if (params.PRODUCT_NAME === undefined || params.PRODUCT_NAME === true)
      return this.error(name, id, 'Missing PRODUCT_NAME')
    if (this.devices.has(id)) return this.error(name, id, 'Device already added')
    const holder = this.hub.get(id)
    if (holder) {
      this.hub.log.warn('refused a Satellite device: another Satellite client holds that device id', {
        device: id,
        peer: this.link.peer,
        holder: holder.client.link.peer,
      })
      return this.error(name, id, 'Device exists elsewhere: another Satellite client holds this device id')
    }
    if (this.devices.size >= this.limits.devicesPerConnection) {
      this.hub.log.once(`too-many:${this.link.peer}`, 'warn', 'refused a Satellite device: too many from one client', {
        peer: this.link.peer,
        limit: this.limits.devicesPerConnection,
      })
      return this.error(name, id, `A client adds at most ${this.limits.devicesPerConnection} devices`)
    }
    const layout = parseLayout(params, this.limits)
    if (!layout.ok) return this.error(name, id, layout.message)
    const controls = satelliteControls(layout.controls)
    const format = params.BITMAP_FORMAT
    const bitmapFormat: SatelliteBitmapFormat =
      typeof format === 'string' && (SATELLITE_BITMAP_FORMATS as readonly string[]).includes(format)
        ? (format as SatelliteBitmapFormat)
        : 'rgb'
    const device: SatelliteDevice = {
      id,
      client: this,
      productName: String(params.PRODUCT_NAME).slice(0, 128),
      controls,
      fromManifest: layout.fromManifest,
      bitmapFormat,
      brightness: params.BRIGHTNESS === undefined || isTruthy(params.BRIGHTNESS),
      lockedState: params.PINCODE_LOCK === 'FULL' || params.PINCODE_LOCK === 'PARTIAL',
      byClientId: new Map(controls.map((c) => [c.clientId, c])),
      byPlace: new Map(controls.map((c) => [`${c.row}/${c.column}`, c])),
    }
    this.devices.set(id, device)
    // OK first, then the surface: its first KEY-STATE lines follow the client's OK.
    this.send(name, 'OK', id)
    this.hub.register(device)
  }

  private deviceOf(name: string, params: SatelliteParams): SatelliteDevice | undefined {
    const id = params.DEVICEID
    if (typeof id !== 'string' || id === '') {
      this.error(name, undefined, 'Missing DEVICEID')
      return undefined
    }
    const device = this.devices.get(id)
    if (!device) this.error(name, id.slice(0, 128), 'Device not found')
    return device
  }

  /** The control a KEY-PRESS or KEY-ROTATE names: CONTROLID for a layout client, KEY for a grid one. */
  private controlOf(name: string, device: SatelliteDevice, params: SatelliteParams): SatelliteControl | undefined {
    if (device.fromManifest) {
      const id = params.CONTROLID
      if (typeof id !== 'string') return void this.error(name, device.id, 'Missing CONTROLID')
      const control = device.byClientId.get(id)
      if (!control) this.error(name, device.id, 'Unknown CONTROLID')
      return control
    }
    const key = params.KEY
    if (typeof key !== 'string') return void this.error(name, device.id, 'Missing KEY')
    const place = /^\+?(\d+)\/\+?(\d+)$/.exec(key)
    const control = place
      ? device.byPlace.get(`${Number(place[1])}/${Number(place[2])}`)
      : /^\d+$/.test(key)
        ? device.byClientId.get(String(Number(key)))
        : undefined
    if (!control) this.error(name, device.id, 'Invalid KEY')
    return control
  }

  private keyPress(params: SatelliteParams): void {
    const name = 'KEY-PRESS'
    const device = this.deviceOf(name, params)
    if (!device) return
    const control = this.controlOf(name, device, params)
    if (!control) return
    if (params.PRESSED === undefined) return this.error(name, device.id, 'Missing PRESSED')
    this.hub.input(device, { type: isFalsey(params.PRESSED) ? 'up' : 'down', control })
    this.send(name, 'OK', device.id)
  }

  private keyRotate(params: SatelliteParams): void {
    const name = 'KEY-ROTATE'
    const device = this.deviceOf(name, params)
    if (!device) return
    const control = this.controlOf(name, device, params)
    if (!control) return
    if (params.DIRECTION === undefined) return this.error(name, device.id, 'Missing DIRECTION')
    const delta = rotationSteps(params.DIRECTION)
    if (delta === undefined) return this.error(name, device.id, 'Invalid DIRECTION')
    // A key does not turn: a grid client's layout names no encoders, a layout client's key takes a bitmap.
    if (control.kind !== 'encoder') return this.error(name, device.id, 'That control is a key, which does not rotate')
    this.hub.input(device, { type: 'rotate', control, delta })
    this.send(name, 'OK', device.id)
  }
}
