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
