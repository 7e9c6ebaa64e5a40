/**
 * Issue 22, item 13: `panelbridge --version`; every subcommand's `--help` is its own (its usage and the
 * options it takes, each of which its parser accepts); an unknown option is refused in our words,
 * naming the option and the command, with exit 2, by every registered subcommand.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { EXIT, helpText } from '../../src/cli.js'
import { usageText } from '../../src/commands/args.js'
import { SUBCOMMANDS } from '../../src/commands/index.js'
import { PANELBRIDGE_VERSION } from '../../src/version.js'
import { cliInProcess as cli } from '../helpers/cli.js'

afterEach(() => vi.restoreAllMocks())

/** The options a help text lists: `--name` at the start of an options line, or in its usage lines. */
function optionsInHelp(name: string, help: string): string[] {
  const found = new Set<string>()
  for (const line of help.split('\n')) {
    const listed = /^ {2}(--[a-z][\w-]*)/.exec(line)
    if (listed) found.add(listed[1]!)
    if (line.startsWith(`  panelbridge ${name}`)) for (const m of line.matchAll(/\[(--[a-z][\w-]*)/g)) found.add(m[1]!)
  }
  found.delete('--help')
  return [...found]
}

const NOT_AN_OPTION = '--zz-not-an-option'

/** The widest line a help may have, in columns (characters: the helps are one column a character). */
const HELP_WIDTH = 100

/** The lines under `Usage:`, up to the first blank line. */
function usageLines(help: string): string[] {
  const lines = help.split('\n')
  const from = lines.indexOf('Usage:') + 1
  const to = lines.indexOf('', from)
  return from === 0 ? [] : lines.slice(from, to === -1 ? undefined : to)
}

/**
 * The format every help shares: `panelbridge[ COMMAND] — what it is`, a blank line, `Usage:` with
 * `  panelbridge ...` lines; then `Options:` where there are options, `Examples:` and `Exit codes:`,
 * in that order, each after a blank line; no line wider than HELP_WIDTH; one newline at the end.
 */
function expectCommonFormat(help: string, name: string | undefined): void {
  const lines = help.split('\n')
  const title = name === undefined ? 'panelbridge — ' : `panelbridge ${name} — `
  expect(lines[0]!.startsWith(title), lines[0]).toBe(true)
  expect(lines.slice(1, 3)).toEqual(['', 'Usage:'])
  const usage = usageLines(help)
  expect(usage.length).toBeGreaterThan(0)
  for (const line of usage) expect(line).toMatch(/^ {2}panelbridge /)
  const headings = lines.filter((l) => /^[A-Z][a-z ]+:/.test(l) && !l.startsWith(' ')).map((l) => l.split(':')[0])
  const order = ['Usage', 'Options', 'Commands', 'Examples', 'Exit codes'].filter((h) => headings.includes(h))
  expect(order).toEqual(expect.arrayContaining(['Usage', 'Examples', 'Exit codes']))
  expect(order.map((h) => lines.findIndex((l) => l.startsWith(`${h}:`)))).toEqual(
    order.map((h) => lines.findIndex((l) => l.startsWith(`${h}:`))).sort((a, b) => a - b),
  )
  for (const h of order.slice(1)) expect(lines[lines.findIndex((l) => l.startsWith(`${h}:`)) - 1]).toBe('')
  const wide = lines.filter((l) => [...l].length > HELP_WIDTH)
  expect(wide, `${name ?? 'panelbridge'} --help`).toEqual([])
  expect(help.endsWith('\n') && !help.endsWith('\n\n')).toBe(true)
}

describe('panelbridge --version', () => {
  it("prints panelbridge's version from package.json and exits 0", async () => {
    const { code, out, err } = await cli(['--version'])
    expect(code).toBe(EXIT.ok)
    expect(out).toBe(`panelbridge ${PANELBRIDGE_VERSION}\n`)
    expect(PANELBRIDGE_VERSION).toMatch(/^\d+\.\d+\.\d+/)
    expect(err).toBe('')
  })

  it('is named in the help; with anything after it, it is a usage error', async () => {
    expect(helpText()).toContain('panelbridge --version')
    const { code, err } = await cli(['--version', 'run'])
    expect(code).toBe(EXIT.usage)
    expect(err).toContain("unknown option '--version'")
  })
})

describe('panelbridge --help', () => {
  it(`is in the common format, its lines at most ${HELP_WIDTH} columns, every command listed with its usage`, async () => {
    const { code, out } = await cli(['--help'])
    expect(code).toBe(EXIT.ok)
    expectCommonFormat(out, undefined)
    for (const [name, sub] of Object.entries(SUBCOMMANDS)) {
      expect(out).toContain(`\n  panelbridge ${sub.usage}\n`)
      expect(sub.usage.startsWith(`${name} `) || sub.usage === name).toBe(true)
    }
  })

  it('shows learn --record in learn’s usage', () => {
    expect(SUBCOMMANDS.learn!.usage).toContain('[--record FILE]')
    expect(helpText()).toContain('--record FILE')
  })
})

describe('every registered subcommand', () => {
  const names = Object.keys(SUBCOMMANDS)

  it('the list is the one the help shows (commands included)', () => {
    expect(names).toContain('commands')
    for (const name of names) expect(helpText()).toContain(`  panelbridge ${SUBCOMMANDS[name]!.usage}`)
  })

  for (const name of names) {
    it(`${name} --help shows its own usage and options, not the general help`, async () => {
      for (const flag of ['--help', '-h']) {
        const { code, out } = await cli([name, flag])
        expect(code).toBe(EXIT.ok)
        expect(out).toBe(SUBCOMMANDS[name]!.help)
        expect(out).toMatch(new RegExp(`\\nUsage:\\n {2}panelbridge ${name}\\b`))
        expect(out).not.toBe(helpText())
      }
    })

    it(`${name} --help is in the common format, its lines at most ${HELP_WIDTH} columns`, async () => {
      const { out } = await cli([name, '--help'])
      expectCommonFormat(out, name)
      // The usage the general help lists is the one the command's own help gives.
      const usage = `  panelbridge ${SUBCOMMANDS[name]!.usage}`
      expect(
        usageLines(out).some((l) => l.startsWith(usage)),
        `${usageLines(out).join('\n')}\n${usage}`,
      ).toBe(true)
    })

    it(`${name} refuses an unknown option in our words, with exit 2`, async () => {
      const { code, out, err } = await cli([name, NOT_AN_OPTION])
      expect(code).toBe(EXIT.usage)
      expect(out).toBe('')
      expect(err).toMatch(new RegExp(`^panelbridge( ${name})?: ${NOT_AN_OPTION} is not an option of '${name}'\\n`))
      expect(err).toContain(`Run 'panelbridge ${name} --help' for usage.`)
      expect(err).not.toMatch(/Unknown option|To specify a positional argument/)
    })

    it(`${name} accepts every option its help lists`, async () => {
      for (const option of optionsInHelp(name, SUBCOMMANDS[name]!.help)) {
        // The unknown option after it stops the command before it runs. The listed one was accepted
        // when the refusal names the unknown one (parseArgs reads in order): as a flag, or with a value.
        const tries = [
          [option, NOT_AN_OPTION],
          [`${option}=1`, NOT_AN_OPTION],
        ]
        const errs: string[] = []
        for (const argv of tries) errs.push((await cli([name, ...argv])).err)
        expect(
          errs.some((e) => e.includes(`${NOT_AN_OPTION} is not an option of '${name}'`)),
          `${name} ${option}: ${errs.join(' | ')}`,
        ).toBe(true)
      }
    })
  }

  it('sim, surfaces and run list their options (so the walk above has something to check)', () => {
    expect(optionsInHelp('sim', SUBCOMMANDS.sim!.help)).toEqual(
      expect.arrayContaining(['--port', '--ws-port', '--host', '--profile', '--list-profiles']),
    )
    expect(optionsInHelp('surfaces', SUBCOMMANDS.surfaces!.help)).toEqual(
      expect.arrayContaining(['--port', '--host', '--no-hardware']),
    )
    expect(optionsInHelp('run', SUBCOMMANDS.run!.help)).toContain('--config')
  })
})

describe('usageText', () => {
  it("rewords node:util parseArgs's refusals and keeps our own messages", () => {
    expect(
      usageText('sim', "Unknown option '--bogus'. To specify a positional argument starting with a '-', ..."),
    ).toBe("--bogus is not an option of 'sim'")
    expect(usageText('run', "Unknown option '-x'")).toBe("-x is not an option of 'run'")
    expect(usageText('run', "Option '--config <value>' argument missing")).toBe('--config needs a value')
    expect(usageText('run', "Option '-c, --config <value>' argument missing")).toBe('--config needs a value')
    expect(usageText('devices', "Unexpected argument 'x'. This command does not take positional arguments")).toBe(
      "unexpected argument 'x'",
    )
    expect(usageText('send', 'send needs the command to send')).toBe('send needs the command to send')
  })
})
