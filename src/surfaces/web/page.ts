/**
 * The page's HTML and CSS, kept as strings in this module so that `tsc` (which copies no assets) builds
 * a daemon that still serves them. The page's script is TypeScript in `src/page/`, bundled by esbuild
 * (`./client-script.ts`). The script paints each key from its face with the hardware's key layout
 * (`../../face/key-paint.ts`) in the hardware's font (served at `/key-font.ttf`), so the browser shows
 * what the hardware shows.
 *
 * Safety: the server escapes every name it writes into the HTML (`escapeHtml`); the script builds
 * everything from WebSocket data with `textContent` and `setAttribute`, never `innerHTML`. The
 * served Content-Security-Policy allows only this origin's script, style and font, and `data:` images.
 */

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)
}

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // 'self': the favicon (`FAVICON_ROUTE`); key images come as data: URLs.
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** Where the page's icon is served, relative to the page. */
export const FAVICON_ROUTE = '/favicon.svg'
export const FAVICON_TYPE = 'image/svg+xml'

/** The page's icon: a control panel of four keys (red, amber, green, blue) on a dark body. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect x="1" y="4" width="30" height="24" rx="5" fill="#22252a" stroke="#4aa3ff" stroke-width="2"/>
<rect x="6" y="9" width="9" height="6" rx="1.5" fill="#c00000"/>
<rect x="17" y="9" width="9" height="6" rx="1.5" fill="#d08000"/>
<rect x="6" y="17" width="9" height="6" rx="1.5" fill="#00a000"/>
<rect x="17" y="17" width="9" height="6" rx="1.5" fill="#4aa3ff"/>
</svg>
`

export interface PageSurfaceEntry {
  id: string
  model: string
  mode: 'interactive' | 'mirror'
}

/** One row of the legend: a sample drawn by the stylesheet (`.sw` classes), its name, what it means. */
type LegendRow = readonly [sample: string, name: string, meaning: string]

/**
 * The legend's rows, by group. Each sample is a class of `.sw` (a swatch the stylesheet draws as the page
 * or a key shows it) or, as `text:CLASSES|TEXT`, that text as the page shows it.
 */
const LEGEND: readonly (readonly [group: string, rows: readonly LegendRow[]])[] = [
  [
    'Links',
    [
      [
        'text:ok|page connected',
        'page connected',
        'This page is connected to panelbridge. Not about the application, nor about what is on air.',
      ],
      [
        'text:ok|application: connected',
        'application: connected',
        'panelbridge reaches the graphics application’s command interface.',
      ],
      [
        'text:bad|application: not reachable',
        'application: not reachable',
        'panelbridge cannot reach the application; keys that show its state go grey (stale).',
      ],
      [
        'text:simulated|SIMULATED',
        'SIMULATED',
        'The built-in simulator stands in for the application: nothing reaches a real application or goes to air.',
      ],
    ],
  ],
  [
    'Key colours (unless a binding sets its own)',
    [
      ['running', 'red', 'The title is running: on air.'],
      ['paused', 'amber', 'The title is paused: still on screen, on air, holding.'],
      ['off', 'dark', 'The title is off (not on air), or the indicator is off.'],
      ['on', 'green', 'The indicator is on: replay mode, streaming, the input live.'],
    ],
  ],
  [
    'Badges in a key’s corner',
    [
      ['pending', 'amber corner', 'Pending: a command is on its way to the application.'],
      [
        'failed',
        'red !, red bar',
        'Failed: the last command failed (for a few seconds); the reason shows under the label.',
      ],
      [
        'stale',
        'grey corner, greyed key',
        'Stale: the application is not reachable; what the key shows may be out of date.',
      ],
      [
        'unknown',
        'blue ?',
        'Unknown: not seen yet. A fader before it moves or the application reports its value, a title the application does not have.',
      ],
      ['diverged', 'purple diamond', 'Diverged: a mirrored application differs from the one it mirrors.'],
    ],
  ],
  [
    'Surfaces',
    [
      [
        'text:badge|read-only',
        'read-only',
        'A mirror of hardware: it shows what the device shows and takes no presses here.',
      ],
      [
        'text:badge waiting|waiting for …',
        'waiting for …',
        'Configured hardware that is not plugged in, drawn greyed.',
      ],
      [
        'text:badge rehearsal|rehearsal',
        'rehearsal',
        'Its controls take presses from this page, as the device would (rehearse: true).',
      ],
      ['text:page|page …', 'page …', 'The page of controls the surface shows now.'],
      [
        'hotkey',
        'hotkey',
        'With a mouse, the keyboard key that presses this control, shown while the pointer is over it.',
      ],
    ],
  ],
]

