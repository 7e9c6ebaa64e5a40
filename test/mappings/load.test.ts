/**
 * The loader reports every problem at once, each as `file:line:col: message` at the exact node.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatProblem, loadConfigFile, loadConfigText } from '../../src/mappings/load.js'
import { testDir } from '../helpers/files.js'
import { configSchemaText } from '../../src/mappings/schema-file.js'
import { CONFIG_LIMITS } from '../../src/mappings/limits.js'

const HEAD = `version: 1
surfaces:
  desk: { driver: streamdeck, model: original-mk2, serial: S1 }
  console: { driver: web, rows: 2, columns: 4, jog: true, shuttle: true, faders: 1 }
pages:
  desk: [titles, cameras]
bindings:
`

async function problems(text: string): Promise<string[]> {
  const r = await loadConfigText(text, 'c.yaml')
  return r.problems.map(formatProblem)
}

describe('the reference file', () => {
  it('loads without a problem', async () => {
    const text = readFileSync(new URL('../../config/reference.yaml', import.meta.url), 'utf8')
    const r = await loadConfigText(text, 'reference.yaml')
    expect(r.problems.map(formatProblem)).toEqual([])
    expect(r.config!.bindings).toHaveLength(12)
    expect(r.config!.listen).toEqual({ host: '127.0.0.1', port: 8088, edit: true })
    expect(r.config!.surfaces.desk).toEqual({
      driver: 'streamdeck',
      model: 'plus',
      serial: 'CL12K1A00042',
      brightness: 70,
    })
  })

  it('matches the committed JSON Schema (run npm run schema when this fails)', () => {
    const committed = readFileSync(new URL('../../config/panelbridge.schema.json', import.meta.url), 'utf8')
    expect(committed).toBe(configSchemaText())
  })
})

/**
 * A file of test/fixtures/mappings/problems/, as written: whole files, so that each problem's `line:col` is where
 * an editor shows it (the longer ones begin with HEAD's lines, their bindings under the desk and console surfaces).
 * Prettier leaves that folder alone: reformatting would move the positions the rows pin.
 */
function problemFile(name: string): string {
  return readFileSync(new URL(`../fixtures/mappings/problems/${name}`, import.meta.url), 'utf8')
}

/**
 * Files with problems, one row a file: every problem it must give, in order, each at its node (`file:line:col`).
 * A row's `text` is a one-line file, or one of the problem files.
 */
