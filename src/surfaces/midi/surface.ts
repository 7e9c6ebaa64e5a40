/**
 * An open MIDI controller: bytes from its input port become surface events (through the parser and
 * the relative encoder modes), feedback becomes LED bytes on its output port (through the profile).
 */
import { EventHub } from '../../events.js'
import { createLogger, type Logger } from '../../log.js'
import { ControlIdError, formatControlId, parseControlId, type ControlId } from '../../face/control-id.js'
import type { Feedback } from '../../face/feedback.js'
import type { Surface, SurfaceEvent, SurfaceEvents } from '../types.js'
import { blankMessage, feedbackMessages, type OutputRule } from './feedback.js'
import { MidiParser, type MidiMessage } from './parser.js'
import type { MidiConnection } from './port.js'
import type { MidiProfile } from './profile.js'
import { relativeDelta, type RelativeMode } from '../../families/midi.js'
import type { SurfaceDescription } from '../../face/surface.js'

/** Pitch bend centre (14-bit). */
const PITCH_CENTRE = 8192

/** The port of an open surface vanished from the system's list. */
export class MidiPortGoneError extends Error {
  override readonly name = 'MidiPortGoneError'
  readonly code = 'EMIDIGONE'
  constructor(readonly port: string) {
    super(`MIDI port ${JSON.stringify(port)} vanished`)
  }
}

export interface MidiSurfaceOptions {
  /** The surface's identity (the input port's name). */
  id: string
  /** Relative encoder mode per control id, over the profile's. */
  relative?: Readonly<Record<ControlId, RelativeMode>>
  /** Surface brightness at open, 0..100. */
  brightness?: number
  logger?: Logger
}

export class MidiSurface implements Surface {
  readonly description: SurfaceDescription
  private readonly hub = new EventHub<SurfaceEvents>()
  readonly events = this.hub.listenable
  private readonly parser: MidiParser
  private readonly log: Logger
  private brightness: number
  /** What each control shows now, to re-send at a brightness change and to blank at close. */
  private readonly shown = new Map<ControlId, Feedback>()
  /** The bytes last sent per control, so a feedback that changes nothing sends nothing. */
  private readonly sent = new Map<ControlId, string>()
  private closing: Promise<void> | undefined
  private failed = false
  private readonly onMessage = (bytes: Uint8Array): void => this.receive(bytes)
  private readonly onError = (err: Error): void => this.fail(err)
  private readonly onClosed = (): void => {
    // Closed by the system side: close our part too, and tell the manager.
    void this.close()
  }

  constructor(
    private readonly connection: MidiConnection,
    private readonly profile: MidiProfile,
    private readonly opts: MidiSurfaceOptions,
  ) {
    this.log = opts.logger ?? createLogger('midi').child(opts.id)
    this.brightness = opts.brightness ?? 100
    this.parser = new MidiParser({ sysex: profile.data.sysex })
    this.description = {
      id: opts.id,
      driver: 'midi',
      model: profile.name,
      ...(profile.data.grid ? { grid: profile.data.grid } : {}),
      controls: profile.descriptors(),
    }
    connection.events.on('message', this.onMessage)
    connection.events.on('error', this.onError)
    connection.events.on('closed', this.onClosed)
    // A controller that was just plugged in still shows what it showed before (or its start-up lights):
    // every LED the profile knows goes dark, then the manager applies the current feedback.
    for (const rule of this.profile.controls.values()) {
      const off = blankMessage(rule)
      if (off) this.send(rule.descriptor.id, [off])
    }
  }

  /** The port behind this surface vanished (seen by the driver's rescan): the manager closes and retries. */
  portGone(port: string): void {
    this.fail(new MidiPortGoneError(port))
  }

  setFeedback(control: ControlId, feedback: Feedback): void {
    if (this.closing) return
    const rule = this.ruleOf(control)
    if (!rule) return
    this.shown.set(control, feedback)
    this.send(control, feedbackMessages(rule, feedback, this.brightness))
  }

