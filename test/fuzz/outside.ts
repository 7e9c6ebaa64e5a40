/**
 * For round-trip properties: the first step of a round trip may refuse an input the property does not
 * cover (a lone surrogate has no UTF-8 encoding; most text is no control id). That refusal, and only
 * that one, skips the input; anything else the step throws fails the property.
 */

/** `{ value: step() }`, or undefined when `step` throws an error `refused` accepts. */
export function unlessRefused<T>(step: () => T, refused: (err: unknown) => boolean): { value: T } | undefined {
  try {
    return { value: step() }
  } catch (err) {
    if (refused(err)) return undefined
    throw err
  }
}
