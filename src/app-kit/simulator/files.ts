/**
 * Title (`.nbtitle`), layer-list (`.nblist`) and project (`.nbproj`, or a `.zip` package) files.
 * The simulator's own format: JSON, tagged with `format` and `kind` so a wrong file is refused.
 * A relative `file` parameter resolves inside the data folder, never against the working directory.
 */
import { lstatSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path'
import { APP_ERRORS, FILE_EXTENSIONS, PLAY_STATES } from '../../api/protocol.js'
import { refused, REFUSALS } from './refusals.js'
import { HandlerError, type SimTitle, type SimVariable, type VideoFormat } from './types.js'
import { isRecord } from '../../wire.js'
import { readZipEntry, writeZip } from './zip.js'
import { THUMBNAIL_JPEG_BASE64 } from './png.js'
import { checkCount, checkName, SIM_LIMITS } from './limits.js'

/** The tag every file the simulator writes carries; a file without it is refused. */
const FILE_FORMAT = 'panelbridge-simulator'
/** Every project's thumbnail, as files hold it. */
const THUMBNAIL_JPEG: Buffer = Buffer.from(THUMBNAIL_JPEG_BASE64, 'base64')
/** Name of the project inside a `.zip` package. */
const PACKAGE_PROJECT_ENTRY = 'project.json'

/** A title as stored in a file: no play state or selection (a loaded title starts Off, unselected). */
export type StoredTitle = Omit<SimTitle, 'playState' | 'selected'>

export interface ProjectData {
  videoFormat: VideoFormat
  titles: StoredTitle[]
}

type Kind = 'title' | 'layerList' | 'project'

/**
 * The error of a `file` parameter that points outside the data folder. The simulator's own text: the
 * application has no such rule (it writes wherever its user may), but a test double on a shared box
 * must not write outside the folder it was given.
 */
const FILE_OUTSIDE_DATA_DIR = 'file outside the data folder'
/** Largest title, layer-list or project file read, bytes. */
const MAX_FILE_BYTES = 16 * 1024 * 1024

/** Whether `path` is `dir` itself or below it (both absolute and normalised). */
function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * Resolves a `file` parameter: required, with one of `extensions`, relative to `dataDir` (an absolute
 * path is accepted when it lies inside). The one guard of every file parameter: a path that leaves
 * the data folder, by `..`, by an absolute path or through a symbolic link (the parent folder's real
 * path, and the file's own when it is a link), is refused with FILE_OUTSIDE_DATA_DIR.
 */
export function resolveFile(dataDir: string, file: string, extensions: readonly string[]): string {
  const f = file.trim()
  if (f === '' || f.includes('\0') || !extensions.includes(extname(f).toLowerCase()))
    throw new HandlerError(APP_ERRORS.invalidParams)
  const root = resolve(dataDir)
  const path = resolve(root, f)
  if (!isInside(root, path) || path === root) throw new HandlerError(FILE_OUTSIDE_DATA_DIR)
  let realRoot: string
  let realParent: string
  try {
    realRoot = realpathSync(root)
    realParent = realpathSync(dirname(path))
  } catch {
    throw refused(REFUSALS.noSuchFolder) // the command cannot act
  }
  if (!isInside(realRoot, realParent)) throw new HandlerError(FILE_OUTSIDE_DATA_DIR)
  let isLink = false
  try {
    isLink = lstatSync(path).isSymbolicLink()
  } catch {
    // No such file yet: a save creates it in the (checked) parent folder.
  }
  if (isLink) {
    let target: string
    try {
      target = realpathSync(path)
    } catch {
      throw new HandlerError(FILE_OUTSIDE_DATA_DIR) // a dangling link: where it would write is unknown
    }
    if (!isInside(realRoot, target)) throw new HandlerError(FILE_OUTSIDE_DATA_DIR)
  }
  return path
}

export function storeTitle(t: SimTitle): StoredTitle {
  return {
    id: t.id,
    name: t.name,
    channel: t.channel,
    position: t.position,
    inputs: [...t.inputs],
    variables: t.variables.map((v) => ({ ...v })),
    timelineDuration: t.timelineDuration,
    color: t.color,
  }
}

export function titleFromStore(s: StoredTitle): SimTitle {
  return {
    ...s,
    inputs: [...s.inputs],
    variables: s.variables.map((v) => ({ ...v })),
    playState: PLAY_STATES[0],
    selected: false,
  }
}

/**
 * Creates one folder whose parent exists. Never `recursive: true`: Node's recursive mkdir spins forever
 * on some paths (e.g. under /proc), and a command must not hang the simulator.
 */
export function ensureDir(path: string): void {
  try {
    mkdirSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
}

/** Writes a file whose folder exists (the application does not create folders either). */
function write(path: string, data: Buffer | string): void {
  try {
    writeFileSync(path, data)
  } catch {
    throw refused(REFUSALS.cannotWrite) // missing folder or unwritable path: the command cannot act
  }
}

function readJson(path: string): unknown {
  let bytes: Buffer
  try {
    if (statSync(path).size > MAX_FILE_BYTES) throw new Error('file too large')
    bytes = readFileSync(path)
  } catch {
    throw refused(REFUSALS.cannotRead)
  }
  try {
    if (extname(path).toLowerCase() === FILE_EXTENSIONS.package) {
      const entry = readZipEntry(bytes, PACKAGE_PROJECT_ENTRY)
      if (!entry) throw new Error('no project in package')
      bytes = entry
    }
    return JSON.parse(bytes.toString('utf8')) as unknown
  } catch {
    throw refused(REFUSALS.notOurFile)
  }
}

const VARIABLE_TYPES = new Set(['text', 'image', 'color', 'visible'])

function checkTitle(v: unknown): StoredTitle {
  if (!isRecord(v)) throw refused(REFUSALS.notOurFile)
  const ok =
    typeof v.id === 'string' &&
    typeof v.name === 'string' &&
    Array.isArray(v.inputs) &&
    v.inputs.every((i) => typeof i === 'string') &&
    Array.isArray(v.variables) &&
    v.variables.every(
      (x) =>
        isRecord(x) &&
        typeof x.name === 'string' &&
        typeof x.value === 'string' &&
        VARIABLE_TYPES.has(x.type as string),
    )
  if (!ok) throw refused(REFUSALS.notOurFile)
  const variables = v.variables as SimVariable[]
  const inputs = v.inputs as string[]
  checkCount(variables.length, SIM_LIMITS.maxVariablesPerTitle, 'variables on a title')
  checkCount(inputs.length, SIM_LIMITS.maxInputsPerTitle, 'inputs on a title')
  checkName(v.name as string, 'title name')
  for (const x of variables) checkName(x.name, 'variable name')
  for (const i of inputs) checkName(i, 'input name')
  return {
    id: v.id as string,
    name: v.name as string,
    channel: typeof v.channel === 'number' ? v.channel : 0,
    position: typeof v.position === 'number' ? v.position : 0,
    inputs,
    variables,
    timelineDuration: typeof v.timelineDuration === 'number' ? v.timelineDuration : 5,
    // Only #rrggbb: the colour keys the icon cache, so it must not be arbitrary text.
    color: typeof v.color === 'string' && /^#[0-9a-f]{6}$/i.test(v.color) ? v.color : '#444444',
  }
}

function readKind(path: string, kind: Kind): Record<string, unknown> {
  const data = readJson(path)
  if (!isRecord(data) || data.format !== FILE_FORMAT || data.kind !== kind) throw refused(REFUSALS.notOurFile)
  return data
}

export function writeTitleFile(path: string, title: SimTitle): void {
  write(path, JSON.stringify({ format: FILE_FORMAT, kind: 'title', version: 1, title: storeTitle(title) }, null, 2))
}

export function readTitleFile(path: string): StoredTitle {
  return checkTitle(readKind(path, 'title').title)
}

export function writeLayerListFile(path: string, channel: number, titles: SimTitle[]): void {
  const body = { format: FILE_FORMAT, kind: 'layerList', version: 1, channel, titles: titles.map(storeTitle) }
  write(path, JSON.stringify(body, null, 2))
}

export function readLayerListFile(path: string): StoredTitle[] {
  const data = readKind(path, 'layerList')
  if (!Array.isArray(data.titles)) throw refused(REFUSALS.notOurFile)
  return data.titles.map(checkTitle)
}

/** Writes a project as JSON (`.nbproj`) or as a package (`.zip` holding project.json and a thumbnail). */
export function writeProjectFile(path: string, project: ProjectData): void {
  const json = JSON.stringify({ format: FILE_FORMAT, kind: 'project', version: 1, ...project }, null, 2)
  if (extname(path).toLowerCase() === FILE_EXTENSIONS.package) {
    write(
      path,
      writeZip([
        { name: PACKAGE_PROJECT_ENTRY, data: Buffer.from(json) },
        { name: 'thumbnail.jpg', data: THUMBNAIL_JPEG },
      ]),
    )
  } else {
    write(path, json)
  }
}

export function readProjectFile(path: string): ProjectData {
  const data = readKind(path, 'project')
  const vf = data.videoFormat
  if (!Array.isArray(data.titles) || !isRecord(vf)) throw refused(REFUSALS.notOurFile)
  const videoFormat: VideoFormat = {
    width: Number(vf.width),
    height: Number(vf.height),
    frameRate: Number(vf.frameRate),
    interlaced: vf.interlaced === true,
  }
  if (![videoFormat.width, videoFormat.height, videoFormat.frameRate].every((n) => Number.isFinite(n) && n > 0)) {
    throw refused(REFUSALS.notOurFile)
  }
  return { videoFormat, titles: data.titles.map(checkTitle) }
}

/** Where a project's thumbnail image lives (written beside the data folder's thumbnails). */
export function thumbnailPath(dataDir: string, projectPath: string): string {
  return join(dataDir, 'thumbnails', `${basename(projectPath)}.jpg`)
}

export function writeThumbnail(dataDir: string, projectPath: string): void {
  const path = thumbnailPath(dataDir, projectPath)
  try {
    ensureDir(dirname(path))
  } catch {
    throw refused(REFUSALS.cannotWrite)
  }
  write(path, THUMBNAIL_JPEG)
}
