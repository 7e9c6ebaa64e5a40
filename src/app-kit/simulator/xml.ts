/**
 * The legacy XML command set (`scheduleCommandXml`, protocol notes 1.3 [docs D-xml], 3.2, 4.1): one
 * `<newblue_ext command="..." .../>` element whose attributes are the command's parameters ("XML
 * attributes map 1:1 onto JSON scheduleCommand parameters", notes 3.2), title variables as
 * `<data><variable name="..." value="..."/></data>` (notes 4.1 [code S3, S4]). It runs through the
 * same dispatcher as HTTP and `scheduleCommand`; the reply is `<newblue_ext command reply success .../>`
 * text (notes 3.1), lists as child elements in the form the 2019 Titler Live module read from
 * `readTitle` (`newblue_ext.title[].running[0].$.playState`, `variables[0].variable[]`; S2 4f39275).
 *
 * Read from outside, so bounded: at most SIM_LIMITS.maxXmlChars, SIM_LIMITS.maxXmlElements elements,
 * MAX_XML_DEPTH deep, MAX_XML_ATTRIBUTES per element; no declarations (`<!DOCTYPE`, `<!ENTITY`, comments, CDATA), only the
 * five predefined entities and character references. Anything else is an error reply, never a throw.
 */
import { SCHEDULE_ACTIONS, type ScheduleAction } from '../../api/protocol.js'
import { isRecord } from '../../wire.js'
import { SIM_LIMITS } from './limits.js'

/** Deepest nesting: `newblue_ext` > `data` > `variable`. */
const MAX_XML_DEPTH = 3
/** Most attributes on one element. */
const MAX_XML_ATTRIBUTES = 64
/** Deepest reply object written (the dispatcher's replies are far shallower). */
const MAX_REPLY_DEPTH = 16

/** The root element of every command and reply (notes 3.1). */
const XML_ROOT = 'newblue_ext'

/** One command read from XML. */
export interface XmlCommand {
  command: string
  params: Record<string, string>
  variables: Record<string, string>
}

export class XmlCommandError extends Error {
  override readonly name = 'XmlCommandError'
}

interface XmlElement {
  name: string
  attrs: Map<string, string>
  children: XmlElement[]
  text: string
}

const NAME = /[A-Za-z_][A-Za-z0-9_.:-]*/y
const SPACE = /[ \t\r\n]*/y
const UNQUOTED = /[^\s"'<>=/]+/y
const ENTITY = /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);/y
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

/** Decodes the predefined entities and character references; any other `&` is an error. */
function decode(raw: string): string {
  let out = ''
  let i = 0
  while (i < raw.length) {
    const amp = raw.indexOf('&', i)
    if (amp < 0) return out + raw.slice(i)
    out += raw.slice(i, amp)
    ENTITY.lastIndex = amp
    const m = ENTITY.exec(raw)
    if (!m) throw new XmlCommandError('unknown entity')
    const ref = m[1]!
    if (ref.startsWith('#')) {
      const code = ref.startsWith('#x') ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        throw new XmlCommandError('bad character reference')
      }
      out += String.fromCodePoint(code)
    } else {
      out += NAMED[ref]!
    }
    i = ENTITY.lastIndex
  }
  return out
}

/** A small, strict, bounded reader of one element tree (see the file comment for what it refuses). */
class Reader {
  private pos = 0
  private elements = 0

  constructor(private readonly text: string) {}

  document(): XmlElement {
    this.space()
    if (this.text.startsWith('<?xml', this.pos)) {
      const end = this.text.indexOf('?>', this.pos)
      if (end < 0) throw new XmlCommandError('unterminated declaration')
      this.pos = end + 2
      this.space()
    }
    const root = this.element(1)
    this.space()
    if (this.pos !== this.text.length) throw new XmlCommandError('text after the root element')
    return root
  }

  private space(): void {
    SPACE.lastIndex = this.pos
    SPACE.exec(this.text)
    this.pos = SPACE.lastIndex
  }

  private name(): string {
    NAME.lastIndex = this.pos
    const m = NAME.exec(this.text)
    if (!m) throw new XmlCommandError('expected a name')
    this.pos = NAME.lastIndex
    return m[0]
  }

  private expect(s: string): void {
    if (!this.text.startsWith(s, this.pos)) throw new XmlCommandError(`expected ${s}`)
    this.pos += s.length
  }

