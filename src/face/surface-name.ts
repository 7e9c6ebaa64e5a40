/**
 * The one rule for a surface name (page names follow it too): what the mapping file accepts, what a
 * control address `<surface>/<control>` may carry, and what the remote API and `learn` take. Letters,
 * digits, `_` and `-`, 1 to SURFACE_NAME_MAX_CHARS characters. Here, in the lowest layer that names
 * surfaces, so the mappings, the daemon and the commands all read the same rule.
 */

/** The longest surface or page name. */
export const SURFACE_NAME_MAX_CHARS = 128
/** The characters of a name (the pattern also refuses the empty name). */
export const SURFACE_NAME_CHARS = /^[A-Za-z0-9_-]+$/
/** What the messages say of a name with other characters. */
export const SURFACE_NAME_RULE = 'may use letters, digits, _ and - only'

/** What is wrong with `name` as a surface name (a phrase for "the surface name X …"), or undefined. */
export function surfaceNameProblem(name: string): string | undefined {
  if (!SURFACE_NAME_CHARS.test(name)) return SURFACE_NAME_RULE
  if (name.length > SURFACE_NAME_MAX_CHARS) return `is longer than ${SURFACE_NAME_MAX_CHARS} characters`
  return undefined
}

/** Whether `value` is a surface name that can be configured. */
export function isSurfaceName(value: unknown): value is string {
  return typeof value === 'string' && surfaceNameProblem(value) === undefined
}
