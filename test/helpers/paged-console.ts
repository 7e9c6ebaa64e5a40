/**
 * The head the record and replay tests' files share: the simulated application, `listen:` when a daemon serves
 * the remote API, one web surface `console`, its pages main and replay; up to the `bindings:` key, the
 * bindings being each test's own.
 */
export function pagedConsoleHead(opts: { listen?: string; console: string }): string {
  const listen = opts.listen === undefined ? '' : `listen: ${opts.listen}\n`
  return `version: 1
app: { url: http://127.0.0.1:0, simulate: true }
${listen}surfaces:
  console: ${opts.console}
pages:
  console: [main, replay]
bindings:
`
}