/** The legend (a disclosure under the surfaces, opened from the header's `legend` link): what the page's words, colours and badges mean. */
function renderLegend(): string {
  const groups = LEGEND.map(([group, rows]) => {
    const items = rows
      .map(([sample, name, meaning]) => {
        const [cls, text] = sample.startsWith('text:') ? sample.slice(5).split('|') : [sample]
        const drawn =
          text !== undefined
            ? `<span class="sw-text ${escapeHtml(cls ?? '')}">${escapeHtml(text)}</span>`
            : `<span class="sw ${escapeHtml(sample)}" aria-hidden="true"></span> <span class="sw-name">${escapeHtml(name)}</span>`
        return `<div class="row"><dt>${drawn}</dt><dd>${escapeHtml(meaning)}</dd></div>`
      })
      .join('')
    return `<section><h3>${escapeHtml(group)}</h3><dl>${items}</dl></section>`
  })
  return `<details id="legend" class="legend"><summary title="What the words, colours and badges on this page mean">Legend</summary><div class="legend-body">${groups.join('')}</div></details>`
}

/**
 * The page shell. The surface list written here is what the server knows at request time (useful
 * without script); the script replaces it live from the WebSocket.
 */
export function renderPage(surfaces: readonly PageSurfaceEntry[]): string {
  const items = surfaces
    .map(
      (s) =>
        `<li><a href="?surface=${escapeHtml(encodeURIComponent(s.id))}"><span class="name">${escapeHtml(s.id)}</span></a> ` +
        `<span class="model">${escapeHtml(s.model)}</span>` +
        (s.mode === 'mirror' ? ' <span class="badge">read-only</span>' : '') +
        '</li>',
    )
    .join('')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>panelbridge surfaces</title>
<link rel="icon" href="${FAVICON_ROUTE.slice(1)}" type="${FAVICON_TYPE}">
<link rel="stylesheet" href="style.css">
<script src="client.js" defer></script>
</head>
<body>
<header class="top"><a id="all-surfaces" href="./" hidden>← all surfaces</a><h1>panelbridge surfaces</h1><p id="status" role="status">connecting to panelbridge…</p><a id="legend-link" href="#legend" title="What the words, colours and badges on this page mean">legend</a></header>
<div id="daemon-status" class="daemon-status" role="status" hidden></div>
<nav><ul id="surface-list">${items}</ul></nav>
<p id="missing" hidden></p>
<main id="surfaces"></main>
${renderLegend()}
</body>
</html>
`
}

/**
 * Keys fit the screen (`src/page/layout.ts` keeps `--chrome`): a grid's key is its image size (`--natural-w`)
 * at most, and shrinks so that the grid fits the page's width (`100cqw`, the width of `main`) and the
 * screen's height below the page's header, never below `--key-min`. The dials sit beside the keys
 * when there is room for them, else under them.
 */
export const PAGE_CSS = `
:root { color-scheme: dark; --bg: #15171a; --panel: #22252a; --fg: #e8e8e8; --dim: #9aa0a6; --accent: #4aa3ff;
  --gap: 8px; --key-min: 24px; }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px; background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, sans-serif;
  overflow-wrap: anywhere; }
