/**
 * The pictures keys show under their labels (issue 26, item 3), for the engine: a binding's `image:`
 * file (read by the loader, `check-image.ts`, and handed on with the config) and a title's thumbnail
 * (`thumbnails.ts`). `withPicture` puts one on a computed feedback, or, when it cannot be had, says why
 * in the key's `detail` (unless the key already says something there: a failure, a countdown).
 *
 * Nothing here loads the canvas library: a file picture arrives decoded, and a thumbnail is decoded
 * only once a binding asks for one.
 */
import type { AppState } from '../api/app-state.js'
import type { Logger } from '../log.js'
import { KeyPicture, type Box } from '../surfaces/render/picture.js'
import type { Feedback } from '../face/feedback.js'
import type { AppPort } from './app-router.js'
import type { AppsPlan } from './apps.js'
import { picturesOf, type FilePicture } from './check-image.js'
import type { Binding, Config } from './schema.js'
import type { CommandPort } from './sender.js'
import { AppThumbnails } from './thumbnail-apps.js'
import type { ThumbnailLook } from './thumbnails.js'

/** What the engine asks of the pictures (the daemon passes a `KeyPictures`). */
export interface PictureSource {
  /** The mapping in force (before the engine draws it). */
  apply(config: Config): void
  /** The picture of a binding's key, or why it has none; undefined for a key without one. */
  lookOf(binding: Binding): ThumbnailLook
  /** An input reached the engine (pictures are asked for at low priority). */
  noteInput(): void
  /** Called when a picture changed: the engine redraws the keys that show one. */
  onChange(listener: () => void): void
  stop(): void
}

export interface KeyPicturesOptions {
  /** The one application's client and state, when no `setApps` gives the applications (a test's, `replay`'s). */
  client?: CommandPort
  state?: AppState
  /** The image size of the control `on` (`surface/control`) when known (its surface open). */
  keySize?: (on: string) => Box | undefined
  log?: Logger
}

/** Whether a binding's key shows a picture. */
export function hasPicture(binding: Binding): boolean {
  return binding.image !== undefined || binding.feedback?.thumbnail === true
}

/** `feedback` with the picture of `look`, or its reason in `detail` when the key says nothing else there. */
export function withPicture(feedback: Feedback, look: ThumbnailLook): Feedback {
  if (look === undefined) return feedback
  if ('picture' in look) return { ...feedback, picture: look.picture }
  return feedback.detail === undefined ? { ...feedback, detail: look.why } : feedback
}

export class KeyPictures implements PictureSource {
  private files = new Map<string, { picture: KeyPicture } | { problem: string }>()
  private readonly listeners: (() => void)[] = []
  private thumbnails: AppThumbnails | undefined
  /** The applications (`apps:`), kept for the thumbnails made later (issue 27: a key asks the one it follows). */
  private apps: { plan: Pick<AppsPlan, 'defaultApp'>; ports: ReadonlyMap<string, AppPort> } | undefined

  constructor(private readonly o: KeyPicturesOptions) {}

  /** The applications of the config in force, before its mapping is applied (`thumbnail-apps.ts`). */
  setApps(plan: Pick<AppsPlan, 'defaultApp'>, ports: ReadonlyMap<string, AppPort>): void {
    this.apps = { plan, ports }
    this.thumbnails?.setApps(plan, ports)
  }

  apply(config: Config): void {
    this.files = revive(picturesOf(config))
    const wantsThumbnails = config.bindings.some((b) => b.feedback?.thumbnail === true)
    // Made on the first mapping that asks for a thumbnail: until then nothing listens to the store.
    if (wantsThumbnails && !this.thumbnails) {
      this.thumbnails = new AppThumbnails({ ...this.o, changed: () => this.listeners.forEach((l) => l()) })
      if (this.apps) this.thumbnails.setApps(this.apps.plan, this.apps.ports)
    }
    this.thumbnails?.want(config.bindings)
  }

  lookOf(binding: Binding): ThumbnailLook {
    if (binding.image !== undefined) {
      const file = this.files.get(binding.image)
      if (!file) return { why: 'image: not read' }
      return 'picture' in file ? file : { why: `image: ${file.problem}` }
    }
    return this.thumbnails?.lookOf(binding)
  }

  noteInput(): void {
    this.thumbnails?.noteInput()
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /**
   * The keys that show a picture look again (a surface opened: the size of its keys is known now, and
   * a thumbnail not asked at that size yet is asked for).
   */
  refresh(): void {
    if (this.thumbnails) this.listeners.forEach((l) => l())
  }

  stop(): void {
    this.thumbnails?.stop()
  }
}

/** The loader's pictures as the engine keeps them (a worker's arrive as plain data). */
function revive(pictures: Map<string, FilePicture> | undefined): Map<string, FilePicture> {
  const out = new Map<string, FilePicture>()
  for (const [image, file] of pictures ?? []) {
    out.set(image, 'picture' in file ? { picture: KeyPicture.revive(file.picture) } : file)
  }
  return out
}