  setBrightness(percent: number): void {
    if (this.closing || !Number.isFinite(percent)) return
    this.brightness = Math.min(100, Math.max(0, percent))
    for (const [control, feedback] of this.shown) this.setFeedback(control, feedback)
  }

  close(): Promise<void> {
    if (!this.closing) {
      this.closing = Promise.resolve()
      this.doClose()
    }
    return this.closing
  }

  private doClose(): void {
    this.connection.events.off('message', this.onMessage)
    this.connection.events.off('closed', this.onClosed)
    for (const control of this.shown.keys()) {
      const rule = this.ruleOf(control)
      const off = rule && blankMessage(rule)
      if (!off) continue
      try {
        this.connection.send(off)
      } catch (err) {
        // A vanished port cannot be blanked; closing goes on.
        this.log.debug('could not blank a control while closing', { control, error: err })
        break
      }
    }
    this.connection.close()
    this.connection.events.off('error', this.onError)
    this.hub.emit('closed')
  }

  private fail(err: Error): void {
    if (this.failed || this.closing) return
    this.failed = true
    this.hub.emit('error', err)
  }

  private send(control: ControlId, messages: number[][]): void {
    const key = JSON.stringify(messages)
    if (messages.length === 0 || this.sent.get(control) === key) return
    try {
      for (const m of messages) this.connection.send(m)
      this.sent.set(control, key)
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)))
    }
  }

  /** The output rule of a control: the profile's, else its fallback for a plain note or CC. */
  private ruleOf(control: ControlId): OutputRule | undefined {
    const known = this.profile.controls.get(control)
    if (known) return known
    const fallback = this.profile.data.fallback?.led
    if (!fallback) return undefined
    let parsed
    try {
      parsed = parseControlId(control)
    } catch (err) {
      if (err instanceof ControlIdError) return undefined
      throw err
    }
    if (parsed.kind !== 'note' && parsed.kind !== 'cc') return undefined
    // Why the kind: a generic device lights a note's LED with a note, a CC's with a CC.
    return { channel: parsed.channel, number: parsed.number, led: { ...fallback, message: parsed.kind } }
  }

  private receive(bytes: Uint8Array): void {
    if (this.closing) return
    for (const m of this.parser.push(bytes)) {
      for (const event of this.eventsOf(m, performance.now())) this.hub.emit('input', event)
    }
  }

  private eventsOf(m: MidiMessage, at: number): SurfaceEvent[] {
    const surface = this.opts.id
    switch (m.type) {
      case 'noteon': {
        const control = formatControlId({ kind: 'note', channel: m.channel, number: m.note })
        return [{ type: 'down', surface, control, at, velocity: m.velocity / 127 }]
      }
      case 'noteoff':
        return [
          { type: 'up', surface, control: formatControlId({ kind: 'note', channel: m.channel, number: m.note }), at },
        ]
      case 'cc': {
        const control = formatControlId({ kind: 'cc', channel: m.channel, number: m.controller })
        const mode = this.opts.relative?.[control] ?? this.profile.controls.get(control)?.relative
        if (mode === undefined) return [{ type: 'value', surface, control, at, value: m.value / 127, raw: m.value }]
        const delta = relativeDelta(mode, m.value)
        return delta === 0 ? [] : [{ type: 'rotate', surface, control, at, delta }]
      }
      case 'pitchbend': {
        const control = formatControlId({ kind: 'pitchbend', channel: m.channel })
        // Why two divisors: 14 bits are not symmetric around the centre (8192 down, 8191 up).
        const value = m.value >= PITCH_CENTRE ? (m.value - PITCH_CENTRE) / 8191 : (m.value - PITCH_CENTRE) / 8192
        return [{ type: 'value', surface, control, at, value, raw: m.value }]
      }
      case 'program': {
        const control = formatControlId({ kind: 'program', channel: m.channel, number: m.program })
        return [
          { type: 'down', surface, control, at, velocity: 1 },
          { type: 'up', surface, control, at },
        ]
      }
      case 'sysex':
        // Reassembled because the profile reads SysEx; no control kind shows it yet.
        this.log.debug('SysEx received', { bytes: m.bytes.length })
        return []
    }
  }
}
