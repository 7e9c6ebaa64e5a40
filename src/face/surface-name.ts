/**
 * The one rule for a surface name (page names follow it too): what the mapping file accepts, what a
 * control address `<surface>/<control>` may carry, and what the remote API and `learn` take. Letters,
 * digits, `_` and `-`, 1 to SURFACE_NAME.maxChars characters. Here, in the lowest layer that names
 * surfaces, so the mappings, the daemon and the commands all read the same rule.
 */

/** The rule of a surface or page name. */
export const SURFACE_NAME = {
  /** The longest surface or page name. */
  maxChars: 128,
  /** The characters of a name (the pattern also refuses the empty name). */
  chars: /^[A-Za-z0-9_-]+$/,
  /** What the messages say of a name with other characters. */
  rule: 'may use letters, digits, _ and - only',
} as const

/** What is wrong with `name` as a surface name (a phrase for "the surface name X …"), or undefined. */
export function surfaceNameProblem(name: string): string | undefined {
  if (!SURFACE_NAME.chars.test(name)) return SURFACE_NAME.rule
  if (name.length > SURFACE_NAME.maxChars) return `is longer than ${SURFACE_NAME.maxChars} characters`
  return undefined
}

/** Whether `value` is a surface name that can be configured. */
export function isSurfaceName(value: unknown): value is string {
  return typeof value === 'string' && surfaceNameProblem(value) === undefined
}