const PROBLEM_FILES: { name: string; text: string; problems: unknown[] }[] = [
  {
    name: 'YAML syntax: an unclosed flow sequence',
    text: 'version: 1\nbindings:\n  - on: [desk\n',
    problems: [expect.stringMatching(/^c\.yaml:4:1: /)],
  },
  {
    name: 'YAML syntax: a key twice',
    text: 'version: 1\nversion: 1\n',
    problems: ["c.yaml:2:1: duplicate key 'version': first written at 1:1; a mapping holds each key once"],
  },
  {
    name: 'a missing version',
    text: 'bindings: []\n',
    problems: ['c.yaml:1:1: version: is required (this panelbridge reads version 1)'],
  },
  {
    name: 'a newer version',
    text: 'version: 7\n',
    problems: ['c.yaml:1:10: version: 7 is newer than this panelbridge reads (1); upgrade panelbridge'],
  },
  {
    name: 'schema errors: unknown keys with a suggestion, wrong types, missing keys, bad values',
    text: problemFile('schema-errors.yaml'),
    problems: [
      'c.yaml:3:8: app.url: must be an http:// URL',
      'c.yaml:4:3: app: unknown key simulte (did you mean simulate?)',
      'c.yaml:5:17: listen.port: Too big: expected number to be <=65535',
      'c.yaml:7:18: surfaces.pad.driver: must be one of streamdeck, streamdeck-net, browser-deck, shuttle, xkeys, replay-editor, web, midi, hid, satellite',
      'c.yaml:8:9: surfaces.grid: columns is required',
    ],
  },
  {
    name: 'schema errors in bindings: an unknown key with a suggestion, a wrong type, a bad colour',
    text: problemFile('binding-schema-errors.yaml'),
    problems: [
      'c.yaml:9:33: bindings[0].press: unknown key parms (did you mean params?)',
      'c.yaml:11:12: bindings[1].label: expected string, got number 3',
      'c.yaml:12:48: bindings[1].feedback.colors.Running: a colour is #rrggbb',
    ],
  },
  {
    name: 'an unknown surface, a control the surface lacks, a non-canonical id',
    text: problemFile('unknown-surface-and-control.yaml'),
    problems: [
      'c.yaml:8:9: on: consol is not a configured surface (did you mean console?)',
      'c.yaml:10:9: on: desk has no control key:15 (it has key:0–key:14)',
      'c.yaml:12:9: on: bad control id "key:03": write the index without leading zeros (3)',
      'c.yaml:13:9: on: console has no control fader:1 (it has fader:0)',
    ],
  },
  {
    name: 'a behaviour the control cannot do',
    text: problemFile('behaviour-the-control-cannot-do.yaml'),
    problems: [
      'c.yaml:9:12: press: console/jog is a jog wheel, which sends no down events',
      'c.yaml:11:10: jog: console/key:0 is a key, which sends no rotate events',
      'c.yaml:13:13: rotate: console/shuttle is a shuttle ring, which sends no rotate events',
    ],
  },
  {
    name: 'duplicates: two bindings for the same control and page',
    text: problemFile('duplicate-bindings.yaml'),
    problems: [
      'c.yaml:13:9: on: console/key:0 is already bound at line 8',
      'c.yaml:15:9: on: desk/key:0 on page titles is already bound at line 10',
    ],
  },
  {
    name: 'an undeclared page, in page: and in a page action',
    text: problemFile('undeclared-page.yaml'),
    problems: [
      'c.yaml:9:11: page: tiltes is not a page of desk: one of titles, cameras',
      'c.yaml:11:20: page: replay is not a page of desk',
      'c.yaml:13:11: page: titles is not a page of console (declare it under pages: console)',
    ],
  },
  {
    name: 'missing or ill-typed parameters of a known command, every one',
    text: problemFile('command-parameters.yaml'),
    problems: [
      expect.stringMatching(
        /^c\.yaml:10:48: bindings\[0\]\.press\[0\]: schedule: parameter action must be one of animateIn, .*, got "fly" \(`panelbridge commands schedule` says what each does\)$/,
      ),
      'c.yaml:10:60: bindings[0].press[0]: schedule: parameter title must be a string, got 3',
      'c.yaml:11:20: bindings[0].press[1]: switchVideoIn: missing required parameter channel',
      'c.yaml:13:55: bindings[1].value: replay_set_replay_speed has no parameter sped (did you mean speed?)',
      // A key knows no fader value and has no steps (issue 43): templates it cannot fill.
      'c.yaml:15:57: bindings[2].press.params.channel: {{value}} needs a value binding (fader or knob) or a shuttle, which this binding has not',
      'c.yaml:15:77: bindings[2].press.params.video: {{step}} needs steps, which this binding has not',
      'c.yaml:15:101: bindings[2].press: switchVideoIn: unknown parameter colour',
    ],
  },
  {
    name: 'hold on a press that needs confirmation, and an unknown template',
    text: problemFile('hold-and-template.yaml'),
    problems: [
      'c.yaml:10:11: hold: the press needs a hold to confirm already; set confirm_ms: 0 on this binding to use hold',
      'c.yaml:16:12: label: unknown template {{nmae}} (did you mean {{name}}?): use one of {{name}}, {{play}}, {{step}}, {{value}}, {{delta}}, {{speed}}, {{position}}, {{replay.position}}, {{replay.in}}, {{replay.out}}, {{replay.speed}}, {{replay.length}} or {{var.NAME}}',
      'c.yaml:16:12: label: a variable template names the variable: {{var.NAME}}',
    ],
  },
  {
    name: 'one device claimed by two surfaces, an unknown model, pages of an unknown surface',
    text: problemFile('claims-models-pages.yaml'),
    problems: [
      'c.yaml:4:6: surfaces.b: claims streamdeck serial X1, already claimed by a',
      'c.yaml:5:35: surfaces.c: unknown Stream Deck model "plux": one of original, originalv2, original-mk2, original-mk2-scissor, mini, xl, pedal, plus, neo, studio, 6-module, 15-module, 32-module, galleon-k100, plus-xl',
      'c.yaml:7:3: pages: d is not a configured surface',
    ],
  },
  {
    name: 'a Contour Shuttle: its buttons, jog and ring pass; a button the model lacks and an unknown model are refused',
    text: problemFile('shuttle.yaml'),
    problems: [
      'c.yaml:5:34: surfaces.odd: unknown Contour Shuttle model "shuttlepro_v3": one of shuttlepro_v1, shuttlexpress, shuttlepro_v2',
      'c.yaml:15:9: on: xp has no control button:5 (it has button:0–button:4)',
      'c.yaml:17:9: on: pro has no control button:15 (it has button:0–button:14)',
    ],
  },
  {
    name: 'X-keys: keys row-major within the model, its jog and ring; key:24 and a jog on an XK-24 are refused',
    text: problemFile('xkeys.yaml'),
    problems: [
      expect.stringMatching(/^c\.yaml:5:32: surfaces\.odd: unknown X-keys model "XK25": one of XK24, XK24RGB, /),
      'c.yaml:15:9: on: pad has no control key:24 (it has key:0–key:23)',
      'c.yaml:17:9: on: pad has no control jog (it has no jog controls; it has key:0–key:23, button:0)',
    ],
  },
  {
    name: 'X-keys joystick: its axes on a joystick model; joystick:x on an XK-24 and a press on an axis are refused',
    text: problemFile('xkeys-joystick.yaml'),
    problems: [
      'c.yaml:12:9: on: pad has no control joystick:x (it has no joystick controls; it has key:0–key:23, button:0)',
      'c.yaml:15:12: press: stick/joystick:y is a joystick axis, which sends no down events',
    ],
  },
]