  private element(depth: number): XmlElement {
    if (depth > MAX_XML_DEPTH) throw new XmlCommandError('nested too deep')
    if (++this.elements > SIM_LIMITS.maxXmlElements) throw new XmlCommandError('too many elements')
    if (this.text.startsWith('<!', this.pos)) throw new XmlCommandError('declarations are not accepted')
    this.expect('<')
    const el: XmlElement = { name: this.name(), attrs: new Map(), children: [], text: '' }
    for (;;) {
      this.space()
      if (this.text.startsWith('/>', this.pos)) {
        this.pos += 2
        return el
      }
      if (this.text.startsWith('>', this.pos)) {
        this.pos += 1
        break
      }
      const key = this.name()
      this.space()
      this.expect('=')
      this.space()
      if (el.attrs.has(key)) throw new XmlCommandError('repeated attribute')
      if (el.attrs.size >= MAX_XML_ATTRIBUTES) throw new XmlCommandError('too many attributes')
      el.attrs.set(key, this.value())
    }
    for (;;) {
      const lt = this.text.indexOf('<', this.pos)
      if (lt < 0) throw new XmlCommandError(`unterminated <${el.name}>`)
      el.text += decode(this.text.slice(this.pos, lt))
      this.pos = lt
      if (this.text.startsWith('</', this.pos)) {
        this.pos += 2
        if (this.name() !== el.name) throw new XmlCommandError(`mismatched </${el.name}>`)
        this.space()
        this.expect('>')
        return el
      }
      el.children.push(this.element(depth + 1))
    }
  }

  /** A quoted value, or an unquoted one as the 2019 module sent (`channel=0`, S2 4f39275). */
  private value(): string {
    const q = this.text[this.pos]
    if (q === '"' || q === "'") {
      const end = this.text.indexOf(q, this.pos + 1)
      if (end < 0) throw new XmlCommandError('unterminated attribute value')
      const raw = this.text.slice(this.pos + 1, end)
      if (raw.includes('<')) throw new XmlCommandError('< in an attribute value')
      this.pos = end + 1
      return decode(raw)
    }
    UNQUOTED.lastIndex = this.pos
    const m = UNQUOTED.exec(this.text)
    if (!m) throw new XmlCommandError('expected an attribute value')
    this.pos = UNQUOTED.lastIndex
    return decode(m[0])
  }
}

/**
 * The legacy `schedule` actions combined with `+` (notes 4.1 [code S3, S4]): `animatein+override+duration`,
 * `animateout+override`, `update`, `update+animatein`, `update+animateout`, `update+alert`. One
 * `schedule` runs them: variables first, then the last play action named (`override` and `duration`
 * are modifiers the simulator has nothing to apply to: ASSUMED, ignored). A part it does not know
 * leaves the text as it is, so that the dispatcher answers 'invalid params'.
 */
export function legacyScheduleAction(raw: string): string {
  const parts = raw.split('+').map((p) => p.trim().toLowerCase())
  const modifiers = new Set(['override', 'duration'])
  const actions: ScheduleAction[] = []
  for (const p of parts) {
    if (modifiers.has(p)) continue
    const a = SCHEDULE_ACTIONS.find((x) => x.toLowerCase() === p)
    if (!a) return raw
    actions.push(a)
  }
  const play = actions.filter((a) => a !== 'update' && a !== 'still')
  return play[play.length - 1] ?? actions[actions.length - 1] ?? raw
}

/** Reads one command; XmlCommandError for anything it cannot read within the bounds. */
export function parseCommandXml(xml: unknown): XmlCommand {
  if (typeof xml !== 'string') throw new XmlCommandError('the command must be XML text')
  if (xml.length > SIM_LIMITS.maxXmlChars) throw new XmlCommandError(`longer than ${SIM_LIMITS.maxXmlChars} characters`)
  const root = new Reader(xml).document()
  if (root.name !== XML_ROOT) throw new XmlCommandError(`the root element must be <${XML_ROOT}>`)
  const command = root.attrs.get('command')?.trim() ?? ''
  if (command === '') throw new XmlCommandError('no command attribute')
  const params = Object.create(null) as Record<string, string>
  for (const [k, v] of root.attrs) if (k !== 'command') params[k] = v
  if (command === 'schedule' && params.action !== undefined) params.action = legacyScheduleAction(params.action)
  const variables = Object.create(null) as Record<string, string>
  for (const child of root.children) {
    if (child.name !== 'data') throw new XmlCommandError(`unexpected <${child.name}>`)
    for (const v of child.children) {
      const name = v.attrs.get('name')
      if (v.name !== 'variable' || name === undefined) throw new XmlCommandError('expected <variable name="..."/>')
      variables[name] = v.attrs.get('value') ?? v.text
    }
  }
  return { command, params, variables }
}

// ---- writing ------------------------------------------------------------------------------------------

