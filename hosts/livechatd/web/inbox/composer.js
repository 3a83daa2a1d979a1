// The reply box under the thread: Enter sends, Shift+Enter makes a new line,
// the 5,000-character limit counted down from 4,500, the internal-note mode
// and file attachments.
import {api} from './api.js';
import {h, icon, ICONS, charCount} from './dom.js';
import {showError} from './notify.js';

export const MAX_CHARS = 5000;
const WARN_FROM = 4500;

export class Composer {
  // ctx: {state, onSent(message), conversationId()}
  constructor(ctx) {
    this.ctx = ctx;
    this.noteMode = false;
    this.sending = false;
    this.el = this.render();
    this.update();
  }

  render() {
    this.label = h('label', {for: 'composer-text', class: 'visually-hidden'}, 'Reply');
    this.textarea = h('textarea', {id: 'composer-text', rows: '3', placeholder: 'Write a reply…',
                                   'aria-describedby': 'composer-hint',
                                   oninput: () => this.update(),
                                   onkeydown: (e) => this.onKey(e)});
    this.noteButton = h('button', {type: 'button', class: 'toggle note-toggle', 'aria-pressed': 'false',
                                   onclick: () => this.setNoteMode(!this.noteMode)},
                        icon(ICONS.note), 'Note');
    this.fileInput = h('input', {type: 'file', id: 'composer-file', class: 'visually-hidden file-input',
                                 onchange: () => this.onFile()});
    const attach = this.attach = h('span', {class: 'attach'}, this.fileInput,
                     h('label', {for: 'composer-file', class: 'icon-button attach-label', title: 'Attach file'},
                       icon(ICONS.paperclip), h('span', {class: 'visually-hidden'}, 'Attach file')));
    this.counter = h('span', {class: 'counter', 'aria-live': 'polite'});
    this.sendButton = h('button', {type: 'submit', class: 'primary send'}, icon(ICONS.send), 'Send');
    this.hint = h('span', {id: 'composer-hint', class: 'hint'}, 'Enter to send, Shift+Enter for a new line');
    this.form = h('form', {class: 'composer', onsubmit: (e) => { e.preventDefault(); this.send(); }},
                  this.label, this.textarea,
                  h('div', {class: 'composer-bar'},
                    h('div', {class: 'composer-tools'}, this.noteButton, attach, this.hint),
                    h('div', {class: 'composer-send'}, this.counter, this.sendButton)));
    return this.form;
  }

  setNoteMode(on) {
    this.noteMode = on;
    this.noteButton.setAttribute('aria-pressed', String(on));
    this.label.textContent = on ? 'Internal note' : 'Reply';
    this.textarea.placeholder = on ? 'Write an internal note (only your team sees it)…' : 'Write a reply…';
    this.form.classList.toggle('note-mode', on);
    this.sendButton.lastChild.textContent = 'Send';
    // A file always goes to the visitor (there are no internal attachments):
    // in note mode it cannot be picked, so a note's file never leaks out.
    this.attach.hidden = on;
    this.fileInput.disabled = on || this.textarea.disabled;
  }

  focus(noteMode) {
    if (noteMode !== undefined) this.setNoteMode(noteMode);
    this.textarea.focus();
  }

  setEnabled(on) {
    this.textarea.disabled = !on;
    this.noteButton.disabled = !on;
    this.fileInput.disabled = !on || this.noteMode;
    this.update();
  }

  clear() {
    this.textarea.value = '';
    this.update();
  }

  update() {
    const n = charCount(this.textarea.value);
    if (n >= WARN_FROM) {
      const left = MAX_CHARS - n;
      this.counter.textContent = left >= 0
        ? `${left.toLocaleString('en-US')} ${left === 1 ? 'character' : 'characters'} left`
        : `${(-left).toLocaleString('en-US')} ${left === -1 ? 'character' : 'characters'} over the limit`;
      this.counter.classList.toggle('over', left < 0);
    } else if (this.counter.textContent) {
      this.counter.textContent = '';
      this.counter.classList.remove('over');
    }
    const empty = this.textarea.value.trim() === '';
    this.sendButton.disabled = this.sending || this.textarea.disabled || empty || n > MAX_CHARS;
  }

  onKey(e) {
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && !e.isComposing) {
      e.preventDefault();
      this.send();
    }
  }

  async send() {
    const id = this.ctx.conversationId();
    const text = this.textarea.value;
    if (!id || this.sending || text.trim() === '' || charCount(text) > MAX_CHARS) return;
    this.sending = true;
    this.update();
    // No memberId: the server sends as the session's own member, so a tab
    // left open under another sign-in never writes in the old name.
    const body = {text};
    if (this.noteMode) body.isNote = true;
    try {
      const res = await api.sendMessage(id, body);
      if (this.ctx.conversationId() === id) this.clear();
      this.ctx.onSent(res.data, id);
    } catch (err) {
      showError(err, this.noteMode ? 'The note was not saved' : 'The reply was not sent');
    } finally {
      this.sending = false;
      this.update();
    }
  }

  async onFile() {
    const file = this.fileInput.files && this.fileInput.files[0];
    const id = this.ctx.conversationId();
    this.fileInput.value = '';
    if (!file || !id || this.noteMode) return;
    this.form.classList.add('uploading');
    this.hint.textContent = `Uploading ${file.name}…`;
    try {
      const res = await api.uploadFile(id, file);
      this.ctx.onSent(res.data, id);
    } catch (err) {
      showError(err, `${file.name} was not sent`);
    } finally {
      this.form.classList.remove('uploading');
      this.hint.textContent = 'Enter to send, Shift+Enter for a new line';
    }
  }
}
