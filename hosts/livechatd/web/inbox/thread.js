// The middle column: one conversation. Header with the actions (assign,
// star, resolve / reopen), tags and attributes, the AI-agent banner, the
// messages (oldest first, older pages on demand), the visitor's typing
// indicator, the read state and the composer.
import {api} from './api.js';
import {h, replace, icon, ICONS, timeEl, channelName, customerLabel, avatar, formatBytes} from './dom.js';
import {showError, showInfo} from './notify.js';
import {Composer} from './composer.js';
import {ConversationDetails} from './details.js';

const PAGE = 40;
const TYPING_POLL_MS = 2000;

export function senderType(m) {
  if (m.isAutomated || m.isTransfer) return 'system';
  if (m.isBot) return 'bot';
  if (m.isAdmin) return 'agent';
  return 'customer';
}

// Text with http(s) links made clickable; everything else stays text.
function linkified(text) {
  const out = [];
  const re = /\bhttps?:\/\/[^\s<>"']+/gi;
  let pos = 0;
  let m;
  while ((m = re.exec(text))) {
    let url = m[0].replace(/[.,;:!?)\]]+$/, '');
    if (m.index > pos) out.push(text.slice(pos, m.index));
    out.push(h('a', {href: url, target: '_blank', rel: 'noopener noreferrer'}, url));
    pos = m.index + url.length;
    re.lastIndex = pos;
  }
  if (pos < text.length) out.push(text.slice(pos));
  return out;
}

// A file livechatd stored (its entry has the file's id): fetched from this
// origin, which serves /files/ too. An absolute --public-url naming another
// listener would be another origin, and the CSP (img-src 'self') would
// block the inline image.
function fileUrl(f) {
  const url = safeUrl(f.url);
  if (!url || !f.id) return url;
  const parsed = new URL(url);
  return parsed.pathname === `/files/${f.id}` ? parsed.pathname + parsed.search : url;
}

