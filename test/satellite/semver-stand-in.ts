/**
 * What Companion Satellite's protocol client takes from `semver` (a package panelbridge does not depend
 * on): `lt` and `lte` of two versions, which it uses to read the server's `BEGIN ... ApiVersion=`. Strict
 * as `semver` is: a version that is not `major.minor.patch` throws a TypeError, so a server announcing
 * `ApiVersion=1.7` fails here as it fails on a real Satellite box.
 */
const VERSION = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/

function parts(version: string): [number, number, number] {
  const m = VERSION.exec(String(version).trim())
  if (!m) throw new TypeError(`Invalid Version: ${version}`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

/** Negative, zero or positive as `a` is below, equal to or above `b` (pre-release tags are not compared). */
function compare(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return 0
}

export const lt = (a: string, b: string): boolean => compare(a, b) < 0
export const lte = (a: string, b: string): boolean => compare(a, b) <= 0
