import { isCommandError, type CommandError } from '../../src/api/errors.js'

/** What `f` throws, checked to be an instance of `type`; fails the test when it throws nothing or something else. */
export function thrownBy<E extends Error>(f: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    f()
  } catch (err) {
    if (err instanceof type) return err
    throw err
  }
  throw new Error('did not throw')
}

/** What `promise` rejects with, checked to be a CommandError; fails the test when it resolves or rejects with anything else. */
export async function commandFailure(promise: Promise<unknown>): Promise<CommandError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isCommandError(err)) throw new Error(`expected a CommandError, got ${String(err)}`)
  return err
}