.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; }
.top a { color: var(--accent); }
[hidden] { display: none !important; }
h1 { font-size: 18px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 0; }
#status { margin: 0; color: var(--dim); }
#status.live { color: #6fcf6f; }
.browser-decks { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; color: var(--dim); font-size: 12px; }
.browser-decks button { font: inherit; padding: 2px 8px; }
#missing { color: #ff8a65; }
.daemon-status { display: flex; flex-wrap: wrap; gap: 12px; align-items: baseline; margin: 0 0 12px; }
.daemon-status .link.connected { color: #6fcf6f; }
.daemon-status .link.stale, .daemon-status .link-error, .daemon-status .config.refused,
.daemon-status .recording.failed { color: #ff8a65; }
.daemon-status .notice { color: #6fcf6f; }
.daemon-status .simulated { padding: 0 8px; border-radius: 4px; background: #b8860b; color: #000; font-weight: bold; }
.daemon-status .errors { list-style: none; margin: 0; padding: 0; color: var(--dim); font-size: 12px; }
.waiting-app { flex: 1 1 100%; border: 1px solid #b8860b; border-radius: 8px; padding: 8px 12px; background: #2a2410; }
.waiting-app strong { color: #ffe08a; font-size: 15px; }
.waiting-app ul { margin: 4px 0 0; padding-left: 20px; }
.legend { margin: 16px 0 0; }
.legend summary { cursor: pointer; color: var(--accent); width: max-content; }
.legend-body { display: flex; flex-wrap: wrap; gap: 8px 24px; margin-top: 8px; padding: 8px 12px; border-radius: 8px;
  background: var(--panel); font-size: 13px; }
.legend section { flex: 1 1 360px; min-width: 0; }
.legend h3 { font-size: 13px; margin: 4px 0; color: var(--dim); }
.legend dl { margin: 0; }
.legend dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 8px; align-items: baseline; }
.legend .row { display: contents; }
.legend dt { max-width: 11em; }
.legend dd { margin: 0; }
.sw-text.ok { color: #6fcf6f; }
.sw-text.bad { color: #ff8a65; }
.sw-text.simulated { padding: 0 6px; border-radius: 4px; background: #b8860b; color: #000; font-weight: bold; }
.sw-name { color: var(--dim); font-size: 12px; }
.sw { display: inline-block; position: relative; width: 22px; height: 22px; border-radius: 4px; background: #202020;
  vertical-align: middle; overflow: hidden; }
.sw.running { background: #c00000; }
.sw.paused { background: #d08000; }
.sw.on { background: #00a000; }
.sw.pending::after, .sw.stale::after { content: ''; position: absolute; top: 0; right: 0; border-style: solid;
  border-width: 0 10px 10px 0; border-color: transparent #ffb000 transparent transparent; }
.sw.stale { background: #3a3a3a; }
.sw.stale::after { border-right-color: #8c8c8c; }
.sw.failed { background: linear-gradient(#e02020, #e02020) bottom / 100% 3px no-repeat, #202020; }
.sw.failed::after { content: '!'; position: absolute; top: 0; right: 0; width: 10px; height: 10px; background: #e02020;
  color: #fff; font: bold 9px/10px system-ui, sans-serif; text-align: center; }
.sw.unknown::after { content: '?'; position: absolute; top: 1px; right: 1px; width: 10px; height: 10px; border-radius: 50%;
  background: #4da3ff; color: #000; font: bold 9px/10px system-ui, sans-serif; text-align: center; }
.sw.diverged::after { content: ''; position: absolute; top: 2px; right: 2px; width: 7px; height: 7px; background: #d040ff;
  transform: rotate(45deg); }
.sw.hotkey { background: #000; }
.sw.hotkey::after { content: 'Q'; position: absolute; top: 1px; right: 1px; padding: 0 2px; border-radius: 2px;
  background: #000c; color: #fff; font: bold 9px/12px system-ui, sans-serif; outline: 1px solid #666; }
nav ul { list-style: none; padding: 0; margin: 0 0 16px; display: flex; flex-wrap: wrap; gap: 12px; }
nav a { color: var(--accent); }
nav a[aria-current] { font-weight: bold; }
body.single nav, body.single h1 { display: none; }
body.single .top { margin-bottom: 8px; }
.model { color: var(--dim); }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; background: #444; color: #ddd; font-size: 12px; }
.page { display: inline-block; padding: 0 6px; border-radius: 4px; background: #1f3b57; color: #cfe6ff; font-size: 12px; }
main { container-type: inline-size; display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.surface { background: var(--panel); border-radius: 10px; padding: 12px; margin: 0; min-width: 0; max-width: 100%;
  --natural-w: 72px; --aspect: 1; --cols: 1; --rows: 1;
  --key-w: max(min(var(--natural-w), var(--key-min)), min(var(--natural-w),
    calc((100cqw - 24px - (var(--cols) - 1) * var(--gap)) / var(--cols)),
    calc((100dvh - var(--chrome, 160px) - (var(--rows) - 1) * var(--gap)) / var(--rows) / var(--aspect))));
  --key-h: calc(var(--key-w) * var(--aspect)); }
.surface > header { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; margin-bottom: 10px; }
.surface .body { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.keys { min-width: 0; max-width: 100%; }
.grid { display: grid; gap: var(--gap); grid-template-columns: repeat(var(--cols), var(--key-w)); }
.key { display: block; position: relative; padding: 0; margin: 0; border: 0; background: #000; border-radius: 6px;
  overflow: hidden; width: var(--key-w); height: var(--key-h);
  outline: 2px solid transparent; outline-offset: 2px; touch-action: none; user-select: none; }
.key.own-size { width: min(var(--own-w), 100cqw - 24px); height: calc(min(var(--own-w), 100cqw - 24px) * var(--own-aspect)); }
.key canvas, .key img { display: block; width: 100%; height: 100%; pointer-events: none; }
.key canvas[hidden], .key img[hidden] { display: none; }
button.key { cursor: pointer; }
button.key:focus-visible { outline-color: var(--accent); }
button.key.down { outline-color: #fff; }
[data-hotkey] { position: relative; }
@media (hover: hover) and (pointer: fine) {
html:not([data-pointer="touch"]) [data-hotkey]:hover::after { content: attr(data-hotkey); position: absolute; top: 2px; right: 2px; z-index: 1;
  padding: 0 4px; border-radius: 3px; background: #000c; color: #fff; font: bold 11px/16px system-ui, sans-serif;
  pointer-events: none; white-space: nowrap; }
}
.readonly .key, .readonly .pad, .readonly .ring, .readonly .slider .track { cursor: not-allowed; }
.surface.waiting { border: 1px dashed #777; }
.surface.waiting .body { filter: grayscale(1) brightness(0.55); }
.surface.waiting .badge.waiting { background: #5a4a1a; color: #ffe08a; }
.surface.waiting .badge.rehearsal { background: #1f4d2b; color: #b6f5c6; }
.pad.down { outline: 2px solid #fff; }
.strip { display: flex; flex-wrap: wrap; gap: var(--gap); margin-top: 8px; }
.strip.pads { max-width: calc(8 * (var(--key-w) + var(--gap))); }
.pad { width: var(--key-w); height: var(--key-h); border-radius: 6px; background: #2b2d31; border: 1px solid #4a4d52;
  display: flex; align-items: center; justify-content: center; overflow: hidden; padding: 2px; user-select: none;
  color: #fff; font-size: 11px; line-height: 1.1; text-align: center; text-shadow: 0 0 2px #000, 0 0 2px #000; }
.pad.lit { border-color: #fff6; box-shadow: 0 0 8px 1px #fff3; }
.pad.blink { animation: pad-blink 1s steps(2) infinite; }
@keyframes pad-blink { 50% { background-color: #2b2d31; box-shadow: none; } }
.pad[data-badge="stale"] { border-style: dashed; }
.pad[data-badge="failed"] { border-color: #ff5252; }
.pad[data-badge="diverged"] { border-color: #d040ff; border-style: double; border-width: 3px; }
.dials { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; flex: 1 1 140px; min-width: 0; }
.dial { display: flex; flex-direction: column; align-items: center; gap: 4px; }
.ring { position: relative; width: 72px; height: 72px; border-radius: 50%; background: #333; border: 4px solid #555;
  touch-action: none; cursor: grab; outline: 2px solid transparent; outline-offset: 2px; }
.ring:focus-visible { outline-color: var(--accent); }
.ring.held { cursor: grabbing; }
.jog .ring { width: 120px; height: 120px; }
.mark { position: absolute; left: 50%; top: 4px; width: 4px; height: 14px; margin-left: -2px; background: #ddd; border-radius: 2px; }
.ring .turn { position: absolute; inset: 0; }
.press { position: absolute; left: 50%; top: 50%; width: 32px; height: 32px; margin: -16px 0 0 -16px; border-radius: 50%;
  border: 0; background: #666; cursor: pointer; touch-action: none; }
.press.down { background: #aaa; }
.dial .label { font-size: 12px; color: var(--dim); min-height: 1.4em; max-width: 120px; text-align: center; white-space: pre-line; }
.knob .ring { width: 56px; height: 56px; }
.ring.has-value { background: conic-gradient(var(--accent) calc(var(--value) * 1turn), #333 0); }
.slider { display: flex; flex-direction: column; align-items: center; gap: 4px; --pos: 0; max-width: 100%; }
.slider .track { position: relative; background: #333; border: 4px solid #555; touch-action: none; user-select: none;
  outline: 2px solid transparent; outline-offset: 2px; }
.slider .track:focus-visible { outline-color: var(--accent); }
.slider .thumb { position: absolute; background: #ddd; pointer-events: none; }
.slider .label { font-size: 12px; color: var(--dim); min-height: 1.4em; max-width: 250px; text-align: center; white-space: pre-line; }
.shuttle .track { width: 250px; height: 36px; border-radius: 18px; cursor: grab;
  background: linear-gradient(to right, #333 7px, #555 7px 8px, #333 8px) center / 15px 100% repeat-x; }
.shuttle.held .track { cursor: grabbing; }
.shuttle .thumb { top: 3px; height: 22px; width: 28px; border-radius: 11px; left: calc(50% - 14px + var(--pos) * 105px); }
.shuttle:not(.held) .thumb { transition: left 120ms ease-out; }
.shuttle .zone { font-size: 12px; font-variant-numeric: tabular-nums; min-width: 3em; text-align: center; }
.shuttle.held .zone { color: var(--accent); }
.fader .track { width: 36px; height: 160px; border-radius: 6px; cursor: ns-resize;
  background: linear-gradient(to top, var(--accent) calc(var(--pos) * (100% - 16px)), #333 0); }
.fader .label { min-height: 2.8em; }
.fader .thumb { left: 2px; right: 2px; height: 16px; border-radius: 3px; bottom: calc(var(--pos) * (100% - 16px)); }
.fader.unknown .track { background: repeating-linear-gradient(45deg, #333 0 6px, #3d3d3d 6px 12px); }
.fader.unknown .thumb { display: none; }
.fader.unknown .track::after { content: '?'; position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; color: #4da3ff; font: bold 20px system-ui, sans-serif; pointer-events: none; }
/* A device drawn as it looks (a Contour Shuttle): its body, each control in its box (percentages). */
.face { position: relative; width: min(100%, var(--face-w, 300px)); aspect-ratio: var(--face-aspect, 1);
  border-radius: 18% / 12%; background: #2b2e33; border: 1px solid #44484e; flex: none; }
.face > .on-face { position: absolute; margin: 0; }
.face > .pad.on-face { min-width: 0; min-height: 0; border-radius: 5px; font-size: 10px; }
.face > .dial.on-face { gap: 0; }
.face > .dial.on-face .ring { width: 100%; height: 100%; z-index: 1; }
.face > .dial.on-face .label { position: absolute; inset: 0; z-index: 2; display: flex; align-items: center;
  justify-content: center; pointer-events: none; font-size: 11px; color: var(--fg); max-width: none; min-height: 0; }
.face > .slider.on-face { display: block; }
.face > .slider.on-face .track { width: 100%; height: 100%; border-radius: 50%; background: #1f2124;
  border-width: 6px; cursor: grab; }
.face > .slider.on-face .thumb { inset: 0; width: auto; height: auto; top: 0; left: 0; border-radius: 50%; background: none;
  transform: rotate(calc(var(--pos) * 105deg)); }
.face > .slider.on-face .thumb::before { content: ''; position: absolute; left: calc(50% - 7px); top: 2px; width: 14px;
  height: 14px; border-radius: 50%; background: #ddd; }
.face > .shuttle.on-face:not(.held) .thumb { transition: transform 120ms ease-out; }
.face > .slider.on-face .zone, .face > .slider.on-face .label { position: absolute; left: 0; right: 0; text-align: center;
  pointer-events: none; font-size: 10px; line-height: 1.15; max-width: none; min-height: 0; }
.face > .slider.on-face .zone { bottom: 19%; }
.face > .slider.on-face .label { bottom: 8%; }
.fader.centred .track { background: linear-gradient(#555, #555) center / 100% 2px no-repeat, #333; }
/* The binding editor (src/page/editor/): a panel at the right, the surfaces beside it (a 1024×768 tablet too). */
.edit-switch { font: inherit; padding: 2px 12px; border-radius: 4px; border: 1px solid var(--accent); background: none;
  color: var(--accent); cursor: pointer; }
.edit-switch[aria-pressed="true"] { background: var(--accent); color: #000; }
body.editing { padding-right: calc(min(420px, 45vw) + 16px); }
.editor { position: fixed; top: 0; right: 0; bottom: 0; width: min(420px, 45vw); overflow-y: auto; padding: 12px;
  background: var(--panel); border-left: 1px solid #44484e; z-index: 10; font-size: 13px; }
.editor header { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
.editor h3 { font-size: 15px; margin: 8px 0 2px; }
.editor .file, .editor .where { color: var(--dim); margin: 2px 0; font-family: ui-monospace, monospace; font-size: 12px; }
.editor .read-only-note { color: #ffe08a; margin: 4px 0; }
.editor .find-row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0 4px; }
.editor button, .editor select, .editor input, .editor textarea { font: inherit; }
.editor button { padding: 3px 10px; }
.editor .find[aria-pressed="true"] { background: #b8860b; color: #000; }
.editor .find-state { color: #ffb000; margin: 4px 0; min-height: 1em; }
.editor .message { white-space: pre-line; margin: 6px 0; }
.editor .message.ok { color: #6fcf6f; }
.editor .message.bad { color: #ff8a65; }
.editor .diff { white-space: pre-wrap; background: #15171a; padding: 6px; border-radius: 4px; color: var(--fg); }
.editor .yaml pre { margin: 4px 0; padding: 6px; background: #15171a; border-radius: 4px; white-space: pre-wrap;
  font-size: 12px; max-height: 9em; overflow: auto; }
.editor .field { display: grid; grid-template-columns: 8.5em 1fr; gap: 2px 8px; align-items: center; margin: 4px 0; }
.editor .field .problem { grid-column: 2; color: #ff8a65; font-size: 12px; }
.editor .field .problem:empty { display: none; }
.editor .field.bad input, .editor .field.bad select, .editor .field.bad textarea { outline: 2px solid #ff5252; }
.editor .field input, .editor .field select, .editor .field textarea { width: 100%; min-width: 0; }
.editor .params { border-left: 2px solid #44484e; padding-left: 8px; }
.editor fieldset.group { border: 1px solid #44484e; border-radius: 4px; margin: 8px 0; padding: 2px 8px 6px; min-width: 0; }
.editor fieldset.group legend { color: var(--dim); padding: 0 4px; }
.editor .sub-command { border-top: 1px dotted #44484e; margin-top: 4px; }
.editor .field input[type="checkbox"] { width: auto; justify-self: start; }
.editor .field.wide { display: block; }
.editor .field.wide > .problem { display: block; }
.editor .steps .step { margin-left: 8px; }
.editor .steps .remove-step { margin: 2px 0 4px; }
.editor .colors { display: flex; flex-wrap: wrap; gap: 4px 10px; }
.editor .colors label { display: inline-flex; align-items: center; gap: 3px; }
.editor .field .colors input { width: auto; }
.editor .field .colors input[type="color"] { width: 2.2em; height: 1.6em; padding: 0; }
.editor .summary, .editor .note { color: var(--dim); margin: 2px 0 4px; }
.editor .actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 10px; align-items: center; }
.editor .actions .copy-to { width: 10em; }
.editor .save { background: var(--accent); color: #000; border: 0; border-radius: 4px; }
section.surface.find-armed .key, section.surface.find-armed .pad, section.surface.find-armed .ring,
section.surface.find-armed .slider .track { outline: 2px dashed #ffb000; outline-offset: 2px; }
section.surface.find-armed { box-shadow: 0 0 0 2px #ffb00088; }
.previewing { outline: 2px solid #d040ff !important; }
.pad.previewing:not(.on-face) { position: relative; }
.previewing::before { content: attr(data-preview); position: absolute; inset: auto 0 0 0; z-index: 2; padding: 1px 2px;
  background: var(--preview-color, #d040ffdd); color: #fff; font: bold 11px/1.2 system-ui, sans-serif; text-align: center; pointer-events: none;
  white-space: pre-line; }
`
