/**
 * The simulator's starting data: believable titles, video inputs, output devices and video format.
 * Title ids are fixed so that demos and example configurations can name them.
 */
import { titleFromStore } from './files.js'
import type { SimTitle, SimVariable, VideoFormat } from './types.js'

export interface SimVideoIn {
  name: string
  type: string
  /** UUID without braces (contract: Video input). */
  config: string
  hasAudio: boolean
  /** Colour of the simulated picture (drawn into icons). */
  color: string
}

function v(name: string, value: string, type: SimVariable['type'] = 'text'): SimVariable {
  return { name, value, type }
}

type TitleSeed = Omit<SimTitle, 'position' | 'playState' | 'selected' | 'channel'>

const SEED_TITLES: readonly TitleSeed[] = [
  {
    id: '{3f2b8c1e-7a4d-4e52-9b1a-5c6d7e8f9a01}',
    name: 'Lower Third',
    inputs: ['Newsroom'],
    variables: [
      v('Name', 'Alex Morgan'),
      v('Title', 'Political Correspondent'),
      v('Logo', 'file:///media/graphics/station-logo.png', 'image'),
      v('Accent', '#d81e2c', 'color'),
      v('Show Logo', '1', 'visible'),
    ],
    timelineDuration: 8,
    color: '#1d4e89',
  },
  {
    id: '{9c0e4a7b-2d15-4f3e-8a6c-0b1d2e3f4a02}',
    name: 'Score Bug',
    inputs: ['Scoreboard'],
    variables: [
      v('Home Team', 'RIV'),
      v('Away Team', 'HAR'),
      v('Home Score', '2'),
      v('Away Score', '1'),
      v('Period', '2nd'),
      v('Home Color', '#0a3d91', 'color'),
    ],
    timelineDuration: 4,
    color: '#0a3d91',
  },
  {
    id: '{5e8d2f6a-4b3c-4d1e-a9f0-7c8b9a0d1e03}',
    name: 'Breaking News',
    inputs: ['Newsroom'],
    variables: [
      v('Headline', 'Storm warning issued for the coast'),
      v('Ticker', 'Roads closed on the A39 near Porlock'),
    ],
    timelineDuration: 12,
    color: '#b3001b',
  },
  {
    id: '{a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c04}',
    name: 'Full Screen Graphic',
    inputs: ['Spreadsheet'],
    variables: [
      v('Heading', 'Election Results'),
      v('Body', 'Turnout 64%'),
      v('Background', 'file:///media/graphics/map.jpg', 'image'),
    ],
    timelineDuration: 10,
    color: '#2e7d32',
  },
  {
    id: '{7d6c5b4a-3928-4716-a5b4-c3d2e1f0a905}',
    name: 'Clock',
    inputs: [],
    variables: [v('Time', '18:00:00'), v('Show Seconds', '1', 'visible')],
    timelineDuration: 2,
    color: '#444444',
  },
]

/** The titles of the second seeded project ("Match Day"), so that loading it visibly changes the list. */
const SEED_MATCH_DAY_TITLES: readonly TitleSeed[] = [
  SEED_TITLES[1]!,
  {
    id: '{c4d5e6f7-0819-4a2b-9c3d-4e5f6a7b8c06}',
    name: 'Team Lineup',
    inputs: ['Spreadsheet'],
    variables: [v('Team', 'Riverside FC'), v('Players', 'Okafor, Lindqvist, Duarte')],
    timelineDuration: 15,
    color: '#6a1b9a',
  },
  SEED_TITLES[4]!,
]

/** Builds fresh title records for channel 0 from seeds (deep copies: the seeds are never mutated). */
export function titlesFromSeeds(seeds: readonly TitleSeed[], channel = 0): SimTitle[] {
  return seeds.map((s, position) => titleFromStore({ ...s, channel, position }))
}

/** Video inputs open when the simulator starts. */
const SEED_OPENED_VIDEO_INS: readonly string[] = ['Camera 1', 'Camera 2']

const SEED_VIDEO_INS: readonly SimVideoIn[] = [
  { name: 'Camera 1', type: 'SDI', config: '0f8e2d4c-6b1a-4c3e-9d2f-1a2b3c4d5e01', hasAudio: true, color: '#5b7fa3' },
  { name: 'Camera 2', type: 'SDI', config: '1e9f3e5d-7c2b-4d4f-8e3a-2b3c4d5e6f02', hasAudio: true, color: '#7a9a5b' },
  {
    name: 'HDMI Capture',
    type: 'HDMI',
    config: '2fa04f6e-8d3c-4e5a-9f4b-3c4d5e6f7a03',
    hasAudio: true,
    color: '#a37b5b',
  },
  {
    name: 'NDI: STUDIO-PC (Program)',
    type: 'NDI',
    config: '3ab15a7f-9e4d-4f6b-a05c-4d5e6f7a8b04',
    hasAudio: true,
    color: '#8a5ba3',
  },
  {
    name: 'USB Camera VID:1133 PID:2075',
    type: 'USB',
    config: '4bc26b80-af5e-407c-b16d-5e6f7a8b9c05',
    hasAudio: false,
    color: '#5ba39a',
  },
]

const OUTPUT_DEVICES: readonly string[] = ['NDI', 'Blackmagic DeckLink Duo 2', 'Fullscreen Display 2', 'None']
const DEFAULT_OUTPUT_DEVICE: string = 'NDI'

const DEFAULT_VIDEO_FORMAT: VideoFormat = { width: 1920, height: 1080, frameRate: 29.97, interlaced: false }

/** Projects written into the data folder at start and listed as recent (most recent first). */
const SEED_PROJECTS = [
  { file: 'Evening News.nbproj', titles: SEED_TITLES },
  { file: 'Match Day.zip', titles: SEED_MATCH_DAY_TITLES },
] as const

/** What a fresh simulator holds (the model copies it; the seeds are never mutated). */
export const SEED = {
  titles: SEED_TITLES,
  openedVideoIns: SEED_OPENED_VIDEO_INS,
  videoIns: SEED_VIDEO_INS,
  outputDevices: OUTPUT_DEVICES,
  defaultOutputDevice: DEFAULT_OUTPUT_DEVICE,
  defaultVideoFormat: DEFAULT_VIDEO_FORMAT,
  projects: SEED_PROJECTS,
} as const
