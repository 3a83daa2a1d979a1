// The left column: folders with their counts, the Tag and Channel filters,
// the search box and the conversation list (keyset pages loaded as the
// bottom of the list scrolls into view, one page in flight at most).
import {api} from './api.js';
import {h, replace, icon, ICONS, debounce, timeEl, highlightFragment, channelName, customerLabel, avatar,
        CHANNEL_NAMES} from './dom.js';
import {showError} from './notify.js';

const PAGE_SIZE = 30;

export const FOLDERS = [
  {id: 'open', label: 'Open', count: 'open'},
  {id: 'mine', label: 'Mine', count: 'mine'},
  {id: 'unassigned', label: 'Unassigned', count: 'unassigned'},
  {id: 'starred', label: 'Starred', count: 'starred'},
  {id: 'resolved', label: 'Resolved', count: null},
];

export class ConversationList {
  // ctx: {state, memberName(id), select(id), onListLoaded()}
  constructor(ctx) {
    this.ctx = ctx;
    this.rows = new Map();  // id -> {conv, li, button}
    this.cursor = null;
    this.hasMore = false;
    this.loading = false;   // a page is in flight
    this.generation = 0;    // bumps when the filters change; late pages are dropped
    this.abort = null;
    this.countsSupported = true;
    this.el = this.render();
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.loadMore();
    }, {root: this.scroller, rootMargin: '0px 0px 40px 0px'});
    this.observer.observe(this.sentinel);
  }

  render() {
    const state = this.ctx.state;
    this.folderButtons = new Map();
    const nav = h('nav', {class: 'folders', 'aria-label': 'Folders'},
                  h('ul', {class: 'folder-list'}, FOLDERS.map((f) => {
                    const count = h('span', {class: 'count'});
                    const b = h('button', {type: 'button', class: 'folder', 'aria-pressed': String(state.folder === f.id),
                                           dataset: {folder: f.id}, onclick: () => this.setFolder(f.id)},
                                h('span', {class: 'folder-label'}, f.label), ' ', count);
                    this.folderButtons.set(f.id, {button: b, count});
                    return h('li', null, b);
                  })));

    this.tagSelect = h('select', {id: 'filter-tag', onchange: () => this.setFilter('tag', this.tagSelect.value)},
                       h('option', {value: ''}, 'All'));
    this.channelSelect = h('select', {id: 'filter-channel',
                                      onchange: () => this.setFilter('channel', this.channelSelect.value)},
                           h('option', {value: ''}, 'All'),
                           Object.keys(CHANNEL_NAMES).map((c) => h('option', {value: c}, channelName(c))));
    const filters = h('div', {class: 'filters'},
                      h('div', {class: 'field-inline'}, h('label', {for: 'filter-tag'}, 'Tag'), this.tagSelect),
                      h('div', {class: 'field-inline'}, h('label', {for: 'filter-channel'}, 'Channel'),
                        this.channelSelect));

    const runSearch = debounce(() => this.setFilter('q', this.search.value.trim()), 250);
    this.search = h('input', {type: 'search', id: 'search', autocomplete: 'off', spellcheck: 'false',
                              placeholder: 'Search messages, names, emails, tags', 'aria-label': 'Search conversations',
                              oninput: runSearch,
                              onkeydown: (e) => {
                                if (e.key === 'Enter') { runSearch.cancel(); this.setFilter('q', this.search.value.trim()); }
                              }});
    const searchBox = h('div', {class: 'search', role: 'search'}, icon(ICONS.search, 'icon search-icon'), this.search);

    this.summary = h('p', {class: 'list-summary', 'aria-live': 'polite'});
    this.ul = h('ul', {class: 'conversations', 'aria-label': 'Conversations',
                       onkeydown: (e) => this.onListKey(e)});
    this.sentinel = h('div', {class: 'sentinel', 'aria-hidden': 'true'});
    this.status = h('p', {class: 'list-status', role: 'status'});
    this.scroller = h('div', {class: 'list-scroll'}, this.ul, this.sentinel, this.status);
    return h('div', {class: 'col col-list'},
             h('div', {class: 'list-head'}, nav, filters, searchBox, this.summary), this.scroller);
  }

  // ---- filters ----

  setFolder(id) {
    if (this.ctx.state.folder === id && !this.ctx.state.q) return this.reload();
    this.ctx.state.folder = id;
    for (const [fid, {button}] of this.folderButtons) button.setAttribute('aria-pressed', String(fid === id));
    this.reload();
  }

  setFilter(key, value) {
    if (this.ctx.state[key] === value) return;
    this.ctx.state[key] = value;
    this.reload();
  }

  setTags(catalog) {
    const current = this.ctx.state.tag;
    const names = catalog.map((t) => t.name).sort((a, b) => a.localeCompare(b));
    if (current && !names.includes(current)) names.unshift(current);
    replace(this.tagSelect, h('option', {value: ''}, 'All'),
            names.map((n) => h('option', {value: n}, n)));
    this.tagSelect.value = current || '';
  }

  query() {
    const s = this.ctx.state;
    const q = {limit: PAGE_SIZE};
    switch (s.folder) {
      case 'open': q.status = 'open'; break;
      case 'mine': q.status = 'open'; q.assigneeId = s.me.id; break;
      case 'unassigned': q.status = 'open'; q.assigneeId = 'unassigned'; break;
      case 'starred': q.isStarred = 'true'; break;
      case 'resolved': q.status = 'resolved'; break;
      default: break;
    }
    if (s.tag) q.tag = s.tag;
    if (s.channel) q.channel = s.channel;
    if (s.q) q.q = s.q;
    return q;
  }

  // Would the conversation be in this list (search aside)?
  matches(conv) {
    const s = this.ctx.state;
    if (!conv) return false;
    switch (s.folder) {
      case 'open': if (conv.status !== 'open') return false; break;
      case 'mine': if (conv.status !== 'open' || conv.memberId !== s.me.id) return false; break;
      case 'unassigned': if (conv.status !== 'open' || conv.memberId) return false; break;
      case 'starred': if (!conv.isStarred) return false; break;
      case 'resolved': if (conv.status !== 'resolved') return false; break;
      default: break;
    }
    if (s.tag && !(conv.tags || []).includes(s.tag)) return false;
    if (s.channel && !(conv.channels || []).includes(s.channel)) return false;
    return true;
  }

  // ---- loading ----

  async reload() {
    this.generation++;
    if (this.abort) this.abort.abort();
    this.abort = null;
    this.loading = false;
    this.cursor = null;
    this.hasMore = false;
    this.rows.clear();
    this.ul.replaceChildren();
    this.updateSummary();
    await this.loadPage(true);
  }

  async loadMore() {
    if (!this.hasMore || this.loading || !this.cursor) return;
    await this.loadPage(false);
  }

  async loadPage(first) {
    if (this.loading) return;
    const gen = this.generation;
    const query = this.query();
    if (!first) query.cursor = this.cursor;
    this.loading = true;
    this.abort = new AbortController();
    this.status.textContent = first ? 'Loading conversations…' : 'Loading more…';
    try {
      const page = await api.listConversations(query, this.abort.signal);
      if (gen !== this.generation) return;
      for (const conv of page.data || []) {
        if (this.rows.has(conv.id)) this.updateRow(conv);
        else this.ul.append(this.makeRow(conv));
      }
      this.cursor = page.paging ? page.paging.nextCursor : null;
      this.hasMore = Boolean(page.paging && page.paging.hasMore && this.cursor);
      this.status.textContent = '';
      this.loading = false;
      this.updateSummary();
      this.syncTabStops();
      if (first && this.ctx.onListLoaded) this.ctx.onListLoaded();
    } catch (err) {
      if (gen !== this.generation || (err && err.name === 'AbortError')) return;
      this.status.textContent = '';
      this.hasMore = false;
      replace(this.status, h('span', {class: 'error-text'}, `Could not load conversations: ${err.message}`), ' ',
              h('button', {type: 'button', class: 'link-button', onclick: () => this.reload()}, 'Try again'));
    } finally {
      if (gen === this.generation) {
        this.loading = false;
        this.abort = null;
        // The sentinel may still be in view (a short page, a tall window):
        // observing again reports its current state once.
        if (this.hasMore) {
          this.observer.unobserve(this.sentinel);
          this.observer.observe(this.sentinel);
        }
      }
    }
  }

  updateSummary() {
    const s = this.ctx.state;
    const n = this.rows.size;
    let text;
    if (this.loading && n === 0) text = '';
    else if (n === 0) text = s.q ? `No conversations match “${s.q}”` : 'No conversations here';
    else {
      const base = s.q ? `${n}${this.hasMore ? '+' : ''} found` : `${n}${this.hasMore ? '+' : ''} shown`;
      text = base;
    }
    if (this.counts && !s.q && s.folder === 'open' && Number.isFinite(this.counts.unread)) {
      text += ` · ${this.counts.unread} unread`;
    }
    this.summary.textContent = text;
  }

  // ---- counts ----

  // At most one counts read in flight and one waiting: a burst of live
  // events or clicks costs two reads, not one each (the counts scan the
  // store's conversations, so they are not free on a big store).
  async refreshCounts() {
    if (!this.countsSupported) return;
    if (this.countsBusy) {
      this.countsAgain = true;
      return;
    }
    this.countsBusy = true;
    try {
      await this.readCounts();
    } finally {
      this.countsBusy = false;
    }
    if (this.countsAgain) {
      this.countsAgain = false;
      this.refreshCounts();
    }
  }

  async readCounts() {
    try {
      const res = await api.inboxCounts();
      this.setCounts(res.data || {});
    } catch (err) {
      if (err.status === 404) {
        this.countsSupported = false;  // not on this server yet
        return;
      }
      if (err.status !== 401) console.warn('inbox counts:', err.message);
    }
  }

  setCounts(counts) {
    this.counts = counts;
    for (const f of FOLDERS) {
      const {count} = this.folderButtons.get(f.id);
      const n = f.count ? counts[f.count] : undefined;
      count.textContent = Number.isFinite(n) ? String(n) : '';
    }
    this.updateSummary();
    if (this.ctx.onCounts) this.ctx.onCounts(counts);
  }

  // ---- rows ----

  makeRow(conv) {
    const button = h('button', {type: 'button', class: 'conv', tabindex: '-1', dataset: {conversationId: conv.id},
                                onclick: () => this.ctx.select(conv.id)});
    const li = h('li', {class: 'conv-item'}, button);
    const row = {conv, li, button};
    this.rows.set(conv.id, row);
    this.fillRow(row);
    return li;
  }

  fillRow(row) {
    const conv = row.conv;
    const name = customerLabel(conv);
    const s = this.ctx.state;
    let preview;
    if (conv.highlight && conv.highlight.text) {
      preview = h('span', {class: 'preview hit'}, highlightFragment(conv.highlight.text, conv.highlight.ranges));
    } else if (conv.lastMessage) {
      const who = {agent: 'Agent: ', bot: 'AI agent: '}[conv.lastMessage.senderType];
      preview = h('span', {class: 'preview'}, who ? h('span', {class: 'preview-who'}, who) : null,
                  conv.lastMessage.text || 'Attachment');
    } else {
      preview = h('span', {class: 'preview empty'}, 'No messages yet');
    }
    const channel = (conv.channels && conv.channels[0]) || '';
    const assignee = conv.memberId ? this.ctx.memberName(conv.memberId) : 'Unassigned';
    const unread = !conv.isRead;
    row.button.classList.toggle('unread', unread);
    row.button.classList.toggle('selected', s.selectedId === conv.id);
    if (s.selectedId === conv.id) row.button.setAttribute('aria-current', 'true');
    else row.button.removeAttribute('aria-current');
    replace(row.button,
            avatar(name, conv.customerUuid || conv.id),
            h('span', {class: 'conv-body'},
              h('span', {class: 'conv-top'},
                h('span', {class: 'conv-name'}, name),
                conv.isStarred ? h('span', {class: 'star-mark', title: 'Starred'}, icon(ICONS.star, 'icon icon-star'),
                                   h('span', {class: 'visually-hidden'}, 'Starred')) : null,
                timeEl(conv.lastActive || conv.updatedAt || conv.createdAt)),
              preview,
              h('span', {class: 'conv-meta'},
                channel ? h('span', {class: 'chip chip-channel'}, channelName(channel)) : null,
                h('span', {class: conv.memberId ? 'assignee' : 'assignee none'}, assignee),
                conv.status === 'resolved' && s.folder !== 'resolved'
                  ? h('span', {class: 'chip chip-resolved'}, 'Resolved') : null,
                unread ? h('span', {class: 'unread-dot'}, 'Unread') : null)));
  }

  updateRow(conv) {
    const row = this.rows.get(conv.id);
    if (!row) return false;
    // Keep a search hit's highlight when the update is the plain form.
    row.conv = conv.highlight || !row.conv.highlight ? conv : {...conv, highlight: row.conv.highlight};
    this.fillRow(row);
    return true;
  }

  removeRow(id) {
    const row = this.rows.get(id);
    if (!row) return;
    const hadFocus = row.li.contains(document.activeElement);
    const next = row.li.nextElementSibling || row.li.previousElementSibling;
    row.li.remove();
    this.rows.delete(id);
    this.updateSummary();
    this.syncTabStops();
    if (hadFocus && next) next.querySelector('button').focus();
  }

  // A conversation changed here (an action in the thread): update its row,
  // drop it when it left this folder, counts follow.
  conversationChanged(conv) {
    if (this.rows.has(conv.id)) {
      if (!this.ctx.state.q && !this.matches(conv)) this.removeRow(conv.id);
      else this.updateRow(conv);
    }
    this.refreshCounts();
  }

  markSelected(id) {
    for (const [rid, row] of this.rows) {
      const sel = rid === id;
      row.button.classList.toggle('selected', sel);
      if (sel) row.button.setAttribute('aria-current', 'true');
      else row.button.removeAttribute('aria-current');
    }
    this.syncTabStops();
    const row = this.rows.get(id);
    if (row) row.li.scrollIntoView({block: 'nearest'});
  }

  // Live: the first page again, merged in place; the affected conversations
  // that were further down are read one by one.
  // One refresh at a time: the ids of batches that arrive meanwhile (or while
  // a page loads) are merged and refreshed together once it is done.
  async refreshLive(affectedIds) {
    this.pendingIds = this.pendingIds || new Set();
    for (const id of affectedIds) this.pendingIds.add(id);
    if (this.refreshing) return;
    if (this.loading) {
      clearTimeout(this.refreshTimer);
      this.refreshTimer = setTimeout(() => this.refreshLive(new Set()), 300);
      return;
    }
    const ids = this.pendingIds;
    this.pendingIds = new Set();
    this.refreshing = true;
    try {
      await this.refreshTop(ids);
    } finally {
      this.refreshing = false;
    }
    if (this.pendingIds.size) this.refreshLive(new Set());
  }

  async refreshTop(affectedIds) {
    const gen = this.generation;
    let page;
    try {
      page = await api.listConversations(this.query());
    } catch (err) {
      if (err.status !== 401) console.warn('live refresh:', err.message);
      return;
    }
    if (gen !== this.generation) return;
    const top = page.data || [];
    const topIds = new Set(top.map((c) => c.id));
    // The first page, in the server's order, at the top.
    let anchor = null;
    for (const conv of top) {
      let row = this.rows.get(conv.id);
      if (row) this.updateRow(conv);
      else {
        this.makeRow(conv);
        row = this.rows.get(conv.id);
      }
      if (anchor) anchor.after(row.li);
      else this.ul.prepend(row.li);
      anchor = row.li;
    }
    // Rows not on the first page: when that page was the whole list, or when
    // they are newer than its last row, they no longer belong here (resolved,
    // reassigned, untagged...); the affected ones further down are re-read.
    // The server orders by lastActive, a missing one first-of-time (0).
    const when = (c) => (c && c.lastActive ? Date.parse(c.lastActive) : 0);
    const last = top[top.length - 1];
    const lastTime = last ? when(last) : Infinity;
    const wholeList = !(page.paging && page.paging.hasMore);
    const searching = Boolean(this.ctx.state.q);
    // Rows further down are re-read one by one: a few, never hundreds (a bulk
    // change through the API); the rest show their new state when reopened.
    let rereads = 5;
    for (const [id, row] of [...this.rows]) {
      if (topIds.has(id)) continue;
      const t = when(row.conv);
      if (wholeList || (!searching && t > lastTime)) {
        this.removeRow(id);
      } else if (affectedIds.has(id) && rereads-- > 0) {
        try {
          const res = await api.getConversation(id);
          if (gen !== this.generation) return;
          if (!searching && !this.matches(res.data)) this.removeRow(id);
          else this.updateRow(res.data);
        } catch (err) {
          if (err.status === 404) this.removeRow(id);
        }
      }
    }
    // Nothing loaded beyond the first page yet: its cursor is where scrolling
    // goes on. (At the end of a longer list the cursor is also empty, and
    // must stay so, or the list would page again from row 30.)
    if (!this.cursor && page.paging && this.rows.size <= top.length) {
      this.cursor = page.paging.nextCursor;
      this.hasMore = Boolean(page.paging.hasMore && this.cursor);
    }
    this.updateSummary();
    this.syncTabStops();
  }

  // ---- keyboard ----

  ids() {
    return [...this.ul.querySelectorAll('button[data-conversation-id]')].map((b) => b.dataset.conversationId);
  }

  // j / k: the next or previous conversation, opened.
  step(delta) {
    const ids = this.ids();
    if (!ids.length) return;
    const cur = ids.indexOf(this.ctx.state.selectedId);
    let next = cur < 0 ? (delta > 0 ? 0 : ids.length - 1) : cur + delta;
    next = Math.max(0, Math.min(ids.length - 1, next));
    if (ids[next] !== this.ctx.state.selectedId) this.ctx.select(ids[next]);
    if (next === ids.length - 1) this.loadMore();
  }

  // Roving tab stop: one conversation button is in the tab order, the arrow
  // keys move between them.
  syncTabStops() {
    const buttons = [...this.ul.querySelectorAll('button.conv')];
    const selected = buttons.find((b) => b.dataset.conversationId === this.ctx.state.selectedId);
    const focused = buttons.find((b) => b === document.activeElement);
    const stop = focused || selected || buttons[0];
    for (const b of buttons) b.tabIndex = b === stop ? 0 : -1;
  }

  onListKey(e) {
    const buttons = [...this.ul.querySelectorAll('button.conv')];
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    let target = null;
    if (e.key === 'ArrowDown') target = buttons[Math.min(buttons.length - 1, i + 1)];
    else if (e.key === 'ArrowUp') target = buttons[Math.max(0, i - 1)];
    else if (e.key === 'Home') target = buttons[0];
    else if (e.key === 'End') target = buttons[buttons.length - 1];
    if (!target) return;
    e.preventDefault();
    for (const b of buttons) b.tabIndex = b === target ? 0 : -1;
    target.focus();
    if (target === buttons[buttons.length - 1]) this.loadMore();
  }

  focusSearch() {
    this.search.focus();
    this.search.select();
  }

  destroy() {
    this.observer.disconnect();
    if (this.abort) this.abort.abort();
    this.generation++;
  }
}
