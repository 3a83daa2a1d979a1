// Keyboard shortcuts (not while typing in a field, except Escape) and the
// help dialog that lists them (`?`).
import {h, isTypingTarget} from './dom.js';

export const SHORTCUTS = [
  {keys: ['j'], what: 'Next conversation'},
  {keys: ['k'], what: 'Previous conversation'},
  {keys: ['r'], what: 'Reply'},
  {keys: ['n'], what: 'Write an internal note'},
  {keys: ['e'], what: 'Resolve or reopen'},
  {keys: ['a'], what: 'Assign to me'},
  {keys: ['s'], what: 'Star or unstar'},
  {keys: ['/'], what: 'Search conversations'},
  {keys: ['?'], what: 'Show keyboard shortcuts'},
  {keys: ['Esc'], what: 'Leave the field you are typing in'},
  {keys: ['Enter'], what: 'Send (in the reply box)'},
  {keys: ['Shift', 'Enter'], what: 'New line (in the reply box)'},
];

export function renderHelpDialog() {
  const close = h('button', {type: 'button', class: 'secondary', onclick: () => dialog.close()}, 'Close');
  const dialog = h('dialog', {class: 'dialog help-dialog', 'aria-labelledby': 'help-title'},
                   h('h2', {id: 'help-title'}, 'Keyboard shortcuts'),
                   h('table', {class: 'shortcut-table'},
                     h('caption', {class: 'visually-hidden'}, 'Keyboard shortcuts'),
                     h('thead', null, h('tr', null, h('th', {scope: 'col'}, 'Key'), h('th', {scope: 'col'}, 'Action'))),
                     h('tbody', null, SHORTCUTS.map((s) =>
                       h('tr', null,
                         h('td', null, s.keys.map((k, i) => [i ? ' + ' : null, h('kbd', null, k)])),
                         h('td', null, s.what))))),
                   h('div', {class: 'dialog-actions'}, close));
  return dialog;
}

// actions: {next, prev, reply, note, resolve, assignToMe, star, search, help, leave}
export function installShortcuts(actions) {
  const onKey = (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (e.key === 'Escape') {
      if (document.querySelector('dialog[open]')) return;  // the dialog closes itself
      if (isTypingTarget(target)) {
        target.blur();
        e.preventDefault();
        if (actions.leave) actions.leave();
      }
      return;
    }
    if (isTypingTarget(target) || document.querySelector('dialog[open]')) return;
    const run = {
      j: actions.next, k: actions.prev, r: actions.reply, n: actions.note, e: actions.resolve,
      a: actions.assignToMe, s: actions.star, '/': actions.search, '?': actions.help,
    }[e.key];
    if (!run) return;
    e.preventDefault();
    run();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
