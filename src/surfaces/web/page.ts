/**
 * The page's assets, kept as strings in this module so that `tsc` (which copies no assets) builds a
 * daemon that still serves them. The page is plain HTML, CSS and one small script; it draws nothing
 * itself: key images arrive rendered by the server's KeyRenderer, so the browser shows exactly what
 * the hardware shows.
 *
 * Safety: the server escapes every name it writes into the HTML (`escapeHtml`); the script builds
 * everything from WebSocket data with `textContent` and `setAttribute`, never `innerHTML`. The
 * served Content-Security-Policy allows only this origin's script and style and `data:` images.
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
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export interface PageSurfaceEntry {
  id: string
  model: string
  mode: 'interactive' | 'mirror'
}

/**
 * The page shell. The surface list written here is what the server knows at request time (useful
 * without script); the script replaces it live from the WebSocket.
 */
export function renderPage(surfaces: readonly PageSurfaceEntry[]): string {
  const items = surfaces
    .map(
      (s) =>
        `<li><span class="name">${escapeHtml(s.id)}</span> <span class="model">${escapeHtml(s.model)}</span>` +
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
<link rel="stylesheet" href="style.css">
<script src="client.js" defer></script>
</head>
<body>
<header class="top"><h1>panelbridge surfaces</h1><p id="status" role="status">connecting…</p></header>
<nav><ul id="surface-list">${items}</ul></nav>
<main id="surfaces"></main>
</body>
</html>
`
}

export const PAGE_CSS = `
:root { color-scheme: dark; --bg: #15171a; --panel: #22252a; --fg: #e8e8e8; --dim: #9aa0a6; --accent: #4aa3ff; }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px; background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, sans-serif; }
.top { display: flex; align-items: baseline; gap: 16px; }
h1 { font-size: 18px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 0; }
#status { margin: 0; color: var(--dim); }
#status.live { color: #6fcf6f; }
nav ul { list-style: none; padding: 0; margin: 0 0 16px; display: flex; flex-wrap: wrap; gap: 12px; }
nav a { color: var(--accent); }
.model { color: var(--dim); }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; background: #444; color: #ddd; font-size: 12px; }
.surface { background: var(--panel); border-radius: 10px; padding: 12px; margin: 0 0 16px; display: inline-block; vertical-align: top; margin-right: 16px; }
.surface > header { display: flex; gap: 10px; align-items: baseline; margin-bottom: 10px; }
.grid { display: grid; gap: 8px; }
.key { display: block; padding: 0; margin: 0; border: 0; background: #000; border-radius: 6px; overflow: hidden;
  outline: 2px solid transparent; outline-offset: 2px; touch-action: none; user-select: none; }
.key img { display: block; width: 100%; height: 100%; pointer-events: none; }
.key img:not([src]) { visibility: hidden; }
button.key { cursor: pointer; }
button.key:focus-visible { outline-color: var(--accent); }
button.key.down { outline-color: #fff; }
.readonly .key, .readonly .chip { cursor: not-allowed; }
.strip { display: flex; gap: 8px; margin-top: 8px; }
.dials { display: flex; gap: 16px; margin-top: 12px; align-items: center; flex-wrap: wrap; }
.dial { display: flex; flex-direction: column; align-items: center; gap: 4px; }
.ring { position: relative; width: 72px; height: 72px; border-radius: 50%; background: #333; border: 4px solid #555;
  touch-action: none; cursor: grab; }
.jog .ring { width: 120px; height: 120px; }
.mark { position: absolute; left: 50%; top: 4px; width: 4px; height: 14px; margin-left: -2px; background: #ddd; border-radius: 2px; }
.ring .turn { position: absolute; inset: 0; }
.press { position: absolute; left: 50%; top: 50%; width: 32px; height: 32px; margin: -16px 0 0 -16px; border-radius: 50%;
  border: 0; background: #666; cursor: pointer; touch-action: none; }
.press.down { background: #aaa; }
.dial .label { font-size: 12px; color: var(--dim); min-height: 1.4em; max-width: 120px; text-align: center; white-space: pre-line; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.chip { padding: 2px 8px; border-radius: 4px; background: #333; border-left: 8px solid #333; font-size: 12px; }
.chip.led-on { box-shadow: 0 0 6px 2px #ffd24a; }
.chip.led-blink { animation: blink 1s steps(2) infinite; }
@keyframes blink { 50% { box-shadow: 0 0 6px 2px #ffd24a; } }
`

/**
 * The browser script. Plain ES2017, no template literals (this file is itself a template literal).
 * Input: pointer down/up on a key or an encoder's centre → `down`/`up`; dragging or the wheel on a
 * ring → `rotate` with signed steps (clockwise positive), summed over ~16 ms before sending.
 */
export const PAGE_JS = `'use strict';
(function () {
  var RECONNECT_FIRST_MS = 500;
  var RECONNECT_MAX_MS = 5000;
  var ROTATE_BATCH_MS = 16;
  var DRAG_PIXELS_PER_STEP = 12;
  var WHEEL_PIXELS_PER_STEP = 100;
  var DEGREES_PER_STEP = 15;

  var main = document.getElementById('surfaces');
  var list = document.getElementById('surface-list');
  var status = document.getElementById('status');
  var socket = null;
  var retryMs = RECONNECT_FIRST_MS;
  var surfaces = new Map();
  var rotations = new Map();
  var rotateTimer = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function setStatus(text, live) {
    status.textContent = text;
    status.classList.toggle('live', live);
  }
  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }
  function wsUrl() {
    var u = new URL('ws', location.href);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    u.search = '';
    u.hash = '';
    return u.href;
  }

  function holdable(target, surface, control) {
    var held = false;
    function down(e) {
      if (e.button !== undefined && e.button !== 0) return;
      if (e.preventDefault) e.preventDefault();
      if (e.pointerId !== undefined) target.setPointerCapture(e.pointerId);
      if (held) return;
      held = true;
      target.classList.add('down');
      send({ type: 'down', surface: surface, control: control });
    }
    function up() {
      if (!held) return;
      held = false;
      target.classList.remove('down');
      send({ type: 'up', surface: surface, control: control });
    }
    target.addEventListener('pointerdown', down);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
    target.addEventListener('lostpointercapture', up);
    target.addEventListener('keydown', function (e) {
      if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) { e.preventDefault(); down({}); }
    });
    target.addEventListener('keyup', function (e) {
      if (e.key === ' ' || e.key === 'Enter') up();
    });
    target.addEventListener('blur', up);
  }

  function queueRotate(surface, control, steps, mark) {
    if (steps === 0) return;
    var key = JSON.stringify([surface, control]);
    rotations.set(key, (rotations.get(key) || 0) + steps);
    var angle = (Number(mark.dataset.angle) || 0) + steps * DEGREES_PER_STEP;
    mark.dataset.angle = String(angle);
    mark.style.transform = 'rotate(' + angle + 'deg)';
    if (!rotateTimer) rotateTimer = setTimeout(flushRotations, ROTATE_BATCH_MS);
  }
  function flushRotations() {
    rotateTimer = 0;
    rotations.forEach(function (delta, key) {
      var ids = JSON.parse(key);
      if (delta !== 0) send({ type: 'rotate', surface: ids[0], control: ids[1], delta: delta });
    });
    rotations.clear();
  }

  function rotatable(ring, turn, surface, control) {
    var dragging = false, last = 0, carry = 0, wheelCarry = 0;
    ring.addEventListener('pointerdown', function (e) {
      if (e.target !== ring && e.target !== turn) return;
      e.preventDefault();
      ring.setPointerCapture(e.pointerId);
      dragging = true;
      last = e.clientX - e.clientY;
      carry = 0;
    });
    ring.addEventListener('pointermove', function (e) {
      if (!dragging) return;
      var pos = e.clientX - e.clientY;
      carry += pos - last;
      last = pos;
      var steps = Math.trunc(carry / DRAG_PIXELS_PER_STEP);
      carry -= steps * DRAG_PIXELS_PER_STEP;
      queueRotate(surface, control, steps, turn);
    });
    function stop() { dragging = false; }
    ring.addEventListener('pointerup', stop);
    ring.addEventListener('pointercancel', stop);
    ring.addEventListener('wheel', function (e) {
      e.preventDefault();
      // deltaMode 1 = lines (3 per notch in Firefox), 2 = pages; a mouse notch is one step.
      var scale = e.deltaMode === 1 ? 34 : e.deltaMode === 2 ? 800 : 1;
      wheelCarry += e.deltaY * scale;
      var steps = Math.trunc(wheelCarry / WHEEL_PIXELS_PER_STEP);
      wheelCarry -= steps * WHEEL_PIXELS_PER_STEP;
      queueRotate(surface, control, steps, turn);
    }, { passive: false });
  }

  function keyElement(view, c) {
    var readonly = view.mode === 'mirror';
    var key = el(readonly ? 'div' : 'button', 'key');
    if (!readonly) key.type = 'button';
    key.dataset.surface = view.id;
    key.dataset.control = c.id;
    var size = c.image || { width: 72, height: 72 };
    key.style.width = size.width + 'px';
    key.style.height = size.height + 'px';
    key.setAttribute('aria-label', c.id + (readonly ? ' (read-only)' : ''));
    if (readonly) { key.setAttribute('aria-disabled', 'true'); key.title = c.id + ' (read-only mirror)'; }
    var img = el('img');
    img.alt = '';
    img.width = size.width;
    img.height = size.height;
    img.draggable = false;
    key.appendChild(img);
    if (!readonly) holdable(key, view.id, c.id);
    return key;
  }

  function dialElement(view, c) {
    var dial = el('div', 'dial ' + c.kind);
    dial.dataset.surface = view.id;
    dial.dataset.control = c.id;
    var ring = el('div', 'ring');
    var turn = el('div', 'turn');
    turn.appendChild(el('span', 'mark'));
    ring.appendChild(turn);
    ring.setAttribute('aria-label', c.id + ': drag or scroll to turn');
    rotatable(ring, turn, view.id, c.id);
    if (c.kind === 'encoder') {
      var press = el('button', 'press');
      press.type = 'button';
      press.setAttribute('aria-label', c.id + ' press');
      holdable(press, view.id, c.id);
      ring.appendChild(press);
    }
    dial.appendChild(ring);
    dial.appendChild(el('span', 'label', c.id));
    return dial;
  }

  function chipElement(view, c) {
    var chip = el('span', 'chip', c.id);
    chip.dataset.surface = view.id;
    chip.dataset.control = c.id;
    chip.title = c.id + ' (read-only mirror)';
    return chip;
  }

  function build(view) {
    remove(view.id);
    var section = el('section', 'surface ' + (view.mode === 'mirror' ? 'readonly' : 'interactive'));
    section.dataset.surface = view.id;
    section.dataset.mode = view.mode;
    var head = el('header');
    head.appendChild(el('h2', 'name', view.id));
    head.appendChild(el('span', 'model', view.model));
    if (view.mode === 'mirror') head.appendChild(el('span', 'badge', 'read-only'));
    section.appendChild(head);
    var grid = el('div', 'grid');
    var strip = el('div', 'strip');
    var dials = el('div', 'dials');
    var chips = el('div', 'chips');
    var controls = new Map();
    var columnWidth = 72;
    view.controls.forEach(function (c) {
      var node;
      if (c.image) {
        node = keyElement(view, c);
        if (c.row !== undefined && c.column !== undefined) {
          node.style.gridRow = String(c.row + 1);
          node.style.gridColumn = String(c.column + 1);
          columnWidth = c.image.width;
          grid.appendChild(node);
        } else {
          strip.appendChild(node);
        }
      } else if (view.mode === 'interactive' && (c.kind === 'encoder' || c.kind === 'jog')) {
        node = dialElement(view, c);
        dials.appendChild(node);
      } else {
        node = chipElement(view, c);
        chips.appendChild(node);
      }
      controls.set(c.id, node);
    });
    if (view.grid) grid.style.gridTemplateColumns = 'repeat(' + view.grid.columns + ', ' + columnWidth + 'px)';
    [grid, strip, dials, chips].forEach(function (part) { if (part.childNodes.length) section.appendChild(part); });
    var item = el('li');
    item.appendChild(el('span', 'name', view.id));
    item.appendChild(document.createTextNode(' '));
    item.appendChild(el('span', 'model', view.model));
    if (view.mode === 'mirror') { item.appendChild(document.createTextNode(' ')); item.appendChild(el('span', 'badge', 'read-only')); }
    surfaces.set(view.id, { view: view, section: section, grid: grid, controls: controls, item: item });
    var before = null;
    if (view.mode === 'interactive') {
      surfaces.forEach(function (s) { if (!before && s.view.mode === 'mirror') before = s; });
    }
    main.insertBefore(section, before ? before.section : null);
    list.insertBefore(item, before ? before.item : null);
  }

  function remove(id) {
    var s = surfaces.get(id);
    if (!s) return;
    s.section.remove();
    s.item.remove();
    surfaces.delete(id);
  }

  function control(m) {
    var s = surfaces.get(m.surface);
    return s ? s.controls.get(m.control) : undefined;
  }

  function handle(m) {
    var node;
    switch (m.type) {
      case 'hello':
        surfaces.forEach(function (s) { s.section.remove(); s.item.remove(); });
        surfaces.clear();
        while (list.firstChild) list.firstChild.remove();
        break;
      case 'surface':
        build(m.surface);
        break;
      case 'removed':
        remove(m.surface);
        break;
      case 'image':
        node = control(m);
        if (!node) return;
        node.querySelector('img').src = m.src;
        node.title = m.label + (node.tagName === 'DIV' ? ' (read-only mirror)' : '');
        break;
      case 'state':
        node = control(m);
        if (!node) return;
        var state = m.state || {};
        if (node.classList.contains('dial')) {
          node.querySelector('.label').textContent = state.text ? state.text : m.control;
          node.querySelector('.ring').style.borderColor = state.color || '';
        } else {
          node.textContent = state.text ? m.control + ': ' + state.text : m.control;
          node.style.borderLeftColor = state.color || '';
          node.classList.toggle('led-on', state.led === 'on');
          node.classList.toggle('led-blink', state.led === 'blink');
        }
        break;
      case 'brightness':
        var s = surfaces.get(m.surface);
        if (s) s.section.style.filter = m.percent >= 100 ? '' : 'brightness(' + Math.max(0.1, m.percent / 100) + ')';
        break;
    }
  }

  function connect() {
    setStatus('connecting…', false);
    socket = new WebSocket(wsUrl());
    socket.onopen = function () {
      retryMs = RECONNECT_FIRST_MS;
      setStatus('live', true);
    };
    socket.onmessage = function (e) {
      var m;
      try { m = JSON.parse(e.data); } catch (err) { return; }
      if (m && typeof m.type === 'string') handle(m);
    };
    socket.onclose = function () {
      socket = null;
      setStatus('disconnected, retrying…', false);
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
    };
  }
  connect();
})();
`
