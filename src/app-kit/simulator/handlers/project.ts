/**
 * Project commands: projects (save, load, close, edited flags, recent list, current), layer lists per
 * channel, and the project video format.
 */
import { statSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { APP_ERRORS, FILE_EXTENSIONS } from '../../../api/protocol.js'
import {
  readLayerListFile,
  readProjectFile,
  resolveFile,
  storeTitle,
  thumbnailPath,
  titleFromStore,
  writeLayerListFile,
  writeProjectFile,
  writeThumbnail,
  type StoredTitle,
} from '../files.js'
import { checkCount, SIM_LIMITS } from '../limits.js'
import { flagText } from '../params.js'
import { refused, REFUSALS } from '../refusals.js'
import { THUMBNAIL_JPEG_BASE64 } from '../png.js'
import { SEED, titlesFromSeeds } from '../seed.js'
import type { Handler, SimulatorModel } from '../model.js'
import { BARE_REPLY, HandlerError, type SimTitle, type VideoFormat } from '../types.js'

const PROJECT_EXTENSIONS = [FILE_EXTENSIONS.project, FILE_EXTENSIONS.package]
/** How many projects getRecentProjects keeps. */
const MAX_RECENT = 10
/** Name of the file an untitled project is saved to by closeProject saveProject=1 (in the data folder). */
const UNTITLED_PROJECT = `Untitled${FILE_EXTENSIONS.project}`

/** ISO 8601 local date-time without zone, as the contract's recent-project dates. */
function localIso(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

function rememberRecent(state: SimulatorModel, path: string): void {
  state.recentProjects = [path, ...state.recentProjects.filter((p) => p !== path)].slice(0, MAX_RECENT)
}

export function saveProjectTo(state: SimulatorModel, path: string): void {
  writeProjectFile(path, { videoFormat: { ...state.videoFormat }, titles: state.orderedTitles().map(storeTitle) })
  writeThumbnail(state.dataDir, path)
  state.project = { ...state.project, filePath: path, edited: false }
  rememberRecent(state, path)
}

/** Titles from a file, with ids that clash with titles already present replaced by fresh ones. */
function adoptTitles(state: SimulatorModel, stored: StoredTitle[], channel?: number): SimTitle[] {
  const seen = new Set<string>()
  return stored.map((s) => {
    const t = titleFromStore(s)
    if (channel !== undefined) t.channel = channel
    const clash = seen.has(t.id.toLowerCase()) || state.titleById(t.id) !== undefined
    if (clash) t.id = state.newTitleId('')
    seen.add(t.id.toLowerCase())
    return t
  })
}

/** Writes the seeded projects into the data folder (if absent) and lists them as recent. */
export function writeSeedProjects(state: SimulatorModel): void {
  for (const seed of [...SEED.projects].reverse()) {
    const path = join(state.dataDir, seed.file)
    let exists = true
    try {
      statSync(path)
    } catch {
      exists = false
    }
    if (!exists) {
      writeProjectFile(path, {
        videoFormat: { ...state.videoFormat },
        titles: titlesFromSeeds(seed.titles).map(storeTitle),
      })
      writeThumbnail(state.dataDir, path)
    }
    rememberRecent(state, path)
  }
  // The first seed is the open project: its titles are the starting titles.
  state.project = {
    filePath: join(state.dataDir, SEED.projects[0].file),
    edited: false,
    cached: false,
    videoSource: '',
  }
}

function recentEntry(state: SimulatorModel, path: string): Record<string, unknown> | undefined {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return undefined // a project file that has gone is no longer listed
  }
  const ext = extname(path)
  const thumb = thumbnailPath(state.dataDir, path)
  return {
    creationDate: localIso(stat.birthtime.getTime() > 0 ? stat.birthtime : stat.mtime),
    modifiedDate: localIso(stat.mtime),
    extension: ext.slice(1),
    filename: basename(path),
    name: basename(path, ext),
    filesize: stat.size,
    notes: '',
    tags: [],
    thumbnailData: THUMBNAIL_JPEG_BASE64,
    thumbnailUri: pathToFileURL(thumb).href,
    uri: pathToFileURL(path).href,
  }
}

function formatReply(f: VideoFormat): Record<string, string> {
  return {
    frameRate: String(f.frameRate),
    height: String(f.height),
    interlaced: flagText(f.interlaced),
    width: String(f.width),
  }
}

export const projectHandlers: Record<string, Handler> = {
  checkProjectEdited(state) {
    return {
      filePath: state.project.filePath,
      hasChanged: flagText(state.project.edited),
      isCached: flagText(state.project.cached),
      isCustomized: '0',
      isLibraryScene: '0',
      newFilePath: '',
    }
  },

  clearPlaylist(state, p) {
    state.removeTitles(state.channelTitles(p.channel()))
  },

  /** closeProject=1 confirms (else refused: nothing happens); saveProject=1 saves first. */
  closeProject(state, p) {
    if (!p.flag('closeProject')) throw refused(REFUSALS.closeNotConfirmed)
    const filePath = state.project.filePath
    if (p.flag('saveProject')) saveProjectTo(state, filePath || join(state.dataDir, UNTITLED_PROJECT))
    state.removeTitles(state.titles)
    state.project = { filePath: '', edited: false, cached: false, videoSource: '' }
    return { filePath }
  },

  getCurrentProject(state) {
    const path = state.project.filePath
    return { filePath: path, icon: path ? `data:image/jpeg;base64,${THUMBNAIL_JPEG_BASE64}` : '' }
  },

  getRecentProjects(state) {
    return { recentProjects: state.recentProjects.flatMap((path) => recentEntry(state, path) ?? []) }
  },

  getVideoFormat(state) {
    return formatReply(state.videoFormat)
  },

  /** Replaces the channel's titles with the file's. */
  loadPlaylist(state, p) {
    const path = resolveFile(state.dataDir, p.str('file'), [FILE_EXTENSIONS.layerList])
    const channel = p.channel()
    const stored = readLayerListFile(path)
    const others = state.titles.filter((t) => t.channel !== channel).length
    checkCount(others + stored.length, SIM_LIMITS.maxTitles, 'titles') // checked before the channel is emptied
    state.removeTitles(state.channelTitles(channel))
    adoptTitles(state, stored, channel).forEach((t, i) => state.insertTitle(t, i))
  },

  loadProject(state, p) {
    const path = resolveFile(state.dataDir, p.str('file'), PROJECT_EXTENSIONS)
    const data = readProjectFile(path)
    checkCount(data.titles.length, SIM_LIMITS.maxTitles, 'titles') // checked before anything is removed
    // Emptied first, so that the file's title ids are free to keep.
    state.removeTitles(state.titles)
    const titles = adoptTitles(state, data.titles).sort((a, b) => a.channel - b.channel || a.position - b.position)
    for (const t of titles) state.insertTitle(t, t.position)
    state.videoFormat = data.videoFormat
    state.project = {
      filePath: path,
      edited: false,
      cached: p.flag('autoCache'),
      videoSource: p.str('videoSource'),
    }
    rememberRecent(state, path)
    return BARE_REPLY
  },

  savePlaylist(state, p) {
    const path = resolveFile(state.dataDir, p.str('file'), [FILE_EXTENSIONS.layerList])
    const channel = p.channel()
    writeLayerListFile(path, channel, state.channelTitles(channel))
  },

  /** Saves to `file`, or to the current project's file when `file` is absent. */
  saveProject(state, p) {
    const file = p.str('file')
    if (file.trim() === '' && !state.project.filePath) throw new HandlerError(APP_ERRORS.invalidParams)
    saveProjectTo(
      state,
      file.trim() === '' ? state.project.filePath : resolveFile(state.dataDir, file, PROJECT_EXTENSIONS),
    )
    return BARE_REPLY
  },

  setVideoFormat(state, p) {
    const width = p.num('width')
    const height = p.num('height')
    const frameRate = p.num('frameRate')
    const ok = (n: number | undefined, max: number, int: boolean): boolean =>
      n !== undefined && n > 0 && n <= max && (!int || Number.isInteger(n))
    if (!ok(width, 8192, true) || !ok(height, 8192, true) || !ok(frameRate, 240, false)) {
      throw new HandlerError(APP_ERRORS.invalidParams)
    }
    state.videoFormat = { width: width!, height: height!, frameRate: frameRate!, interlaced: p.flag('interlaced') }
    state.markEdited()
    return formatReply(state.videoFormat)
  },
}
