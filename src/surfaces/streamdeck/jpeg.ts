/** The JPEG encoding of key images: the library's asynchronous encoder, at our quality. */
import { encodeJPEG as libraryEncodeJPEG } from '@elgato-stream-deck/node-lib'
import type { OpenStreamDeckOptions } from '@elgato-stream-deck/core'

/** `(rgba, width, height) => jpeg bytes`, as the library calls it. */
export type EncodeJPEGHelper = NonNullable<OpenStreamDeckOptions['encodeJPEG']>

/** JPEG quality for key images: high, because keys are small and text must stay crisp. */
const JPEG_QUALITY = 95

/** The library's encoder at our quality: jpeg-turbo's asynchronous compress when it loads, else jpeg-js. */
export const libraryJpeg: EncodeJPEGHelper = (buffer, width, height) =>
  libraryEncodeJPEG(buffer, width, height, { quality: JPEG_QUALITY })
