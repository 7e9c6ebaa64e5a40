/**
 * The checks every generated section of a document gets (the README's configuration reference, the
 * compatibility page's profile tables): the committed text is what the generator makes now, and the
 * generator puts a stale copy right between its markers and refuses a document whose end marker is gone.
 */
import { expect } from 'vitest'

export interface GeneratedSection {
  /** The document as committed. */
  readonly doc: string
  readonly begin: string
  readonly end: string
  /** The document with its section generated afresh. */
  readonly regenerate: (doc: string) => string
}

export function generatedSection(
  doc: string,
  begin: string,
  end: string,
  regenerate: (doc: string) => string,
): GeneratedSection {
  return { doc, begin, end, regenerate }
}

/** The document carries the begin marker and the section as the generator makes it now. */
export function expectCurrent({ doc, begin, regenerate }: GeneratedSection): void {
  expect(doc).toContain(begin)
  expect(regenerate(doc)).toBe(doc)
}

/**
 * A copy with `from` (text inside the section) changed to `to` differs from the document, and the
 * generator turns it back into the document; without the end marker it refuses, naming the markers.
 */
export function expectStaleReplaced({ doc, end, regenerate }: GeneratedSection, from: string, to: string): void {
  const stale = doc.replace(from, to)
  expect(stale).not.toBe(doc)
  expect(regenerate(stale)).toBe(doc)
  expect(() => regenerate(doc.replace(end, ''))).toThrow(/markers/)
}
