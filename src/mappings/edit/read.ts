/**
 * A control's binding read from the mapping file with the hash of the bytes it was read from: what the
 * editor shows, and the hash its save names (a save over other bytes is refused, `save.ts`).
 */
import { locateBinding, parseForEdit, type BindingJson, type BindingRef } from './locate.js'
import { readWithHash } from './save.js'

export type ReadBinding =
  | {
      found: true
      hash: string
      file: string
      line: number
      yaml: string
      binding: BindingJson
      /** The page the binding is written for (none: every page without one of its own). */
      page?: string
      editable: boolean
      reason?: string
    }
  | { found: false; code: 'NO_BINDING'; hash: string }

/** Reads the file and finds the binding of `ref` (see `locateBinding` for how a page is matched). */
export async function readBinding(path: string, ref: BindingRef): Promise<ReadBinding> {
  const { bytes, hash } = await readWithHash(path)
  const found = locateBinding(parseForEdit(bytes.toString('utf8')), ref, path)
  if (!found) return { found: false, code: 'NO_BINDING', hash }
  return {
    found: true,
    hash,
    file: path,
    line: found.line,
    yaml: found.yaml,
    binding: found.binding,
    ...(found.page !== undefined ? { page: found.page } : {}),
    editable: found.editable,
    ...(found.reason !== undefined ? { reason: found.reason } : {}),
  }
}
