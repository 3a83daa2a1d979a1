// Small DOM helpers shared by the inbox modules. Every piece of text from the
// server goes through textContent (h() children and the `text` attribute),
// never innerHTML: customer names, messages and tags are untrusted.

const SVG_NS = 'http://www.w3.org/2000/svg';

// h('button', {class: 'x', onclick: fn, 'aria-pressed': 'true'}, 'Label', child, ...)
// Attributes: `class`, `text` (textContent), `on<event>` (listener), `dataset`
// (object), booleans (true sets the attribute, false/null/undefined skip it),
// anything else via setAttribute. Children: nodes, strings (text nodes),
// arrays (flattened), null/undefined/false (skipped).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

function applyAttrs(el, attrs) {
  if (!attrs) return;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'value' && 'value' in el) el.value = value;
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// Replaces every child of `el`.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// A small inline icon from path data (Feather-like 24×24 strokes), hidden
// from assistive technology: the control around it carries the name.
export function icon(paths, cls = 'icon') {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', cls);
  for (const d of [].concat(paths)) {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', d);
    svg.append(p);
  }
  return svg;
}

export const ICONS = {
  star: 'M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5L2.5 9.4l6.6-.9z',
  check: 'M4 12.5l5 5L20 6.5',
  reopen: ['M3 12a9 9 0 1 0 3-6.7', 'M3 3v6h6'],
  user: ['M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2', 'M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z'],
  paperclip: 'M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9',
  send: ['M22 2L11 13', 'M22 2l-7 20-4-9-9-4z'],
  note: ['M4 4h16v12l-4 4H4z', 'M16 20v-4h4'],
  search: ['M11 19a8 8 0 1 0 0-16 8 8 0 0 0 0 16z', 'M21 21l-4.3-4.3'],
  x: ['M18 6L6 18', 'M6 6l12 12'],
  bot: ['M5 9h14v10H5z', 'M12 5v4', 'M9 14h.01', 'M15 14h.01'],
  keyboard: ['M3 6h18v12H3z', 'M7 10h.01', 'M11 10h.01', 'M15 10h.01', 'M7 14h10'],
  file: ['M14 3H6v18h12V7z', 'M14 3v4h4'],
  inbox: ['M22 12h-6l-2 3h-4l-2-3H2', 'M5.5 5h13L22 12v7H2v-7z'],
};

export function debounce(fn, ms) {
  let timer = 0;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

// "just now", "5 min", "3 h", "yesterday", "4 d", then a date.
export function relativeTime(iso, now = Date.now()) {
  if (!iso) return '';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const hours = Math.floor(m / 60);
  if (hours < 24) return `${hours} h`;
  const d = Math.floor(hours / 24);
  if (d === 1) return 'yesterday';
  if (d < 7) return `${d} d`;
  const date = new Date(then);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, sameYear ? {month: 'short', day: 'numeric'}
                                                      : {year: 'numeric', month: 'short', day: 'numeric'});
}

export function fullTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString(undefined, {dateStyle: 'medium', timeStyle: 'short'});
}

// A <time> that the minute ticker keeps current.
export function timeEl(iso, cls = 'reltime') {
  return h('time', {class: cls, datetime: iso || '', title: fullTime(iso), dataset: {relative: '1'}},
           relativeTime(iso));
}

export function refreshRelativeTimes(root = document) {
  const now = Date.now();
  for (const t of root.querySelectorAll('time[data-relative]')) {
    const text = relativeTime(t.getAttribute('datetime'), now);
    if (t.textContent !== text) t.textContent = text;
  }
}

// The search hit's text with <mark> around each [start, end) range (UTF-16
// offsets, as JavaScript indexes strings). Built from text nodes only.
export function highlightFragment(text, ranges) {
  const frag = document.createDocumentFragment();
  const sorted = (ranges || [])
      .filter((r) => Array.isArray(r) && r.length === 2 && r[0] < r[1])
      .map(([a, b]) => [Math.max(0, a), Math.min(text.length, b)])
      .sort((x, y) => x[0] - y[0]);
  let pos = 0;
  for (const [start, end] of sorted) {
    if (start < pos || start >= text.length) continue;  // overlapping or out of range: skip
    if (start > pos) frag.append(document.createTextNode(text.slice(pos, start)));
    frag.append(h('mark', null, text.slice(start, end)));
    pos = end;
  }
  if (pos < text.length) frag.append(document.createTextNode(text.slice(pos)));
  return frag;
}

export function formatBytes(n) {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

export const CHANNEL_NAMES = {
  online_store: 'Online store',
  email: 'Email',
  facebook: 'Facebook',
  instagram: 'Instagram',
  whatsapp: 'WhatsApp',
};

export function channelName(c) {
  if (!c) return '';
  return CHANNEL_NAMES[c] || c.replace(/_/g, ' ').replace(/^./, (x) => x.toUpperCase());
}

export function customerLabel(conv) {
  if (!conv) return '';
  if (conv.customerName) return conv.customerName;
  if (conv.isRedacted) return 'Deleted contact';
  if (conv.customerEmail) return conv.customerEmail;
  return 'Visitor';
}

export function initials(name) {
  const parts = String(name || '').trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return '?';
  const first = Array.from(parts[0])[0] || '';
  const last = parts.length > 1 ? Array.from(parts[parts.length - 1])[0] || '' : '';
  return (first + last).toUpperCase();
}

// A stable hue (from a small palette that keeps white text at AA contrast)
// for a person's avatar.
const AVATAR_CLASSES = ['av-0', 'av-1', 'av-2', 'av-3', 'av-4', 'av-5'];
export function avatarClass(seed) {
  let n = 0;
  for (const ch of String(seed || '')) n = (n * 31 + ch.codePointAt(0)) >>> 0;
  return AVATAR_CLASSES[n % AVATAR_CLASSES.length];
}

export function avatar(name, seed, size = '') {
  return h('span', {class: `avatar ${avatarClass(seed || name)} ${size}`, 'aria-hidden': 'true'}, initials(name));
}

// Character count as the server counts it (code points).
export function charCount(text) {
  let n = 0;
  for (const _ of text) n++;  // eslint-disable-line no-unused-vars
  return n;
}

// Is the keyboard focus in something the user types into?
export function isTypingTarget(el) {
  if (!el || el === document.body) return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  return !['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'range', 'color'].includes(type);
}
