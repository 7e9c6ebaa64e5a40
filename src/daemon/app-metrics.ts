/**
 * The metrics by application (issue 27): series of their own with an `app` label, so the unlabelled
 * series the dashboards and alerts read (`panelbridge_app_link_up`, `panelbridge_commands_total`, ...)
 * keep their names and meaning (they count the default application's link, and every command).
 * `app` values are the names of `apps:` (at most MAX_APPS of them, bounded by the schema).
 */
import { Counter, Gauge, type Registry } from 'prom-client'

export class AppMetrics {
  private readonly up: Gauge<'app'>
  private readonly commands: Counter<'app' | 'outcome'>
  private readonly divergences: Counter<'app' | 'reason'>

  constructor(prefix: string, registers: Registry[]) {
    this.up = new Gauge({
      name: `${prefix}application_link_up`,
      help: 'By application (apps:): 1 while its notification link is up, else 0.',
      labelNames: ['app'],
      registers,
    })
    this.commands = new Counter({
      name: `${prefix}application_commands_total`,
      help: 'By application (apps:): commands sent, by outcome (ok or error).',
      labelNames: ['app', 'outcome'],
      registers,
    })
    this.divergences = new Counter({
      name: `${prefix}mirror_diverged_total`,
      help: 'Times a mirror (apps: mirror_of) began to disagree with its main: reason="command" (a command reached one side only) or "state" (a title on air on one side only past diverged_after_ms).',
      labelNames: ['app', 'reason'],
      registers,
    })
  }

  linkUp(app: string, up: boolean): void {
    this.up.set({ app }, up ? 1 : 0)
  }

  command(app: string, outcome: string): void {
    this.commands.inc({ app, outcome: outcome === 'ok' ? 'ok' : 'error' })
  }

  diverged(app: string, reason: 'command' | 'state'): void {
    this.divergences.inc({ app, reason })
  }
}
