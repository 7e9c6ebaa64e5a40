/**
 * `checkParams` and the client refuse exactly the same parameters, for every catalogue entry: one set
 * of rules (Groundwork item 1). Calls that pass the check go to a closed port and fail there, never
 * with BAD_PARAMS.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { CommandClient } from '../../src/api/client.js'
import { checkParams } from '../../src/api/codec.js'
import { COMMANDS, type ParamSpec } from '../../src/api/commands.js'
import { CommandError } from '../../src/api/errors.js'

function goodValue(p: ParamSpec): unknown {
  switch (p.type) {
    case 'string':
      return p.values?.[0] ?? 'Lower Third'
    case 'number':
      return 2.5
    case 'boolean':
      return true
    case 'string[]':
      return ['Camera 1', 'Camera 2']
    case 'object':
      return { a: 1 }
  }
}
function badValues(p: ParamSpec): unknown[] {
  switch (p.type) {
    case 'string':
      return p.values ? [3, 'not-one-of-them'] : [3, null, ['x']]
    case 'number':
      return ['fast', Number.NaN, Infinity, {}]
    case 'boolean':
      return ['yes', 1]
    case 'string[]':
      return ['Camera 1', [1, 2]]
    case 'object':
      return ['{}', [1]]
  }
}

interface Case {
  what: string
  params: Record<string, unknown>
}
function casesOf(spec: { params: Readonly<Record<string, ParamSpec>> }): Case[] {
  const all = Object.entries(spec.params)
  const required = Object.fromEntries(all.filter(([, p]) => p.required).map(([k, p]) => [k, goodValue(p)]))
  const full = Object.fromEntries(all.map(([k, p]) => [k, goodValue(p)]))
  const cases: Case[] = [
    { what: 'required only', params: required },
    { what: 'every parameter', params: full },
    { what: 'an unknown parameter', params: { ...required, notAParameter: 1 } },
    { what: 'an inherited name', params: { ...required, constructor: 'x' } },
    {
      what: 'numeric text for numbers',
      params: Object.fromEntries(all.map(([k, p]) => [k, p.type === 'number' ? '7' : goodValue(p)])),
    },
  ]
  for (const [key, p] of all) {
    if (p.required) {
      const { [key]: _dropped, ...rest } = required
      cases.push({ what: `without ${key}`, params: rest })
    }
    for (const bad of badValues(p)) cases.push({ what: `${key} = ${String(bad)}`, params: { ...required, [key]: bad } })
  }
  return cases
}

const client = new CommandClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 2000 })
afterAll(() => client.close())

describe('checkParams agrees with the client', () => {
  for (const [name, spec] of Object.entries(COMMANDS)) {
    it(name, async () => {
      for (const c of casesOf(spec)) {
        const problems = checkParams(name, c.params)
        const outcome = await client.callByName(name, c.params).then(
          () => 'sent',
          (err: unknown) => err,
        )
        expect(outcome, `${name} with ${c.what}`).toBeInstanceOf(CommandError)
        const err = outcome as CommandError
        if (problems.length === 0) {
          expect(err.code, `${name} with ${c.what}: passes the check, so it was sent`).toBe('CONNECTION_REFUSED')
        } else {
          expect(err.code, `${name} with ${c.what}: refused by both`).toBe('BAD_PARAMS')
          expect(err.message).toContain(problems[0]!.message)
        }
      }
    })
  }
})

describe('checkParams', () => {
  it('lists every problem at once, with the parameter, what it expects and what it was given', () => {
    expect(checkParams('schedule', { action: 'fly', title: 42, extra: true })).toEqual([
      {
        kind: 'type',
        param: 'action',
        expected: expect.stringMatching(/^one of .*animateIn/),
        given: '"fly"',
        message: expect.stringMatching(/^parameter action must be one of /),
      },
      { kind: 'type', param: 'title', expected: 'a string', given: '42', message: 'parameter title must be a string' },
      {
        kind: 'unknown-parameter',
        param: 'extra',
        expected: 'no such parameter',
        given: 'true',
        message: 'unknown parameter extra',
      },
    ])
    expect(checkParams('schedule', {}).map((p) => [p.kind, p.param, p.given])).toEqual([
      ['missing', 'action', 'nothing'],
    ])
    expect(
      checkParams('getVideoInIcon', { height: 'tall' }).map((p) => [p.kind, p.param, p.expected, p.given]),
    ).toEqual([
      ['type', 'height', 'a finite number', '"tall"'],
      ['missing', 'width', 'a finite number', 'nothing'],
    ])
  })

  it('calls an unknown command one problem of its own, and a long value is shortened', () => {
    expect(checkParams('flyToTheMoon')).toEqual([
      {
        kind: 'unknown-command',
        expected: 'a command of the catalogue',
        given: '"flyToTheMoon"',
        message: 'unknown command',
      },
    ])
    const [p] = checkParams('schedule', { action: 'animateIn', title: 'x'.repeat(100), extra: 'y'.repeat(100) })
    expect(p!.given).toHaveLength(40)
    expect(p!.given.endsWith('…')).toBe(true)
  })
})

describe('commands the catalogue lacks', () => {
  it('are sent as written with unlisted: true (the application answers), and refused without it', async () => {
    const { startSimulator } = await import('../../src/app-kit/simulator/index.js')
    const sim = await startSimulator()
    const c = new CommandClient({ baseUrl: sim.httpUrl })
    try {
      const sent = await c
        .callByName('getTally', { channel: 1, on: true, names: ['a', 'b'] }, { unlisted: true })
        .catch((e: unknown) => e)
      expect(sent).toMatchObject({ code: 'APP_ERROR', appMessage: 'unknown command' })
      expect(sim.http.commands('getTally').map((e) => e.parameters)).toEqual([
        expect.objectContaining({ channel: '1', on: 'true', names: 'a,b' }),
      ])
      await expect(c.callByName('getTally', { channel: 1 })).rejects.toMatchObject({ code: 'BAD_PARAMS' })
      await expect(c.callByName('../etc', {}, { unlisted: true })).rejects.toMatchObject({ code: 'BAD_PARAMS' })
      expect(sim.http.commands('getTally')).toHaveLength(1)
    } finally {
      await c.close()
      await sim.close()
    }
  })
})