function safeUrl(u) {
  if (typeof u !== 'string' || !u) return null;
  try {
    const url = new URL(u, window.location.origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export class ThreadView {
  // ctx: {state, members(), memberName(id), onConversation(conv), onOpened(conv), select(id)}
  constructor(ctx) {
    this.ctx = ctx;
    this.conv = null;
    this.messages = new Map();
    this.olderCursor = null;
    this.loadingOlder = false;
    this.typingTimer = 0;
    this.typingSupported = true;
    this.openSeq = 0;
    this.drafts = new Map();  // conversation id -> unsent reply
    // A read and a write of the open conversation can cross on the wire: a
    // GET the server answered before a write committed can arrive after the
    // write's answer and would put the old state back on screen (the
    // assignee flicks back to "Unassigned"). So a read is applied only if no
    // write was in flight when it started and none started since; otherwise
    // it is redone once the writes settle. Write answers apply in the order
    // the writes started. Nothing is lost: every dropped read is redone.
    this.ticket = 0;
    this.lastWrite = 0;
    this.appliedWrite = 0;
    this.writesInFlight = 0;
    this.rereadAfterWrites = false;
    this.composer = new Composer({
      state: ctx.state,
      conversationId: () => (this.conv ? this.conv.id : null),
      onSent: (message, id) => this.onSent(message, id),
    });
    this.details = new ConversationDetails({
      state: ctx.state,
      conversation: () => this.conv,
      write: (fn) => this.write(fn),
      onTags: (tags, id, ticket) => {
        if (!this.conv || this.conv.id !== id || !this.freshWrite(ticket)) return;
        this.conv = {...this.conv, tags};
        this.details.renderTags(tags);
        this.ctx.onConversation(this.conv);
      },
      onCatalogChanged: () => ctx.onCatalogChanged(),
    });
    this.el = this.render();
    this.showEmpty();
    this.onVisibility = () => this.scheduleTyping();
    document.addEventListener('visibilitychange', this.onVisibility);
  }

  destroy() {
    this.openSeq++;
    this.stopTyping();
    this.conv = null;
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  render() {
    this.heading = h('h2', {class: 'thread-name', id: 'thread-title', tabindex: '-1'});
    this.avatarSlot = h('span', {class: 'thread-avatar'});
    this.subline = h('p', {class: 'thread-sub'});

    this.assignee = h('select', {id: 'assignee', onchange: () => this.assign(this.assignee.value || null)});
    this.assignMe = h('button', {type: 'button', class: 'secondary', onclick: () => this.assignToMe()},
                      icon(ICONS.user), 'Assign to me');
    this.starButton = h('button', {type: 'button', class: 'secondary toggle star-toggle', 'aria-pressed': 'false',
                                   onclick: () => this.toggleStar()}, icon(ICONS.star), h('span', null, 'Star'));
    this.resolveButton = h('button', {type: 'button', class: 'primary resolve', onclick: () => this.toggleResolved()},
                           icon(ICONS.check), h('span', null, 'Resolve'));
    this.actions = h('div', {class: 'thread-actions', role: 'toolbar', 'aria-label': 'Actions'},
                     h('span', {class: 'field-inline'}, h('label', {for: 'assignee'}, 'Assignee'), this.assignee),
                     this.assignMe, this.starButton, this.resolveButton);

    this.banner = h('p', {class: 'bot-banner', hidden: true},
                    icon(ICONS.bot), 'The AI agent is handling this conversation; your reply hands it over to you');

    this.olderButton = h('button', {type: 'button', class: 'link-button older', hidden: true,
                                    onclick: () => this.loadOlder()}, 'Load older messages');
    this.log = h('ol', {class: 'messages', 'aria-label': 'Messages', role: 'log'});
    this.typing = h('div', {class: 'typing', role: 'status'});
    this.noMessages = h('p', {class: 'no-messages muted', hidden: true}, 'No messages yet');
    this.scroller = h('div', {class: 'thread-scroll', tabindex: '0', role: 'region', 'aria-label': 'Message history'},
                      this.olderButton, this.log, this.noMessages);
    // Images load after the thread is laid out: stay at the bottom if the
    // reader was there.
    this.stick = true;
    this.scroller.addEventListener('scroll', () => { this.stick = this.isNearBottom(); }, {passive: true});

    this.header = h('header', {class: 'thread-head'},
                    h('div', {class: 'thread-title'}, this.avatarSlot,
                      h('div', {class: 'thread-title-text'}, this.heading, this.subline)),
                    this.actions);
    this.body = h('div', {class: 'thread-body'}, this.header, this.details.el, this.banner, this.scroller,
                  this.typing, this.composer.el);
    this.placeholder = h('div', {class: 'thread-empty'});
    this.section = h('section', {class: 'col col-thread', 'aria-label': 'Conversation'}, this.placeholder, this.body);
    return this.section;
  }

  conversationId() {
    return this.conv ? this.conv.id : null;
  }

  showEmpty(message) {
    this.conv = null;
    this.stopTyping();
    this.body.remove();  // out of the page, so its labels do not count while nothing is open
    this.placeholder.hidden = false;
    replace(this.placeholder, icon(ICONS.inbox, 'icon icon-xl'),
            h('p', {class: 'empty-title'}, message || 'No conversation selected'),
            h('p', {class: 'muted'}, message ? '' : 'Pick one from the list, or press j and k to move through it.'));
  }

  // ---- opening ----

  async open(id) {
    const seq = ++this.openSeq;
    // Keep the unsent draft of the conversation we leave; nothing acts on it
    // until the next one has loaded.
    if (this.conv) this.drafts.set(this.conv.id, this.composer.textarea.value);
    this.conv = null;
    this.composer.textarea.value = this.drafts.get(id) || '';
    this.drafts.delete(id);
    this.composer.update();
    this.stopTyping();
    this.messages.clear();
    this.olderCursor = null;
    this.placeholder.hidden = true;
    if (!this.body.isConnected) this.section.append(this.body);
    this.body.classList.add('loading');
    replace(this.log);
    this.typing.textContent = '';
    let conv;
    try {
      const res = await api.getConversation(id);
      conv = res.data;
    } catch (err) {
      if (seq !== this.openSeq) return;
      this.body.classList.remove('loading');
      if (err.status === 404) this.showEmpty('This conversation no longer exists');
      else this.showEmpty(`The conversation could not be loaded: ${err.message}`);
      this.ctx.onOpened(null);
      return;
    }
    if (seq !== this.openSeq) return;
    this.setConversation(conv);
    this.details.loadAttributes(id);
    this.composer.setEnabled(true);
    this.ctx.onOpened(conv);
    await this.loadLatest(true);
    if (seq !== this.openSeq) return;
    this.body.classList.remove('loading');
    this.markRead();
    this.scheduleTyping(true);
  }

  setConversation(conv) {
    const prev = this.conv;
    this.conv = conv;
    const name = customerLabel(conv);
    this.heading.textContent = name;
    replace(this.avatarSlot, avatar(name, conv.customerUuid || conv.id, 'avatar-lg'));
    const channel = conv.channels && conv.channels[0];
    replace(this.subline,
            h('span', {class: `status-badge ${conv.status}`}, conv.status === 'resolved' ? 'Resolved' : 'Open'),
            conv.customerEmail ? h('span', null, conv.customerEmail) : null,
            channel ? h('span', null, channelName(channel)) : null,
            conv.createdAt ? h('span', null, 'Started ', timeEl(conv.createdAt)) : null);
    this.renderAssignee();
    this.starButton.setAttribute('aria-pressed', String(Boolean(conv.isStarred)));
    replace(this.starButton, icon(ICONS.star), h('span', null, conv.isStarred ? 'Unstar' : 'Star'));
    this.starButton.title = conv.isStarred ? 'Unstar (s)' : 'Star (s)';
    const resolved = conv.status === 'resolved';
    this.resolveButton.title = resolved ? 'Reopen (e)' : 'Resolve (e)';
    replace(this.resolveButton, icon(resolved ? ICONS.reopen : ICONS.check), h('span', null, resolved ? 'Reopen' : 'Resolve'));
    this.resolveButton.classList.toggle('primary', !resolved);
    this.resolveButton.classList.toggle('secondary', resolved);
    this.banner.hidden = !conv.isChatBot;
    this.details.renderTags(conv.tags);
    if (prev && prev.id === conv.id && prev.isCustomerRead !== conv.isCustomerRead) this.renderSeen();
  }

  renderAssignee() {
    if (!this.conv) return;
    const members = this.ctx.members();
    const options = [h('option', {value: ''}, 'Unassigned')];
    for (const m of members) {
      if (!m.active && m.id !== this.conv.memberId) continue;
      const label = m.id === this.ctx.state.me.id ? `${m.fullName} (you)` : m.fullName;
      options.push(h('option', {value: m.id}, label));
    }
    if (this.conv.memberId && !members.some((m) => m.id === this.conv.memberId)) {
      options.push(h('option', {value: this.conv.memberId}, this.ctx.memberName(this.conv.memberId)));
    }
    replace(this.assignee, options);
    this.assignee.value = this.conv.memberId || '';
    const mine = this.conv.memberId === this.ctx.state.me.id;
    this.assignMe.disabled = mine;
  }

  // ---- messages ----

  async loadLatest(initial) {
    const conv = this.conv;
    if (!conv) return;
    let res;
    try {
      res = await api.messages(conv.id, {order: 'desc', limit: PAGE});
    } catch (err) {
      if (initial) showError(err, 'Messages could not be loaded');
      return;
    }
    if (!this.conv || this.conv.id !== conv.id) return;
    const nearBottom = this.isNearBottom();
    const fresh = (res.data || []).filter((m) => !this.messages.has(m.id));
    let changed = false;
    for (const m of res.data || []) {
      const old = this.messages.get(m.id);
      if (!old || old.text !== m.text || (old.files || []).length !== (m.files || []).length) changed = true;
      this.messages.set(m.id, m);
    }
    if (initial) {
      this.olderCursor = res.paging && res.paging.hasMore ? res.paging.nextCursor : null;
    }
    if (changed || initial) this.renderMessages();
    if (initial || (fresh.length && nearBottom)) this.scrollToBottom();
  }

  async loadOlder() {
    if (!this.conv || !this.olderCursor || this.loadingOlder) return;
    const id = this.conv.id;
    this.loadingOlder = true;
    this.olderButton.disabled = true;
    try {
      const res = await api.messages(id, {order: 'desc', limit: PAGE, cursor: this.olderCursor});
      if (!this.conv || this.conv.id !== id) return;
      for (const m of res.data || []) this.messages.set(m.id, m);
      this.olderCursor = res.paging && res.paging.hasMore ? res.paging.nextCursor : null;
      const before = this.scroller.scrollHeight - this.scroller.scrollTop;
      this.renderMessages();
      this.scroller.scrollTop = this.scroller.scrollHeight - before;
    } catch (err) {
      showError(err, 'Older messages could not be loaded');
    } finally {
      this.loadingOlder = false;
      this.olderButton.disabled = false;
    }
  }

  sorted() {
    return [...this.messages.values()].sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);
  }

  renderMessages() {
    const list = this.sorted();
    this.olderButton.hidden = !this.olderCursor;
    const items = [];
    let lastDay = '';
    for (const m of list) {
      const li = this.renderMessage(m);
      const day = (m.createdAt || '').slice(0, 10);
      if (day && day !== lastDay) {
        lastDay = day;
        const label = new Date(m.createdAt).toLocaleDateString(undefined, {weekday: 'short', month: 'short', day: 'numeric'});
        li.prepend(h('div', {class: 'day-divider'}, h('span', null, label)));
      }
      items.push(li);
    }
    this.noMessages.hidden = list.length > 0;
    replace(this.log, items);
    this.renderSeen();
  }

  renderMessage(m) {
    const type = senderType(m);
    // role="none": the log (role=log, as the contract asks) is not a list
    // to assistive technology, so its items must not claim to be list items.
    const attrs = {class: `msg msg-${type}${m.isNote ? ' msg-note' : ''}`, role: 'none',
                   dataset: {senderType: type, messageId: m.id}};
    if (m.isNote) attrs.dataset.note = 'true';
    if (type === 'system') {
      return h('li', attrs, h('p', {class: 'system-line'},
                              icon(m.isTransfer ? ICONS.user : ICONS.bot, 'icon icon-sm'),
                              h('span', null, m.text), ' ', timeEl(m.createdAt, 'reltime msg-time')));
    }
    const author = type === 'customer'
      ? (this.conv.customerName || (m.senderName && m.senderName !== 'Customer' ? m.senderName : customerLabel(this.conv)))
      : type === 'bot' ? (m.senderName || 'AI agent') : (m.senderName || this.ctx.memberName(m.memberId));
    const files = (m.files || []).filter((f) => f && typeof f === 'object');
    const showText = m.text && !(files.length && files.some((f) => f.name === m.text));
    return h('li', attrs,
             h('div', {class: 'msg-head'},
               h('span', {class: 'msg-author'}, author),
               type === 'bot' ? h('span', {class: 'chip chip-bot'}, 'AI') : null,
               m.isNote ? h('span', {class: 'chip chip-note'}, 'Internal note') : null,
               timeEl(m.createdAt, 'reltime msg-time')),
             h('div', {class: 'bubble'},
               showText ? h('p', {class: 'msg-text'}, linkified(m.text)) : null,
               files.length ? h('ul', {class: 'files', 'aria-label': 'Attachments'}, files.map((f) => this.renderFile(f)))
                            : null));
  }

  renderFile(f) {
    const url = fileUrl(f);
    const name = f.name || 'file';
    if (url && /^image\//i.test(f.contentType || '')) {
      return h('li', {class: 'file file-image'},
               h('a', {href: url, target: '_blank', rel: 'noopener noreferrer', title: name},
                 h('img', {src: url, alt: name, loading: 'lazy',
                           onload: () => { if (this.stick) this.scrollToBottom(); }})));
    }
    const inner = [icon(ICONS.file, 'icon icon-sm'), h('span', {class: 'file-name'}, name),
                   f.size ? h('span', {class: 'file-size'}, formatBytes(f.size)) : null];
    return h('li', {class: 'file'}, url
      ? h('a', {href: url, target: '_blank', rel: 'noopener noreferrer', download: name}, inner)
      : h('span', null, inner));
  }

  // "Seen" under the last agent reply once the visitor has read it.
  renderSeen() {
    for (const el of this.log.querySelectorAll('.seen')) el.remove();
    if (!this.conv || !this.conv.isCustomerRead) return;
    const agentItems = this.log.querySelectorAll('li[data-sender-type="agent"]:not([data-note])');
    const last = agentItems[agentItems.length - 1];
    if (last) last.append(h('p', {class: 'seen'}, 'Seen'));
  }

  isNearBottom() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 80;
  }

  scrollToBottom() {
    this.stick = true;
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  onSent(message, id) {
    if (!this.conv || this.conv.id !== id) {
      this.drafts.delete(id);  // sent while another conversation was open
      return;
    }
    if (!message) return;
    this.messages.set(message.id, message);
    this.renderMessages();
    this.scrollToBottom();
    // The conversation moved (last message, maybe the AI handoff, assignee).
    this.reloadConversation();
  }

  // ---- live ----

  async reloadConversation() {
    if (!this.conv) return;
    const id = this.conv.id;
    const ticket = ++this.ticket;
    const clean = this.writesInFlight === 0;
    try {
      const res = await api.getConversation(id);
      if (!this.conv || this.conv.id !== id) return;
      if (!clean || this.lastWrite > ticket) {
        if (this.writesInFlight) this.rereadAfterWrites = true;
        else this.reloadConversation();
        return;
      }
      this.setConversation(res.data);
      this.ctx.onConversation(res.data);
    } catch (err) {
      if (err.status === 404 && this.conv && this.conv.id === id) this.removed();
    }
  }

  // The feed said this conversation changed.
  async refresh({messages = true} = {}) {
    if (!this.conv) return;
    await this.reloadConversation();
    if (messages) {
      await this.loadLatest(false);
      this.markRead();
    }
  }

  removed() {
    this.showEmpty('This conversation was deleted');
    this.ctx.onOpened(null);
  }

  // ---- actions ----

  // Runs one write of the open conversation; fn gets the write's ticket.
  async write(fn) {
    const ticket = ++this.ticket;
    this.lastWrite = ticket;
    this.writesInFlight++;
    try {
      return await fn(ticket);
    } finally {
      this.writesInFlight--;
      if (!this.writesInFlight && this.rereadAfterWrites) {
        this.rereadAfterWrites = false;
        this.reloadConversation();
      }
    }
  }

  // Whether the answer of the write with this ticket is the newest one seen.
  freshWrite(ticket) {
    if (ticket < this.appliedWrite) return false;
    this.appliedWrite = ticket;
    return true;
  }

  async act(doing, fn) {
    if (!this.conv) return null;
    const id = this.conv.id;
    try {
      const [res, ticket] = await this.write(async (t) => [await fn(id), t]);
      if (res && res.data && this.conv && this.conv.id === id && this.freshWrite(ticket)) {
        this.setConversation(res.data);
        this.ctx.onConversation(res.data);
      }
      return res;
    } catch (err) {
      showError(err, doing);
      if (this.conv && this.conv.id === id) this.renderAssignee();
      return null;
    }
  }

  assign(memberId) {
    return this.act('The conversation was not assigned', (id) => api.assign(id, memberId));
  }

  async assignToMe() {
    if (!this.conv || this.conv.memberId === this.ctx.state.me.id) return;
    const res = await this.assign(this.ctx.state.me.id);
    if (res) showInfo('Assigned to you');
  }

  async toggleStar() {
    if (!this.conv) return;
    const starred = !this.conv.isStarred;
    await this.act(starred ? 'The conversation was not starred' : 'The star was not removed',
                   (id) => api.star(id, starred));
  }

  async toggleResolved() {
    if (!this.conv) return;
    const next = this.conv.status === 'resolved' ? 'open' : 'resolved';
    const res = await this.act(next === 'resolved' ? 'The conversation was not resolved' : 'The conversation was not reopened',
                               (id) => api.setState(id, next));
    if (res) showInfo(next === 'resolved' ? 'Conversation resolved' : 'Conversation reopened');
  }

  async markRead() {
    const conv = this.conv;
    if (!conv || conv.isRead || document.visibilityState === 'hidden') return;
    try {
      const res = await api.markRead(conv.id);
      if (this.conv && this.conv.id === conv.id && res && res.data) {
        this.conv = {...this.conv, isRead: res.data.isRead, isCustomerRead: res.data.isCustomerRead};
        this.ctx.onConversation(res.data);
      }
    } catch (err) {
      if (err.status !== 404) console.warn('mark read:', err.message);
    }
  }

  // ---- typing indicator ----

  stopTyping() {
    clearTimeout(this.typingTimer);
    this.typingTimer = 0;
    if (this.typing) this.typing.textContent = '';
  }

  scheduleTyping(immediately = false) {
    clearTimeout(this.typingTimer);
    if (!this.conv || !this.typingSupported || document.visibilityState === 'hidden') return;
    this.typingTimer = setTimeout(() => this.pollTyping(), immediately ? 0 : TYPING_POLL_MS);
  }

  async pollTyping() {
    const conv = this.conv;
    if (!conv) return;
    // The visitor reading a reply sends no event: every 10 s, while the last
    // reply is not seen yet, the read state is read again.
    this.typingTicks = (this.typingTicks || 0) + 1;
    if (this.typingTicks % 5 === 0 && !conv.isCustomerRead) this.refreshSeen(conv.id);
    try {
      const res = await api.typing(conv.id);
      if (!this.conv || this.conv.id !== conv.id) return;
      const rows = Array.isArray(res.data) ? res.data : res.data ? [res.data] : [];
      const visitor = rows.some((r) => r.memberId === 'customer' && r.active !== false);
      const text = visitor ? 'Visitor is typing…' : '';
      if (this.typing.textContent !== text) this.typing.textContent = text;
    } catch (err) {
      if (err.status === 404 || err.status === 405) {
        this.typingSupported = false;  // this server has no typing read yet
        return;
      }
    }
    this.scheduleTyping();
  }

  async refreshSeen(id) {
    const hasReply = [...this.messages.values()].some((m) => senderType(m) === 'agent' && !m.isNote);
    if (!hasReply) return;
    try {
      const res = await api.getConversation(id);
      if (!this.conv || this.conv.id !== id || !res.data.isCustomerRead) return;
      this.setConversation({...this.conv, isCustomerRead: true});
    } catch {
      /* the next event or poll tries again */
    }
  }

  focusComposer(noteMode) {
    if (!this.conv) return;
    this.composer.focus(noteMode);
  }
}
