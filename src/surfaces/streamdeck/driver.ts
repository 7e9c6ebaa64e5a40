/**
 * The Stream Deck driver: detect (list, never open), open (build the deck with the library's model
 * factory over a transport's `HIDDevice`), and hand back a `StreamDeckSurface`.
 */
import { MODEL_NAMES } from '@elgato-stream-deck/core'
import { createLogger } from '../../log.js'
import { detectedHid, hidIdentity } from '../usb-hid/identity.js'
import { KeyRenderer } from '../render/key-renderer.js'
import type { SurfaceDriver } from '../types.js'
import { findModel, hex4, isUsbDeckModel, nodeHidTransport, type StreamDeckTransport } from './transport.js'
import { StreamDeckSurface } from './surface.js'
import { DeviceBytesCache, sharedDeviceBytes } from './device-bytes.js'
import { installFastTransform } from './fast-transform.js'
import { libraryJpeg, type EncodeJPEGHelper } from './jpeg.js'
import type { DetectedDevice } from '../../face/surface.js'

export type { EncodeJPEGHelper } from './jpeg.js'

export interface StreamDeckDriverOptions {
  /** Defaults to node-hid. Tests pass an in-memory transport. */
  transport?: StreamDeckTransport
  /** Shared renderer (and its cache); one is made if not given. */
  renderer?: KeyRenderer
  /** JPEG encoder for the models that take JPEG; defaults to the library's (jpeg-turbo or jpeg-js). */
  encodeJPEG?: EncodeJPEGHelper
  /** Minimum time between write-queue flushes; default 60 fps. */
  frameMs?: number
  /**
   * Cache of encoded key images. Default: the process's shared cache with the library's encoder; a driver
   * given its own `encodeJPEG` gets a cache of its own, since its bytes are not the shared encoder's.
   */
  deviceBytes?: DeviceBytesCache
  /** How many images of one frame are prepared at once; default the cores available. */
  parallel?: number
}

/** Stable identity (the serial number, else `vendor:product@path`): the one rule of every HID driver. */
export const streamDeckIdentity = hidIdentity

export class StreamDeckDriver implements SurfaceDriver {
  readonly name = 'streamdeck'
  private readonly transport: StreamDeckTransport
  private readonly renderer: KeyRenderer
  private readonly encodeJPEG: EncodeJPEGHelper
  readonly deviceBytes: DeviceBytesCache
  private readonly log = createLogger('streamdeck')

  constructor(private readonly opts: StreamDeckDriverOptions = {}) {
    this.transport = opts.transport ?? nodeHidTransport()
    this.renderer = opts.renderer ?? new KeyRenderer()
    this.deviceBytes = opts.deviceBytes ?? (opts.encodeJPEG ? new DeviceBytesCache() : sharedDeviceBytes)
    // The library's encoder already takes jpeg-turbo's asynchronous `compress` (libuv's threads) when it
    // loads, so encoding leaves the event loop; the write queue runs a frame's encodes side by side.
    this.encodeJPEG = opts.encodeJPEG ?? libraryJpeg
  }

  async detect(): Promise<DetectedDevice[]> {
    const listings = await this.transport.list()
    return listings
      .filter((l) => isUsbDeckModel(l.model))
      .map((l) => detectedHid(this.name, l, { id: l.model, name: MODEL_NAMES[l.model] }))
  }

  async open(device: DetectedDevice): Promise<StreamDeckSurface> {
    if (!device.path) throw new Error(`streamdeck: device ${device.id} has no path to open`)
    const hid = await this.transport.open(device.path)
    try {
      const info = await hid.getDeviceInfo()
      const model = findModel(info.vendorId, info.productId)
      if (!model) throw new Error(`streamdeck: ${hex4(info.vendorId)}:${hex4(info.productId)} is not a known model`)
      // The library's pixel conversion by rows where it gives the same bytes (./fast-transform.ts).
      installFastTransform()
      const deck = await model.spec.factory(hid, { encodeJPEG: this.encodeJPEG })
      return new StreamDeckSurface(deck, device.id, {
        renderer: this.renderer,
        logger: this.log.child(device.id),
        deviceBytes: this.deviceBytes,
        ...(this.opts.parallel !== undefined ? { parallel: this.opts.parallel } : {}),
        ...(this.opts.frameMs !== undefined ? { frameMs: this.opts.frameMs } : {}),
      })
    } catch (err) {
      await hid.close().catch((closeErr: unknown) => this.log.debug('close after a failed open', { error: closeErr }))
      throw err
    }
  }
}
