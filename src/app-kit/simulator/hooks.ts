/**
 * Test hooks of the simulator's HTTP side (the WebSocket side has its own): a reply delay per command,
 * a count of requests in flight per command with its high-water mark, and a command log, in memory and
 * optionally as one JSON line per command in a file (`panelbridge sim --log-commands FILE`), so that a
 * test in another process can see exactly what reached the application.
 */
import { appendFileSync } from 'node:fs'
import { redact } from '../../redact.js'

/**
 * How many commands the in-memory log keeps by default (the newest). Tests read it; the daemon's
 * embedded simulator and `panelbridge sim` keep none (`commandLogMax: 0`), so a simulator that runs
 * for days holds no history (the `--log-commands` file is the record a process outside can read).
 */
const COMMAND_LOG_MAX = 10_000

/** How a call reached the application: HTTP GET, POST, `POST /api`, or a method over the QWebChannel socket. */
export type CommandTransport = 'get' | 'post' | 'api' | 'qwebchannel'

export interface CommandLogEntry {
  /** ISO time the request arrived. */
  time: string
  name: string
  parameters: Record<string, unknown>
  transport: CommandTransport
}

export class HttpHooks {
  /** Entries of the in-memory log, oldest first (at most `logMax`). */
  readonly log: CommandLogEntry[] = []
  private readonly delays = new Map<string, number>()
  private readonly inFlightNow = new Map<string, number>()
  private readonly highWaters = new Map<string, number>()

  constructor(
    private readonly logFile?: string,
    /** Entries the in-memory log keeps; 0 keeps none. */
    private readonly logMax = COMMAND_LOG_MAX,
  ) {}

  /** Delays every reply to `command` by `ms` (0 removes the delay). */
  setDelay(command: string, ms: number): void {
    if (ms > 0) this.delays.set(command, ms)
    else this.delays.delete(command)
  }

  /** Requests of `command` being answered now. */
  inFlight(command: string): number {
    return this.inFlightNow.get(command) ?? 0
  }

  /** The most requests of `command` that were ever in flight at once (since the last reset). */
  highWater(command: string): number {
    return this.highWaters.get(command) ?? 0
  }

  /** Forgets the log and the high-water marks (delays stay). */
  reset(): void {
    this.log.length = 0
    this.highWaters.clear()
  }

  /** The log entries of one command. */
  commands(name: string): CommandLogEntry[] {
    return this.log.filter((e) => e.name === name)
  }

  /** Runs one request through the hooks: logged, counted, delayed, answered. */
  async around<T>(
    name: string,
    parameters: Record<string, unknown>,
    transport: CommandTransport,
    answer: () => T,
  ): Promise<T> {
    this.record(name, parameters, transport)
    const now = this.inFlight(name) + 1
    this.inFlightNow.set(name, now)
    if (now > this.highWater(name)) this.highWaters.set(name, now)
    try {
      const delay = this.delays.get(name)
      if (delay !== undefined) await new Promise((resolve) => setTimeout(resolve, delay))
      return answer()
    } finally {
      this.inFlightNow.set(name, this.inFlight(name) - 1)
    }
  }

  /** Adds one entry to the command log (memory and file) without running anything: the socket's calls. */
  record(name: string, parameters: Record<string, unknown>, transport: CommandTransport): void {
    // Secrets (stream keys) never reach a log, not even the simulator's.
    const entry: CommandLogEntry = {
      time: new Date().toISOString(),
      name,
      parameters: redact({ ...parameters }) as Record<string, unknown>,
      transport,
    }
    if (this.logMax > 0) {
      this.log.push(entry)
      if (this.log.length > this.logMax) this.log.splice(0, this.log.length - this.logMax)
    }
    if (this.logFile !== undefined) appendFileSync(this.logFile, `${JSON.stringify(entry)}\n`)
  }
}
