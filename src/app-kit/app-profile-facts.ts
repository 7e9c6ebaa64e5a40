/**
 * The vocabulary of the application profiles: every fact a profile states and the values it may take.
 * Only the names and values, no loading: the simulator's profiles (`src/app-kit/simulator/profile.ts`, the
 * YAML files of `config/app-profiles/`) and `panelbridge probe`'s observations of a real application
 * (`src/app-kit/probe*.ts`) both speak it, so a fact probe reports and a fact a profile plays can never
 * be two spellings of one thing.
 */
import { z } from 'zod'

/**
 * Every fact a profile states, with the values it may take. The order here is the order of reports
 * (`probe`, `docs/application-compatibility.md`).
 */
export const PROFILE_FACTS = {
  /** How `scheduleCommand` (and `scheduleAction`) answer over the QWebChannel socket. */
  socket_reply: z.enum(['flat-string', 'wrapped-string', 'flat-object', 'wrapped-object']),
  /** How the HTTP command interface answers. */
  http_reply: z.enum(['wrapped', 'flat']),
  /** How a title's play change is announced on `onNotify`. */
  play_notification: z.enum(['id-play', 'event-play', 'none']),
  /** How a title's variable change is announced on `onNotify`. */
  data_notification: z.enum(['event-data', 'data-update', 'none']),
  /** How a title added to the project is announced on `onNotify`. */
  title_added: z.enum(['control-add-title', 'none']),
  /** Where a title's play state can be read: `status` in `getTitleControlInfo`, or only the layer state. */
  title_status: z.enum(['in-title-list', 'layer-state-only']),
  /** `getValueForKey('newblue.automation.layerstate')`: `{<title id>: {playState: 'running'|'paused'}}`. */
  layer_state: z.boolean(),
  /** The Companion automation registry: `_cmp_v1_*` methods and signals, `getImageSet`, `messageIn`. */
  companion_registry: z.boolean(),
  /** What `_cmp_v1_handleFeedbackChangeEvent` carries when a feedback changes. */
  feedback_signal: z.enum(['with-state', 'empty-state', 'mixed', 'none']),
  /** `scheduleCommandXml` and the `newCommandXML` signal (the legacy XML command set). */
  xml_commands: z.boolean(),
  /** `variablesChanged(inputName, map)` after a variable changes. */
  variables_signal: z.boolean(),
  /** Reply values: the contract's types where it names them, or text everywhere. */
  values: z.enum(['contract-types', 'strings']),
  /** How a method may be named in a QWebChannel call. */
  method_calls: z.enum(['index-or-name', 'index-only']),
  /** The order (so the indexes) of the scheduler's methods and signals. */
  method_order: z.enum(['fixed', 'shuffled-per-start']),
  /** Whether title ids survive an application restart. */
  title_ids_on_restart: z.enum(['kept', 'new']),
} as const

export type ProfileFact = keyof typeof PROFILE_FACTS
export type ProfileFacts = { [K in ProfileFact]: z.infer<(typeof PROFILE_FACTS)[K]> }
export const PROFILE_FACT_NAMES = Object.keys(PROFILE_FACTS) as ProfileFact[]
