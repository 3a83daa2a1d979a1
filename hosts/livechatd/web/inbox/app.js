// The agent inbox: entry point. Checks the session, shows the sign-in screen
// or the inbox (conversation list, thread, customer panel), and wires the
// parts together: selection, live updates, keyboard shortcuts.
import {api, setUnauthorizedHandler} from './api.js';
import {h, icon, ICONS, refreshRelativeTimes} from './dom.js';
import {mountNotifications, unmountNotifications, showError} from './notify.js';
import {renderSignIn} from './signin.js';
import {ConversationList} from './list.js';
import {ThreadView} from './thread.js';
import {CustomerPanel} from './customer.js';
import {LiveFeed} from './live.js';
import {installShortcuts, renderHelpDialog} from './shortcuts.js';

const root = document.getElementById('app');
const MEMBER_KEY = 'livechat.inbox.member';

let inbox = null;  // the running inbox, or null on the sign-in screen

function showSignIn(notice) {
  document.title = 'Sign in · livechat inbox';
  renderSignIn(root, (member, shopId) => {
    try {
      sessionStorage.setItem(MEMBER_KEY, JSON.stringify({member, shopId}));
    } catch { /* storage may be off; the session endpoint is the source anyway */ }
    startInbox(member, shopId);
  }, notice);
}

function signedOut(notice) {
  if (inbox) inbox.stop();
  inbox = null;
  showSignIn(notice);
}

// Until GET /api/auth/session exists on this server: the member the last
// sign-in in this tab returned, if the cookie still works.
async function fallbackSession() {
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(MEMBER_KEY) || 'null');
  } catch {
    saved = null;
  }
  if (!saved || !saved.member) return null;
  try {
    await api.members();
    return saved;
  } catch {
    return null;
  }
}

async function boot() {
  setUnauthorizedHandler(() => {
    if (inbox) signedOut('Your session has ended. Sign in again.');
  });
  let session = null;
  try {
    const res = await api.session();
    session = res.data;
  } catch (err) {
    if (err.status === 404 || err.status === 405) session = await fallbackSession();
    else if (err.status !== 401) {
      showSignIn(`The server could not be reached (${err.message}).`);
      return;
    }
  }
  if (session && session.member) startInbox(session.member, session.shopId || null);
  else showSignIn();
}

