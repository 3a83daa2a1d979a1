// Transient messages: errors from the server (with its message) and short
// confirmations, in a region screen readers announce.
import {h, icon, ICONS} from './dom.js';

let region = null;

export function mountNotifications(parent) {
  region = h('div', {class: 'toasts', 'aria-live': 'polite'});
  parent.append(region);
  return region;
}

export function unmountNotifications() {
  if (region) region.remove();
  region = null;
}

function toast(kind, message, ms) {
  if (!region) return;
  const close = h('button', {type: 'button', class: 'icon-button toast-close', 'aria-label': 'Dismiss'}, icon(ICONS.x));
  const el = h('div', {class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status'},
               h('span', {class: 'toast-text'}, message), close);
  const remove = () => el.remove();
  close.addEventListener('click', remove);
  region.append(el);
  while (region.children.length > 3) region.firstElementChild.remove();
  if (ms) setTimeout(remove, ms);
}

// An ApiError (or any Error): the server's message, with what was being done.
export function showError(err, doing) {
  if (err && err.name === 'AbortError') return;
  const message = err && err.message ? err.message : String(err);
  toast('error', doing ? `${doing}: ${message}` : message, 8000);
}

export function showInfo(message) {
  toast('info', message, 3500);
}
