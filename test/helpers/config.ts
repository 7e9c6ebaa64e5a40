/**
 * The smallest config a daemon test starts from: the built-in simulator, the API on a free loopback port and a
 * web surface `console` of one row (after any `otherSurfaces` lines), then the bindings the test names (a block, or a
 * flow list such as `[]` on the key's own line). One text, instead of a copy in each file
 * that starts a daemon (the spawned ones and the in-process ones alike).
 */
export function simulatedConfig(bindings: string, columns = 2, otherSurfaces = ''): string {
  return `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
listen: { host: 127.0.0.1, port: 0 }
surfaces:
${otherSurfaces}  console: { driver: web, rows: 1, columns: ${columns} }
bindings:${bindings.startsWith('[') ? ' ' : '\n'}${bindings}`
}

/** A key that only shows a label: the config a process test needs when what it checks is the process. */
export const LABEL_KEY = `  - on: console/key:0
    label: "hello"
`

/** A key that cuts in the simulator's "Lower Third". */
export const CUTIN_KEY = `  - on: console/key:0
    press: { command: schedule, params: { action: cutin, title: "Lower Third" } }
`