describe('problems, each at its node', () => {
  it.each(PROBLEM_FILES.map((row) => [row.name, row] as const))('%s', async (_name, { text, problems: expected }) => {
    expect(await problems(text)).toEqual(expected)
  })

  it('a command not in the catalogue is a warning; the file still loads', async () => {
    const r = await loadConfigText(
      HEAD + `  - on: console/key:0\n    press: { command: getTally, params: { channel: 1 } }\n`,
      'c.yaml',
    )
    expect(r.problems.map(formatProblem)).toEqual([
      'c.yaml:9:23: warning: bindings[0].press: getTally is not in the command catalogue; sent as written',
    ])
    expect(r.config).toBeDefined()
  })

  it('refuses what is too big to read, with the figures, and alias bombs', async () => {
    expect(CONFIG_LIMITS.fileBytes).toBe(256 * 1024)
    expect(await problems('#'.repeat(CONFIG_LIMITS.fileBytes + 1))).toEqual([
      'c.yaml:1:1: too large: 262,145 bytes; a mapping file is at most 262,144 bytes (256 KiB)',
    ])
    // The bound is on bytes, not characters: 87,382 three-byte characters are 262,146 bytes.
    expect(await problems(`#${'€'.repeat(87_382)}`)).toEqual([
      'c.yaml:1:1: too large: 262,147 bytes; a mapping file is at most 262,144 bytes (256 KiB)',
    ])
    const largest = 'version: 1\n#'
    expect(await problems(largest + 'x'.repeat(CONFIG_LIMITS.fileBytes - largest.length))).toEqual([])
    const bomb = ['version: 1', 'a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 0; i < 8; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      )
    const r = await problems(bomb.join('\n'))
    expect(r).toHaveLength(1)
    expect(r[0]).toMatch(/^c\.yaml:1:1: the file cannot be read as data: /)
  })
})

describe('how many bindings a file has', () => {
  const SURFACE = 'version: 1\nsurfaces:\n  desk: { driver: web, rows: 8, columns: 8 }\n'
  const bindings = (count: number): string =>
    Array.from({ length: count }, (_, n) => `  - { on: desk/key:${n % 64}, page: p${Math.floor(n / 64)} }\n`).join('')
  const pages = (count: number): string =>
    `pages:\n  desk: [${Array.from({ length: Math.ceil(count / 64) }, (_, i) => `p${i}`).join(', ')}]\n`

  it('2,000 load; 2,001 are refused at the bindings: key, with the figures', async () => {
    const at = (count: number): string => `${SURFACE}${pages(count)}# the bindings\nbindings:\n${bindings(count)}`
    const ok = await loadConfigText(at(2000), 'c.yaml')
    expect(ok.problems).toEqual([])
    expect(ok.config?.bindings).toHaveLength(2000)
    expect(await problems(at(2001))).toEqual([
      'c.yaml:7:1: bindings: too many: 2,001; a mapping file has at most 2,000',
    ])
  })
})

describe('the file at the config path (run, check and a reload read it alike)', () => {
  it('a file over the size bound is refused from its size, with the figures', async () => {
    const dir = await testDir('load-size')
    const file = join(dir, 'big.yaml')
    await writeFile(file, '#'.repeat(300_000))
    const r = await loadConfigFile(file)
    expect(r.problems.map(formatProblem)).toEqual([
      `${file}:1:1: too large: 300,000 bytes; a mapping file is at most 262,144 bytes (256 KiB)`,
    ])
  })

  it('a named pipe or a folder is refused without waiting on it; a missing file says so', async () => {
    const dir = await testDir('load-path')
    const pipe = join(dir, 'pipe.yaml')
    execFileSync('mkfifo', [pipe])
    const messages = async (file: string): Promise<string[]> => (await loadConfigFile(file)).problems.map(formatProblem)
    expect(await messages(pipe)).toEqual([`${pipe}:1:1: cannot read the file: it is a named pipe, not a regular file`])
    expect(await messages(dir)).toEqual([`${dir}:1:1: cannot read the file: it is a folder, not a regular file`])
    const missing = join(dir, 'absent.yaml')
    expect(await messages(missing)).toEqual([
      `${missing}:1:1: cannot read the file: ENOENT: no such file or directory, open '${missing}'`,
    ])
  })
})