function startInbox(me, shopId) {
  const state = {me, shopId, folder: 'open', tag: '', channel: '', q: '', selectedId: null};
  let members = [];
  const membersById = new Map();
  const memberName = (id) => {
    if (!id) return 'Unassigned';
    if (id === me.id) return me.fullName || 'You';
    const m = membersById.get(id);
    return m ? m.fullName : 'Team member';
  };

  const select = (id) => {
    if (!id) return;
    state.selectedId = id;
    list.markSelected(id);
    thread.open(id);
    history.replaceState(null, '', `#/c/${encodeURIComponent(id)}`);
  };

  const refreshCatalog = async () => {
    try {
      const res = await api.tagCatalog();
      list.setTags(res.data || []);
      thread.details.setCatalog(res.data || []);
    } catch (err) {
      if (err.status !== 401) console.warn('tag catalog:', err.message);
    }
  };

  const list = new ConversationList({
    state,
    memberName,
    select,
    onCounts: (counts) => {
      const n = counts && Number.isFinite(counts.unread) ? counts.unread : 0;
      document.title = n ? `(${n}) Inbox · livechat` : 'Inbox · livechat';
    },
    onListLoaded: () => {
      if (!state.selectedId) return;
      list.markSelected(state.selectedId);
    },
  });
  const customer = new CustomerPanel({
    state,
    select,
    onContactDeleted: () => {
      thread.reloadConversation();
      list.refreshLive(new Set(state.selectedId ? [state.selectedId] : []));
    },
  });
  const thread = new ThreadView({
    state,
    members: () => members,
    memberName,
    onOpened: (conv) => {
      if (conv) {
        list.updateRow(conv);
        customer.show(conv);
      } else {
        customer.clear();
      }
    },
    onConversation: (conv) => {
      list.conversationChanged(conv);
      if (state.selectedId === conv.id) customer.show(conv);
    },
    onCatalogChanged: refreshCatalog,
  });

  // ---- the page ----
  const liveDot = h('span', {class: 'live-status', title: 'Connecting to live updates'},
                    h('span', {class: 'dot', 'aria-hidden': 'true'}), h('span', {class: 'live-text'}, 'Connecting…'));
  const help = renderHelpDialog();
  const helpButton = h('button', {type: 'button', class: 'icon-button header-button', title: 'Keyboard shortcuts (?)',
                                  'aria-label': 'Keyboard shortcuts', onclick: () => help.showModal()},
                       icon(ICONS.keyboard));
  const signOut = h('button', {type: 'button', class: 'secondary small', onclick: async () => {
    try {
      await api.logout();
    } catch (err) {
      showError(err, 'Sign out failed');
      return;
    }
    try { sessionStorage.removeItem(MEMBER_KEY); } catch { /* ignore */ }
    signedOut('You are signed out.');
  }}, 'Sign out');
  const header = h('header', {class: 'topbar'},
                   h('div', {class: 'brand'}, h('span', {class: 'brand-mark'}, icon(ICONS.inbox)),
                     h('h1', {class: 'brand-name'}, 'livechat ', h('span', {class: 'brand-sub'}, 'Inbox'))),
                   h('div', {class: 'topbar-right'}, liveDot, helpButton,
                     h('span', {class: 'me'}, h('span', {class: 'me-name'}, me.fullName || me.email),
                       me.role === 'admin' ? h('span', {class: 'chip chip-role'}, 'Admin') : null),
                     signOut));
  const main = h('main', {class: 'inbox'}, list.el, thread.el, customer.el);
  root.replaceChildren(h('div', {class: 'app'}, header, main), help);
  mountNotifications(document.body);
  document.title = 'Inbox · livechat';

  // ---- live ----
  const live = new LiveFeed({
    onStatus: (s) => {
      liveDot.dataset.state = s;
      const text = {live: 'Live', connecting: 'Connecting…', offline: 'Offline, retrying'}[s] || s;
      liveDot.lastChild.textContent = text;
      liveDot.title = s === 'live' ? 'Receiving live updates' : text;
    },
    onReset: () => {
      list.reload();
      list.refreshCounts();
      if (state.selectedId) thread.refresh({messages: true});
    },
    onBatch: (batch) => {
      list.refreshLive(batch.ids);
      list.refreshCounts();
      const id = state.selectedId;
      if (!id) return;
      if (batch.removed.has(id)) {
        thread.removed();
      } else if (batch.ids.has(id)) {
        thread.refresh({messages: batch.messages.has(id)});
      }
    },
  });

  // ---- keyboard ----
  const removeShortcuts = installShortcuts({
    next: () => list.step(1),
    prev: () => list.step(-1),
    reply: () => thread.focusComposer(false),
    note: () => thread.focusComposer(true),
    resolve: () => thread.toggleResolved(),
    assignToMe: () => thread.assignToMe(),
    star: () => thread.toggleStar(),
    search: () => list.focusSearch(),
    help: () => help.showModal(),
    leave: () => {
      const row = list.ul.querySelector('button.conv[tabindex="0"]');
      if (row) row.focus();
    },
  });

  const ticker = setInterval(() => refreshRelativeTimes(document), 60000);

  // ---- first load ----
  const loadMembers = api.members().then((res) => {
    members = (res.data || []).slice().sort((a, b) => (a.fullName || '').localeCompare(b.fullName || ''));
    membersById.clear();
    for (const m of members) membersById.set(m.id, m);
    thread.renderAssignee();
  }).catch((err) => showError(err, 'Team members could not be loaded'));
  // The feed's position first, then the screen: nothing that happens in
  // between can be missed (live.js).
  live.start().then(() => {
    list.reload();
    list.refreshCounts();
  });
  refreshCatalog();
  const m = /^#\/c\/(.+)$/.exec(location.hash);
  if (m) loadMembers.then(() => select(decodeURIComponent(m[1])));

  inbox = {
    stop() {
      live.stop();
      list.destroy();
      thread.destroy();
      removeShortcuts();
      clearInterval(ticker);
      unmountNotifications();
      history.replaceState(null, '', location.pathname);
    },
  };
}

boot();