function escapeAttr(s: string): string {
  return s.replace(/[&<>"\n\r\t]/g, (c) => `&#${c.charCodeAt(0)};`)
}
function escapeText(s: string): string {
  return s.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** A key as an element name (the dispatcher's keys are names already; anything else is made one). */
function xmlName(key: string): string {
  const n = key.replace(/[^A-Za-z0-9_.-]/g, '_')
  return /^[A-Za-z_]/.test(n) ? n : `_${n}`
}

/** `titles` → `title`, `entries` → `entry`: the element name of a list's items. */
function singular(key: string): string {
  if (key.endsWith('ies') && key.length > 3) return `${key.slice(0, -3)}y`
  if (key.endsWith('s') && key.length > 1) return key.slice(0, -1)
  return 'item'
}

function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return undefined
}

function attrsOf(entries: [string, string][]): string {
  return entries.map(([k, v]) => ` ${xmlName(k)}="${escapeAttr(v)}"`).join('')
}

/** Child elements of an object's lists and objects; `flat` puts a list's items straight under the parent. */
function childrenOf(obj: Record<string, unknown>, depth: number, flat: boolean): string {
  if (depth > MAX_REPLY_DEPTH) return ''
  let out = ''
  for (const [k, v] of Object.entries(obj)) {
    if (isRecord(v)) out += element(k, v, depth + 1)
    else if (Array.isArray(v)) {
      const items = (v as unknown[])
        .map((item) => {
          const text = scalar(item)
          if (text !== undefined) return `<${xmlName(singular(k))}>${escapeText(text)}</${xmlName(singular(k))}>`
          return isRecord(item) ? element(singular(k), item, depth + 2) : ''
        })
        .join('')
      out += flat ? items : `<${xmlName(k)}>${items}</${xmlName(k)}>`
    }
  }
  return out
}

function element(name: string, obj: Record<string, unknown>, depth: number): string {
  const attrs = attrsOf(
    Object.entries(obj).flatMap(([k, v]): [string, string][] => {
      const text = scalar(v)
      return text === undefined ? [] : [[k, text]]
    }),
  )
  const inner = childrenOf(obj, depth, false)
  return inner === '' ? `<${xmlName(name)}${attrs}/>` : `<${xmlName(name)}${attrs}>${inner}</${xmlName(name)}>`
}

/** The fields of a dispatcher reply: `result`'s when wrapped, the object itself when flat or bare. */
function replyFields(reply: unknown): Record<string, unknown> {
  if (isRecord(reply) && isRecord(reply.result)) return reply.result
  return isRecord(reply) ? reply : {}
}

/**
 * A dispatcher reply as XML: `<newblue_ext command reply success .../>` with every other text field as
 * an attribute and lists as child elements (notes 3.1). `success` is written as `1`/`0`; a command
 * that failed keeps the dispatcher's `success` and carries its `error` (notes 5.1), as over HTTP.
 */
export function replyXml(command: string, reply: unknown): string {
  const fields = replyFields(reply)
  const succeeded =
    fields.success === undefined || fields.success === true || fields.success === '1' || fields.success === 'true'
  const head: [string, string][] = [
    ['command', scalar(fields.command) ?? command],
    ['reply', scalar(fields.reply) ?? command],
    ['success', succeeded ? '1' : '0'],
  ]
  const rest = Object.entries(fields).flatMap(([k, v]): [string, string][] => {
    if (k === 'command' || k === 'reply' || k === 'success') return []
    const text = scalar(v)
    return text === undefined ? [] : [[k, text]]
  })
  const inner = childrenOf(fields, 1, true)
  const attrs = attrsOf([...head, ...rest])
  return inner === '' ? `<${XML_ROOT}${attrs}/>` : `<${XML_ROOT}${attrs}>${inner}</${XML_ROOT}>`
}

/** A command that never reached the dispatcher (unreadable, unbounded): `success="0"` and the reason. ASSUMED form. */
export function errorReplyXml(error: string, command = ''): string {
  return `<${XML_ROOT}${attrsOf([
    ['command', command],
    ['reply', command],
    ['success', '0'],
    ['error', error],
  ])}/>`
}

/** A command as XML text: what `newCommandXML` carries after it ran (notes 2.1). */
export function commandXml(cmd: XmlCommand): string {
  const attrs = attrsOf([['command', cmd.command], ...Object.entries(cmd.params)])
  const vars = Object.entries(cmd.variables)
  if (vars.length === 0) return `<${XML_ROOT}${attrs}/>`
  const data = vars
    .map(
      ([name, value]) =>
        `<variable${attrsOf([
          ['name', name],
          ['value', value],
        ])}/>`,
    )
    .join('')
  return `<${XML_ROOT}${attrs}><data>${data}</data></${XML_ROOT}>`
}

/** What `scheduleCommandXml` did: its reply text, and the command it ran (none when it could not read one). */
export interface XmlOutcome {
  reply: string
  command?: XmlCommand
}

/**
 * `scheduleCommandXml(xml)`: reads the command, runs it with `run` (the dispatcher), answers XML text.
 * An unreadable or unbounded command answers an error reply; nothing here throws for any input.
 */
export async function scheduleCommandXml(xml: unknown, run: (command: XmlCommand) => unknown): Promise<XmlOutcome> {
  let command: XmlCommand
  try {
    command = parseCommandXml(xml)
  } catch (err) {
    if (!(err instanceof XmlCommandError)) throw err
    return { reply: errorReplyXml(`invalid xml: ${err.message}`) }
  }
  const reply = await Promise.resolve(run(command))
  return { reply: replyXml(command.command, reply), command }
}
