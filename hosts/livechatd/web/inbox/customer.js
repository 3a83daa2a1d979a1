// The right column: who the customer is (profile), the pages they browsed,
// their other conversations, the conversation's summary, and for an admin
// the Delete contact action behind a confirmation dialog.
import {api} from './api.js';
import {h, replace, icon, ICONS, timeEl, channelName, customerLabel, avatar, fullTime} from './dom.js';
import {showError, showInfo} from './notify.js';

function safeHref(u) {
  try {
    const url = new URL(u);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function money(n) {
  if (typeof n !== 'number') return null;
  return n.toLocaleString(undefined, {minimumFractionDigits: 2, maximumFractionDigits: 2});
}

export class CustomerPanel {
  // ctx: {state, select(id), onContactDeleted(conversationId)}
  constructor(ctx) {
    this.ctx = ctx;
    this.conv = null;
    this.customer = null;
    this.seq = 0;
    this.el = this.render();
    this.clear();
  }

  render() {
    this.profile = h('div', {class: 'profile'});
    this.pages = h('div', {class: 'panel-body'});
    this.others = h('div', {class: 'panel-body'});
    this.summary = h('div', {class: 'panel-body'});
    this.adminSlot = h('div', {class: 'panel-admin'});
    this.content = h('div', {class: 'customer-content'},
                     this.profile,
                     h('section', {class: 'panel-section', 'aria-labelledby': 'h-browsed'},
                       h('h3', {id: 'h-browsed'}, 'Browsed pages'), this.pages),
                     h('section', {class: 'panel-section', 'aria-labelledby': 'h-others'},
                       h('h3', {id: 'h-others'}, 'Other conversations'), this.others),
                     h('section', {class: 'panel-section', 'aria-labelledby': 'h-summary'},
                       h('h3', {id: 'h-summary'}, 'Summary'), this.summary),
                     this.adminSlot);
    this.empty = h('p', {class: 'muted panel-empty'}, 'Customer details appear here.');
    this.dialog = this.renderDialog();
    return h('aside', {class: 'col col-customer', 'aria-label': 'Customer'},
             h('h2', {class: 'panel-title'}, 'Customer'), this.empty, this.content, this.dialog);
  }

  renderDialog() {
    this.dialogText = h('p', {id: 'delete-desc'});
    const cancel = h('button', {type: 'button', class: 'secondary', value: 'cancel',
                                onclick: () => this.dialog.close('cancel')}, 'Cancel');
    this.deleteButton = h('button', {type: 'button', class: 'danger', onclick: () => this.confirmDelete()}, 'Delete');
    const dialog = h('dialog', {class: 'dialog', 'aria-labelledby': 'delete-title', 'aria-describedby': 'delete-desc'},
                     h('h2', {id: 'delete-title'}, 'Delete this contact?'),
                     this.dialogText,
                     h('div', {class: 'dialog-actions'}, cancel, this.deleteButton));
    dialog.addEventListener('close', () => {
      if (this.deleteTrigger && this.deleteTrigger.isConnected) this.deleteTrigger.focus();
    });
    return dialog;
  }

  clear() {
    this.seq++;
    this.conv = null;
    this.customer = null;
    this.empty.hidden = false;
    this.content.hidden = true;
  }

  // A conversation was opened (or re-read): the panel follows it.
  async show(conv) {
    if (!conv) return this.clear();
    const same = this.conv && this.conv.id === conv.id;
    this.conv = conv;
    if (same) {
      // Only the header fields may have changed: refresh the profile.
      this.renderProfile();
      return;
    }
    const seq = ++this.seq;
    this.customer = null;
    this.empty.hidden = true;
    this.content.hidden = false;
    this.renderProfile();
    replace(this.pages, h('p', {class: 'muted'}, 'Loading…'));
    replace(this.others, h('p', {class: 'muted'}, 'Loading…'));
    replace(this.summary, h('p', {class: 'muted'}, 'Loading…'));
    const id = conv.id;
    const tasks = [
      this.loadCustomer(seq, conv),
      this.loadPages(seq, id),
      this.loadOthers(seq, id),
      this.loadSummary(seq, id),
    ];
    await Promise.allSettled(tasks);
  }

  // ---- profile ----

  async loadCustomer(seq, conv) {
    if (!conv.customerUuid) return;
    try {
      const res = await api.customer(conv.customerUuid);
      if (seq !== this.seq) return;
      this.customer = res.data;
      this.renderProfile();
    } catch (err) {
      if (seq !== this.seq) return;
      if (err.status !== 404) showError(err, 'The customer could not be loaded');
    }
  }

  renderProfile() {
    const conv = this.conv;
    const c = this.customer;
    const name = c && c.name ? c.name
      : c && (c.firstName || c.lastName) ? [c.firstName, c.lastName].filter(Boolean).join(' ')
      : customerLabel(conv);
    const email = (c && c.email) || conv.customerEmail;
    const rows = [];
    const row = (label, value) => {
      if (value === null || value === undefined || value === '') return;
      rows.push(h('div', {class: 'kv'}, h('dt', null, label), h('dd', null, value)));
    };
    // A link only for a plain address: a visitor-typed "a@b?cc=x&body=y"
    // would otherwise pre-fill a message to someone else.
    const plainEmail = email && /^[^\s@?&#%]+@[^\s@?&#%]+$/.test(email);
    row('Email', email ? (plainEmail ? h('a', {href: `mailto:${email}`}, email) : email) : null);
    if (c) {
      row('Phone', c.phone);
      row('Location', [c.city, c.country].filter(Boolean).join(', ') || c.ipLocation);
      row('Type', c.type ? c.type[0].toUpperCase() + c.type.slice(1) : null);
      row('Orders', c.ordersCount !== null && c.ordersCount !== undefined ? String(c.ordersCount) : null);
      row('Total spent', money(c.totalSpent));
      row('Browser', [c.browser, c.browserVersion].filter(Boolean).join(' ') || null);
      row('System', [c.os, c.deviceType].filter(Boolean).join(' · ') || null);
      row('Customer since', c.createdAt ? fullTime(c.createdAt) : null);
      for (const [k, v] of Object.entries(c.customAttributes || {})) row(k, v);
      if (c.note) row('Note', c.note);
    } else {
      row('Type', conv.customerType ? conv.customerType[0].toUpperCase() + conv.customerType.slice(1) : null);
    }
    row('Channels', (conv.channels || []).map(channelName).join(', ') || null);

    const tags = c && c.tags && c.tags.length
      ? h('ul', {class: 'tag-chips static'},
          c.tags.map((t) => h('li', {class: 'tag-chip'}, h('span', {class: 'tag-name'}, t))))
      : null;
    const redacted = (c && c.isRedacted) || conv.isRedacted;
    replace(this.profile,
            h('div', {class: 'profile-head'}, avatar(name, conv.customerUuid || conv.id, 'avatar-lg'),
              h('div', null,
                h('p', {class: 'profile-name'}, name),
                h('p', {class: 'muted small'}, redacted ? 'Contact redacted'
                  : conv.customerUuid ? (c && c.lastChatAt ? ['Last chat ', timeEl(c.lastChatAt)] : 'Contact')
                    : 'Anonymous visitor'))),
            rows.length ? h('dl', {class: 'kv-list'}, rows) : null,
            tags);

    replace(this.adminSlot);
    if (this.ctx.state.me.role === 'admin' && conv.customerUuid) {
      this.deleteTrigger = h('button', {type: 'button', class: 'danger-outline', onclick: () => this.askDelete()},
                             'Delete contact');
      this.adminSlot.append(h('p', {class: 'muted small'}, 'Removes the contact record. Conversations stay, without the name and email.'),
                            this.deleteTrigger);
    }
  }

  // ---- browsed pages ----

  async loadPages(seq, id) {
    try {
      const res = await api.browsedPages(id);
      if (seq !== this.seq) return;
      const pages = res.data || [];
      if (!pages.length) return replace(this.pages, h('p', {class: 'muted'}, 'No pages recorded'));
      replace(this.pages, h('ul', {class: 'page-list'}, pages.map((p) => {
        const href = safeHref(p.url);
        const title = p.title || p.url;
        return h('li', null,
                 href ? h('a', {href, target: '_blank', rel: 'noopener noreferrer', title: p.url}, title)
                      : h('span', {title: p.url}, title),
                 timeEl(p.viewedAt, 'reltime small'));
      })));
    } catch (err) {
      if (seq !== this.seq) return;
      replace(this.pages, h('p', {class: 'muted'}, err.status === 404 ? 'No pages recorded' : `Not available: ${err.message}`));
    }
  }

  // ---- other conversations ----

  async loadOthers(seq, id) {
    try {
      const res = await api.related(id, {limit: 6});
      if (seq !== this.seq) return;
      const list = (res.data || []).filter((c) => c.id !== id);
      if (!list.length) return replace(this.others, h('p', {class: 'muted'}, 'None'));
      replace(this.others, h('ul', {class: 'other-list'}, list.map((c) =>
        h('li', null,
          h('button', {type: 'button', class: 'other', onclick: () => this.ctx.select(c.id)},
            h('span', {class: 'other-text'}, c.lastMessage ? c.lastMessage.text : 'No messages'),
            h('span', {class: 'other-meta'},
              h('span', {class: `status-badge ${c.status}`}, c.status === 'resolved' ? 'Resolved' : 'Open'),
              timeEl(c.lastActive || c.createdAt, 'reltime small')))))));
    } catch (err) {
      if (seq !== this.seq) return;
      replace(this.others, h('p', {class: 'muted'}, err.status === 404 ? 'None' : `Not available: ${err.message}`));
    }
  }

  // ---- summary ----

  async loadSummary(seq, id) {
    try {
      const res = await api.summary(id);
      if (seq !== this.seq) return;
      const s = res.data;
      replace(this.summary, h('p', {class: 'summary-text'}, s.text),
              h('p', {class: 'muted small'}, 'Generated ', timeEl(s.generatedAt), s.summarizer ? ` · ${s.summarizer}` : ''));
    } catch (err) {
      if (seq !== this.seq) return;
      replace(this.summary, h('p', {class: 'muted'}, err.status === 404 ? 'No summary yet' : `Not available: ${err.message}`));
    }
  }

  // ---- delete contact ----

  askDelete() {
    if (!this.conv || !this.conv.customerUuid) return;
    const name = customerLabel(this.conv);
    this.dialogText.textContent =
      `${name}'s contact record will be removed. Their conversations stay, without the name and email. This cannot be undone.`;
    this.deleteButton.disabled = false;
    this.dialog.showModal();
  }

  async confirmDelete() {
    const conv = this.conv;
    if (!conv || !conv.customerUuid) return this.dialog.close();
    this.deleteButton.disabled = true;
    try {
      await api.deleteCustomer(conv.customerUuid);
      this.dialog.close('deleted');
      showInfo('Contact deleted');
      this.ctx.onContactDeleted(conv.id);
    } catch (err) {
      this.dialog.close('error');
      showError(err, 'The contact was not deleted');
    } finally {
      this.deleteButton.disabled = false;
    }
  }
}
