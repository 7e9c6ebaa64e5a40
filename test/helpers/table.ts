/**
 * A function checked against a table of what it maps each input to: one `toBe` a row, named by its input
 * when it fails. For the tests that list one spelling after another, where a row says the case plainly.
 */
import { expect } from 'vitest'

export function expectMapping<T>(f: (input: string) => T, table: Readonly<Record<string, T>>): void {
  for (const [input, output] of Object.entries(table)) expect(f(input), JSON.stringify(input)).toBe(output)
}
