// The agent inbox (/inbox/, issue #19) in Debian's headless Chromium, driven
// by playwright-core, against a `livechatd --demo` this file starts (temp
// database, free loopback ports) and stops:
//
//   1. serving and security: /inbox redirects; the page and every file of
//      hosts/livechatd/web/inbox carry the inbox's CSP, nosniff,
//      no-referrer, no-cache; the page asks nothing of another origin, logs
//      no console error and violates no CSP directive; writes to /api need
//      X-Livechat-Csrf: 1 (403 FORBIDDEN and nothing changed without it);
//      the session cookie is HttpOnly and SameSite=Strict
//   2. sign in / out: one message for a wrong password and an unknown email;
//      sign out ends the session; failures slowed per account and per address
//      at the exact boundaries of Limits (a livechatd of its own)
//   3. the widget (/demo/) and the inbox side by side in two browser contexts:
//      live list, reply, note never reaching the visitor, resolve, typing,
//      star, assign, tags, checked through the REST API; the change feed
//      still live after reloads (livechatd's defaults, a server of its own);
//      folders, Tag and Channel filters and search against the API's answers;
//      an attached image; the AI handoff; Delete contact confirmed; a read
//      crossing a write on the wire never shows the old state
//   4. keyboard: j k r n e a s ?, Enter and Shift+Enter, the 5,000-character limit
//   5. axe-core: no serious or critical violation on every screen
//   6. screenshots of the list and the thread (INBOX_ARTIFACTS; docs/inbox.png
//      with INBOX_DOCS_SCREENSHOT)
//
// The 100,000-conversation store is big_store.test.mjs.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';

import AxeBuilder from '@axe-core/playwright';

import {
  artifactPath, composer, DEMO_EMAIL, DEMO_PASSWORD, eventually, INBOX_CSP, keyClient, launchBrowser, list, login,
  messagesLog, newInboxContext, root, rowButtons, rowFor, rowIds, sessionClient, signIn, startServer, thread,
} from './helpers.mjs';

const inboxDir = join(root, 'hosts', 'livechatd', 'web', 'inbox');
// Generous for the run, but every wait is bounded.
const T = { timeout: 90000 };

let server, browser, key, sess, me;

before(async () => {
  // The API's per-address window (300 a minute) is for the public API; the
  // tests drive several browsers from one loopback address, faster than people.
  // Ada signs in from several browser contexts one after the other: each
  // test's live feed must not wait for the last one's to be noticed closed
  // (a member holds 4 at once by default; the default is tested on its own below).
  server = await startServer({ args: ['--rate-limit-ip', '1000000', '--rate-limit-key', '1000000',
                                      '--event-streams-per-key', '100'] });
  key = keyClient(server.base, server.apiKey);
  const signedIn = await login(server.base, DEMO_EMAIL, DEMO_PASSWORD);
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
  sess = sessionClient(server.base, signedIn.cookie);
  me = signedIn.body.data;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

async function conversationByName(name) {
  const r = await sess('GET', '/api/chat/conversations?limit=100');
  assert.equal(r.status, 200);
  const c = r.body.data.find((x) => x.customerName === name);
  assert.ok(c, `no conversation of ${name}`);
  return c;
}
const getConv = async (id) => {
  const r = await sess('GET', `/api/chat/conversations/${id}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
};
const getMessages = async (id) => {
  const r = await sess('GET', `/api/chat/conversations/${id}/messages?limit=100`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
};

function filesUnder(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(relative(inboxDir, p));
  }
  return out.sort();
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
                '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };

function assertInboxHeaders(res, what) {
  assert.equal(res.headers.get('content-security-policy'), INBOX_CSP, `${what}: Content-Security-Policy`);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options`);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`);
  assert.equal(res.headers.get('cache-control'), 'no-cache', `${what}: Cache-Control`);
}

describe('1. serving and security', () => {
  test('GET /inbox redirects to /inbox/, which is index.html', T, async () => {
    const r = await fetch(`${server.base}/inbox`, { redirect: 'manual' });
    assert.ok([301, 302, 303, 307, 308].includes(r.status), `GET /inbox answered ${r.status}`);
    assert.ok(['/inbox/', `${server.base}/inbox/`].includes(r.headers.get('location')),
              `Location: ${r.headers.get('location')}`);
    const index = await fetch(`${server.base}/inbox/`);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type'), /^text\/html\b/);
    assertInboxHeaders(index, '/inbox/');
    assert.equal(await index.text(), readFileSync(join(inboxDir, 'index.html'), 'utf8'));
  });

  test('every file of web/inbox is served with its type, the CSP, nosniff, no-referrer and no-cache', T, async () => {
    const files = filesUnder(inboxDir);
    assert.ok(files.includes('index.html'), 'web/inbox has no index.html');
    for (const rel of files) {
      const r = await fetch(`${server.base}/inbox/${rel}`);
      assert.equal(r.status, 200, `/inbox/${rel}`);
      const ext = rel.slice(rel.lastIndexOf('.'));
      if (TYPES[ext]) assert.ok(r.headers.get('content-type').startsWith(TYPES[ext]), `/inbox/${rel}: ${r.headers.get('content-type')}`);
      assertInboxHeaders(r, `/inbox/${rel}`);
      const served = Buffer.from(await r.arrayBuffer());
      assert.ok(served.equals(readFileSync(join(inboxDir, rel))),
                `/inbox/${rel} differs from the source file (rebuild livechatd after changing web/inbox)`);
    }
    const missing = await fetch(`${server.base}/inbox/no-such-file.js`);
    assert.equal(missing.status, 404);
  });

  test('a file is revalidated by its ETag: 304 with no body for the same one (weak or in a list), 200 for another', T, async () => {
    const first = await fetch(`${server.base}/inbox/app.js`);
    const etag = first.headers.get('etag');
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    for (const ask of [etag, `W/${etag}`, `"0000000000000000", ${etag}`]) {
      const again = await fetch(`${server.base}/inbox/app.js`, { headers: { 'If-None-Match': ask } });
      assert.equal(again.status, 304, ask);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
      assertInboxHeaders(again, `/inbox/app.js (304 for ${ask})`);
    }
    const other = await fetch(`${server.base}/inbox/app.js`, { headers: { 'If-None-Match': '"0000000000000000"' } });
    assert.equal(other.status, 200);
    assert.equal(await other.text(), readFileSync(join(inboxDir, 'app.js'), 'utf8'));
  });

  test('the session cookie is HttpOnly, SameSite=Strict, Path=/api', T, async () => {
    const r = await login(server.base, DEMO_EMAIL, DEMO_PASSWORD);
    assert.equal(r.status, 200);
    assert.equal(r.body.data.email, DEMO_EMAIL);
    const attrs = r.setCookie.split(';').map((s) => s.trim());
    assert.match(attrs[0], /^lc_session=[^;]+$/);
    assert.ok(attrs.includes('HttpOnly'), r.setCookie);
    assert.ok(attrs.includes('SameSite=Strict'), r.setCookie);
    assert.ok(attrs.includes('Path=/api'), r.setCookie);
    const s = await sessionClient(server.base, r.cookie)('GET', '/api/auth/session');
    assert.equal(s.status, 200);
    assert.equal(s.body.data.member.email, DEMO_EMAIL);
    assert.equal(s.body.data.member.id, me.id);
    assert.equal(s.body.data.shopId, server.shopId);
  });

  test('a write to /api without X-Livechat-Csrf: 1 is 403 FORBIDDEN and changes nothing; with it, it works', T, async () => {
    const sofia = await conversationByName('Sofia Rossi');
    assert.equal(sofia.isStarred, false);
    assert.equal(sofia.status, 'open');
    assert.deepEqual(sofia.tags, ['sizing']);
    const before = await getMessages(sofia.id);
    const refused = [
      ['POST', `/api/chat/conversations/${sofia.id}/star`, { starred: true }],
      ['POST', `/api/chat/conversations/${sofia.id}/state`, { status: 'resolved' }],
      ['POST', `/api/chat/conversations/${sofia.id}/messages`, { text: 'forged reply' }],
      ['POST', `/api/chat/conversations/${sofia.id}/assign`, { memberId: null }],
      ['DELETE', `/api/chat/conversations/${sofia.id}/tags/sizing`, undefined],
      ['POST', '/api/auth/logout', undefined],
    ];
    for (const [method, path, body] of refused) {
      const r = await sess(method, path, body, { csrf: false });
      assert.equal(r.status, 403, `${method} ${path} without the header: ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'FORBIDDEN', `${method} ${path}`);
    }
    const after = await getConv(sofia.id);
    assert.equal(after.isStarred, false);
    assert.equal(after.status, 'open');
    assert.equal(after.memberId, sofia.memberId);
    assert.deepEqual(after.tags, ['sizing']);
    assert.deepEqual((await getMessages(sofia.id)).map((m) => m.id), before.map((m) => m.id));
    // The refused logout left the session alive.
    assert.equal((await sess('GET', '/api/auth/session')).status, 200);
    // Reads need no header; the same write with it goes through.
    const starred = await sess('POST', `/api/chat/conversations/${sofia.id}/star`, { starred: true });
    assert.equal(starred.status, 200, JSON.stringify(starred.body));
    assert.equal(starred.body.data.isStarred, true);
    assert.equal((await getConv(sofia.id)).isStarred, true);
    const unstarred = await sess('POST', `/api/chat/conversations/${sofia.id}/star`, { starred: false });
    assert.equal(unstarred.status, 200);
    assert.equal((await getConv(sofia.id)).isStarred, false);
  });

  test('the page: same-origin requests only, no console error, no exception, no CSP violation', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    try {
      await signIn(page, server.base);
      const cookies = await context.cookies(server.base + '/api/');
      const c = cookies.find((x) => x.name === 'lc_session');
      assert.ok(c, 'no lc_session cookie in the browser');
      assert.equal(c.httpOnly, true);
      assert.equal(c.sameSite, 'Strict');
      assert.equal(c.path, '/api');
      assert.equal(await page.evaluate(() => document.cookie.includes('lc_session')), false);
      // Walk the screens: a conversation, the customer panel, the help dialog.
      const liam = await conversationByName('Liam Chen');
      await rowFor(page, liam.id).click();
      await thread(page).getByRole('heading', { level: 2, name: 'Liam Chen' }).waitFor();
      await messagesLog(page).getByText('Sorry to hear that! Could you send a photo of the damage?').waitFor();
      await page.getByRole('complementary', { name: 'Customer', exact: true }).getByText('liam@example.com').first().waitFor();
      await page.keyboard.press('Escape');
      await page.keyboard.press('?');
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      assert.deepEqual(await page.evaluate(() => window.__cspViolations || []), []);
      assert.ok(watch.requests.some((u) => u.includes('/api/chat/conversations')), 'the page listed no conversations');
      assert.ok(watch.requests.some((u) => u.includes('/api/chat/events')), 'the page did not open the change feed');
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });
});

describe('2. sign in and sign out', () => {
  test('a wrong password and an unknown email give the same message; sign in; sign out ends the session', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    try {
      await page.goto(`${server.base}/inbox/`);
      const main = page.getByRole('main');
      await main.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Store ID (optional)', { exact: true }).waitFor();
      const attempt = async (email, password) => {
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Password', { exact: true }).fill(password);
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/api/auth/login')),
          page.getByRole('button', { name: 'Sign in', exact: true }).click(),
        ]);
        const alert = page.getByRole('alert');
        await eventually(async () => ((await alert.textContent()) || '').trim(), 'the alert');
        return { status: res.status(), text: ((await alert.textContent()) || '').trim() };
      };
      const wrongPassword = await attempt(DEMO_EMAIL, 'not-the-password');
      const unknownEmail = await attempt('nobody@demo.example', DEMO_PASSWORD);
      assert.equal(wrongPassword.status, 401);
      assert.equal(unknownEmail.status, 401);
      assert.ok(wrongPassword.text.length > 0);
      assert.equal(unknownEmail.text, wrongPassword.text);
      // Still on the sign-in screen.
      await main.getByRole('heading', { name: 'Sign in' }).waitFor();

      await page.getByLabel('Email', { exact: true }).fill(DEMO_EMAIL);
      await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
      await list(page).waitFor();
      const s = await context.request.get(`${server.base}/api/auth/session`);
      assert.equal(s.status(), 200);
      assert.equal((await s.json()).data.member.email, DEMO_EMAIL);
      // A reload keeps the session (the cookie is the credential).
      await page.reload();
      await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();

      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByRole('main').getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor({ state: 'detached' });
      const gone = await context.request.get(`${server.base}/api/auth/session`);
      assert.equal(gone.status(), 401);
      await page.reload();
      await page.getByRole('main').getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });

  describe('repeated failures are slowed (Limits: 5 free per account, 20 per address, then 1 s doubling)', () => {
    // A livechatd of its own: these failures must not slow the other tests'
    // sign-ins. It believes X-Forwarded-For from loopback, so the tests can
    // come from several addresses.
    let t;
    before(async () => {
      t = await startServer({ args: ['--trusted-proxy', '127.0.0.1/32'] });
    });
    after(async () => { if (t) await t.stop(); });

    const assertThrottled = (r, seconds, what) => {
      assert.equal(r.status, 429, `${what}: ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.headers.get('retry-after'), String(seconds), `${what}: Retry-After`);
      assert.equal(r.body.error.code, 'RATE_LIMITED', what);
      assert.equal(r.body.error.message, `too many failed sign-ins: try again in ${seconds} s`, what);
      assert.equal(r.setCookie, null, `${what}: a refused sign-in set a cookie`);
    };

    test('per account: 5 failures free, the 6th attempt waits 1 s (the right password too), from any address', T, async () => {
      const A = '198.51.100.1', B = '198.51.100.2';
      for (let i = 1; i <= 5; i++) {
        const r = await login(t.base, DEMO_EMAIL, `wrong-${i}`, { forwardedFor: A });
        assert.equal(r.status, 401, `failure ${i}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'UNAUTHENTICATED');
      }
      assertThrottled(await login(t.base, DEMO_EMAIL, DEMO_PASSWORD, { forwardedFor: A }), 1, 'attempt 6, right password');
      assertThrottled(await login(t.base, DEMO_EMAIL, DEMO_PASSWORD, { forwardedFor: B }), 1, 'attempt 6 from another address');
      // The account, not the address: address A has 5 failures of its 20.
      const other = await login(t.base, 'someone-else@demo.example', 'x', { forwardedFor: A });
      assert.equal(other.status, 401);
      // After the wait, one more failure doubles it.
      await new Promise((r) => setTimeout(r, 1100));
      const sixth = await login(t.base, DEMO_EMAIL, 'wrong-6', { forwardedFor: A });
      assert.equal(sixth.status, 401, JSON.stringify(sixth.body));
      assertThrottled(await login(t.base, DEMO_EMAIL, DEMO_PASSWORD, { forwardedFor: B }), 2, 'after the 6th failure');
      // After that wait the right password signs in, and clears the account.
      await new Promise((r) => setTimeout(r, 2100));
      const ok = await login(t.base, DEMO_EMAIL, DEMO_PASSWORD, { forwardedFor: B });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.match(ok.setCookie, /^lc_session=/);
      for (let i = 1; i <= 5; i++)
        assert.equal((await login(t.base, DEMO_EMAIL, `again-${i}`, { forwardedFor: B })).status, 401, `again ${i}`);
      assertThrottled(await login(t.base, DEMO_EMAIL, DEMO_PASSWORD, { forwardedFor: B }), 1, 'a fresh count after success');
    });

    test('per address: 20 failures on 20 accounts free, the 21st attempt waits 1 s; other addresses are not slowed', T, async () => {
      const C = '203.0.113.7', D = '203.0.113.8';
      // The sign-in screen from address C, filled in before the failures: the wait is 1 s.
      const context = await browser.newContext({ extraHTTPHeaders: { 'X-Forwarded-For': C } });
      context.setDefaultTimeout(10000);
      try {
        const page = await context.newPage();
        await page.goto(`${t.base}/inbox/`);
        await page.getByLabel('Email', { exact: true }).fill('guess-22@example.com');
        await page.getByLabel('Password', { exact: true }).fill('x');
        for (let i = 1; i <= 20; i++) {
          const r = await login(t.base, `guess-${i}@example.com`, 'x', { forwardedFor: C });
          assert.equal(r.status, 401, `failure ${i} from C: ${JSON.stringify(r.body)}`);
        }
        assertThrottled(await login(t.base, 'guess-21@example.com', 'x', { forwardedFor: C }), 1, 'attempt 21 from C');
        // The sign-in screen shows the wait as an alert.
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/api/auth/login')),
          page.getByRole('button', { name: 'Sign in', exact: true }).click(),
        ]);
        assert.equal(res.status(), 429);
        const text = await eventually(async () => ((await page.getByRole('alert').textContent()) || '').trim(), 'the alert');
        assert.match(text, /\b1 s\b|\b1 second\b/);
        assertThrottled(await login(t.base, DEMO_EMAIL, DEMO_PASSWORD, { forwardedFor: C }), 1, 'the right password from C');
        // Another address, the same new email: checked (the refusals were not counted for guess-21).
        const fromD = await login(t.base, 'guess-21@example.com', 'x', { forwardedFor: D });
        assert.equal(fromD.status, 401, JSON.stringify(fromD.body));
      } finally {
        await context.close();
      }
    });
  });
});

describe('3. the widget and the inbox side by side', () => {
  test('visitor writes, agent sees it live, star/assign/tags, typing, reply, note, resolve', { timeout: 150000 }, async () => {
    const agent = await newInboxContext(browser, server.base);
    const visitorContext = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    visitorContext.setDefaultTimeout(10000);
    const visitor = await visitorContext.newPage();
    const visitorErrors = [];
    visitor.on('pageerror', (e) => visitorErrors.push(String(e)));
    const storefrontBodies = [];
    visitor.on('response', async (r) => {
      if (!r.url().includes('/storefront/')) return;
      try { storefrontBodies.push(await r.text()); } catch { /* a poll cut short */ }
    });
    try {
      const page = agent.page;
      await signIn(page, server.base);
      await list(page).waitFor();
      // A mark in the page's window: a reload would lose it.
      await page.evaluate(() => { window.__noReload = 'still here'; });
      const notReloaded = async () => assert.equal(await page.evaluate(() => window.__noReload), 'still here',
                                                   'the inbox reloaded');
      const eventsRequests = () => agent.watch.requests.filter((u) => u.includes('/api/chat/events')).length;
      assert.ok(eventsRequests() >= 1, 'the inbox did not open the change feed');

      // The visitor opens the shop page and writes through the widget.
      await visitor.goto(`${server.base}/demo/`);
      await visitor.waitForFunction(() => window.LiveChat && window.LiveChat.is && window.LiveChat.is('session:active'));
      await visitor.evaluate(() => {
        window.__events = [];
        for (const name of ['conversation:resolved', 'message:received'])
          LiveChat.on(name, (payload) => window.__events.push({ name, payload }));
      });
      await visitor.click('button.lc-launcher');
      await visitor.waitForSelector('section[role="dialog"]:not([hidden])');
      const first = 'Hi! Is the Alpine Parka warm enough for -20 °C?';
      await visitor.fill('#lc-input', first);
      await visitor.press('#lc-input', 'Enter');
      await visitor.waitForSelector('li.lc-msg-customer');
      const convId = await eventually(() => visitor.evaluate(() => LiveChat.get('conversation:id')),
                                      'the widget\'s conversation id', 8000);

      // The agent sees it appear in the list, without reloading.
      const row = rowFor(page, convId);
      await row.waitFor({ timeout: 8000 });
      await row.getByText(first).waitFor();
      await row.getByText('Unread', { exact: true }).waitFor();
      assert.match((await row.textContent()) || '', /Visitor/);
      await notReloaded();
      assert.equal(await row.locator('time[datetime]').count(), 1);

      // Opened: the thread, marked read.
      await row.click();
      const th = thread(page);
      await th.getByRole('heading', { level: 2, name: 'Visitor' }).waitFor();
      await messagesLog(page).locator('li[data-sender-type="customer"]').filter({ hasText: first }).waitFor();
      await eventually(async () => (await getConv(convId)).isRead === true, 'isRead after opening');
      await row.getByText('Unread', { exact: true }).waitFor({ state: 'detached' });

      // Star, assign to me (from unassigned), tags: exact values in the API.
      await th.getByRole('button', { name: 'Star', exact: true }).click();
      await th.getByRole('button', { name: 'Unstar', exact: true }).waitFor();
      assert.equal(await th.getByRole('button', { name: 'Unstar', exact: true }).getAttribute('aria-pressed'), 'true');
      await eventually(async () => (await getConv(convId)).isStarred === true, 'isStarred true');
      await page.getByLabel('Assignee', { exact: true }).selectOption({ label: 'Unassigned' });
      await eventually(async () => (await getConv(convId)).memberId === null, 'unassigned');
      await th.getByRole('button', { name: 'Assign to me', exact: true }).click();
      await eventually(async () => (await getConv(convId)).memberId === me.id, 'assigned to Ada');
      // The API can show the assign before the page has handled its answer.
      await eventually(async () => (await page.getByLabel('Assignee', { exact: true }).inputValue()) === me.id,
                       'the select showing Ada');
      const tagInput = page.getByLabel('Add tag', { exact: true });
      const tagAdd = th.getByRole('button', { name: 'Add', exact: true });
      await tagInput.fill('vip');
      await tagAdd.click();
      await th.getByRole('button', { name: 'Remove tag vip', exact: true }).waitFor();
      await tagInput.fill('e2e-followup');
      await tagAdd.click();
      await th.getByRole('button', { name: 'Remove tag e2e-followup', exact: true }).waitFor();
      await eventually(async () => (await getConv(convId)).tags.length === 2, 'two tags');
      assert.deepEqual([...(await getConv(convId)).tags].sort(), ['e2e-followup', 'vip']);
      await th.getByRole('button', { name: 'Remove tag vip', exact: true }).click();
      await th.getByRole('button', { name: 'Remove tag vip', exact: true }).waitFor({ state: 'detached' });
      await eventually(async () => (await getConv(convId)).tags.length === 1, 'one tag');
      assert.deepEqual((await getConv(convId)).tags, ['e2e-followup']);

      // The visitor types: the agent sees it; sending ends it.
      await visitor.focus('#lc-input');
      await visitor.keyboard.type('Also, is it waterproof?');
      const typing = th.getByRole('status').filter({ hasText: 'Visitor is typing…' });
      await typing.waitFor({ timeout: 8000 });
      await visitor.keyboard.press('Enter');
      await messagesLog(page).locator('li[data-sender-type="customer"]').filter({ hasText: 'Also, is it waterproof?' })
        .waitFor({ timeout: 8000 });
      // Sending stops the visitor's typing (typing:set false): the indicator goes.
      await typing.waitFor({ state: 'hidden', timeout: 15000 });

      // The agent replies: the visitor sees it live.
      const reply = 'Yes: rated to -25 °C, and the shell is fully waterproof.';
      await composer(page).fill(reply);
      await composer(page).press('Enter');
      await messagesLog(page).locator('li[data-sender-type="agent"]').filter({ hasText: reply }).waitFor();
      await visitor.locator('li.lc-msg-agent').filter({ hasText: reply }).waitFor({ timeout: 8000 });
      await eventually(async () => (await composer(page).inputValue()) === '', 'the reply box emptied after sending');

      // An internal note: shown as one in the inbox, never to the visitor.
      const note = 'Keen buyer: offer the WINTER10 code if they hesitate.';
      const noteToggle = th.getByRole('button', { name: 'Note', exact: true });
      await noteToggle.click();
      assert.equal(await noteToggle.getAttribute('aria-pressed'), 'true');
      await composer(page, true).fill(note);
      await composer(page, true).press('Enter');
      const noteLi = messagesLog(page).locator('li[data-note="true"]').filter({ hasText: note });
      await noteLi.waitFor();
      await noteLi.getByText('Internal note').first().waitFor();
      await noteToggle.click();
      assert.equal(await noteToggle.getAttribute('aria-pressed'), 'false');
      await composer(page).waitFor();
      const after = 'Anything else I can help with?';
      await composer(page).fill(after);
      await composer(page).press('Enter');
      await visitor.locator('li.lc-msg-agent').filter({ hasText: after }).waitFor({ timeout: 8000 });

      const msgs = await getMessages(convId);
      const byText = (t) => msgs.filter((m) => m.text === t);
      assert.equal(byText(first).length, 1);
      assert.equal(byText(reply).length, 1);
      assert.equal(byText(reply)[0].isNote, false);
      assert.equal(byText(reply)[0].isAdmin, true);
      assert.equal(byText(reply)[0].memberId, me.id);
      assert.equal(byText(note).length, 1);
      assert.equal(byText(note)[0].isNote, true);
      assert.equal(byText(after).length, 1);
      // The widget has shown a message sent after the note, so it has seen past it.
      assert.equal(await visitor.locator('.lc-root').getByText(note).count(), 0);
      assert.ok(!(await visitor.content()).includes('WINTER10'), 'the note reached the widget\'s DOM');
      assert.ok(storefrontBodies.length > 0);
      assert.ok(storefrontBodies.some((b) => b.includes(after)));
      assert.ok(!storefrontBodies.some((b) => b.includes('WINTER10')), 'the note was in a /storefront/ answer');
      // The widget's own API, asked for everything from the start.
      const { appId, token } = await visitor.evaluate(() => {
        const id = document.querySelector('script[data-app-id]').getAttribute('data-app-id');
        return { appId: id, token: JSON.parse(localStorage.getItem(`livechat:${id}:session`)).token };
      });
      const updates = await fetch(`${server.base}/storefront/updates?after=0&wait=0`,
                                  { headers: { 'X-App-Id': appId, 'X-Session-Token': token } });
      assert.equal(updates.status, 200);
      const updatesText = await updates.text();
      assert.ok(updatesText.includes(reply) && updatesText.includes(after), updatesText.slice(0, 500));
      assert.ok(!updatesText.includes('WINTER10'), 'the note is in GET /storefront/updates');

      // Resolve: the widget shows the conversation resolved.
      await th.getByRole('button', { name: 'Resolve', exact: true }).click();
      await th.getByRole('button', { name: 'Reopen', exact: true }).waitFor();
      await eventually(async () => (await getConv(convId)).status === 'resolved', 'status resolved');
      await eventually(() => visitor.evaluate(() => window.__events.some((e) => e.name === 'conversation:resolved')),
                       'conversation:resolved in the widget', 8000);
      assert.equal(await visitor.evaluate(() => LiveChat.is('conversation:active')), false);

      // The counts follow, live.
      const counts = (await sess('GET', '/api/chat/inbox-counts')).body.data;
      const openButton = page.getByRole('navigation', { name: 'Folders' }).getByRole('button', { name: /^Open/ });
      await eventually(async () => ((await openButton.locator('.count').textContent()) || '').replace(/[^0-9]/g, '') ===
                                   String(counts.open), `Open ${counts.open}`, 8000);
      const final = await getConv(convId);
      assert.equal(final.isStarred, true);
      assert.equal(final.memberId, me.id);
      assert.deepEqual(final.tags, ['e2e-followup']);
      assert.equal(final.status, 'resolved');
      await notReloaded();
      assert.deepEqual(agent.watch.report(), []);
      assert.deepEqual(visitorErrors, []);
    } finally {
      await agent.context.close();
      await visitorContext.close();
    }
  });
});

describe('3b. the change feed across reloads (livechatd defaults)', () => {
  test('after 4 reloads in a row the inbox is still live: a new message shows in the list within 5 s', T, async () => {
    const s = await startServer();
    const k = keyClient(s.base, s.apiKey);
    const { context, page, watch } = await newInboxContext(browser, s.base);
    try {
      await signIn(page, s.base);
      await rowButtons(page).first().waitFor();
      for (let i = 0; i < 4; i++) {
        await page.reload();
        await rowButtons(page).first().waitFor();
      }
      const sofia = (await k('GET', '/chat/conversations?limit=100')).body.data.find((c) => c.customerName === 'Sofia Rossi');
      const ada = (await k('GET', '/chat/members')).body.data.find((m) => m.email === DEMO_EMAIL);
      // The page has had the time to open its feed (the first page is on screen).
      await eventually(() => watch.requests.filter((u) => u.includes('/api/chat/events')).length >= 5, 'five feeds opened');
      const text = 'Good news: size M is back in stock.';
      const sent = await k('POST', `/chat/conversations/${sofia.id}/messages`, { text, memberId: ada.id });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      try {
        await rowFor(page, sofia.id).getByText(text).waitFor({ timeout: 5000 });
      } catch (e) {
        assert.fail(`the new message did not reach the list in 5 s after 4 reloads; the page logged:\n${watch.report().join('\n')}`);
      }
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
      await s.stop();
    }
  });
});

describe('3c. folders, filters and search show what the API answers', () => {
  test('Open, Mine, Unassigned, Starred, Resolved; Tag; Channel; search and /', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    const idsOf = async (query) => {
      const r = await sess('GET', `/api/chat/conversations?limit=100&${query}`);
      assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
      return r.body.data.map((c) => c.id).sort();
    };
    const shownIs = async (expected, what) => {
      try {
        await eventually(async () => JSON.stringify([...(await rowIds(page))].sort()) === JSON.stringify(expected), what, 8000);
      } catch (e) {
        assert.deepEqual([...(await rowIds(page))].sort(), expected, what);
      }
    };
    try {
      // Something in each folder: star one, assign one to Ada.
      const sofia = await conversationByName('Sofia Rossi');
      assert.equal((await sess('POST', `/api/chat/conversations/${sofia.id}/star`, { starred: true })).status, 200);
      const emma = await conversationByName('Emma Dubois');
      assert.equal((await sess('POST', `/api/chat/conversations/${emma.id}/assign`, { memberId: me.id })).status, 200);
      await signIn(page, server.base);
      const folders = page.getByRole('navigation', { name: 'Folders', exact: true });
      const counts = (await sess('GET', '/api/chat/inbox-counts')).body.data;
      const cases = [
        ['Open', 'status=open', counts.open],
        ['Mine', `status=open&assigneeId=${me.id}`, counts.mine],
        ['Unassigned', 'status=open&assigneeId=unassigned', counts.unassigned],
        ['Starred', 'isStarred=true', counts.starred],
        ['Resolved', 'status=resolved', null],
      ];
      for (const [name, query, count] of cases) {
        const button = folders.getByRole('button', { name: new RegExp(`^${name}`) });
        await button.click();
        assert.equal(await button.getAttribute('aria-pressed'), 'true', name);
        const expected = await idsOf(query);
        await shownIs(expected, `the ${name} folder`);
        if (count !== null) {
          assert.equal(expected.length, count, `${name}: inbox-counts against the list`);
          assert.equal(((await button.locator('.count').textContent()) || '').replace(/[^0-9]/g, ''), String(count),
                       `${name} count`);
        }
      }
      await folders.getByRole('button', { name: /^Open/ }).click();
      const tag = page.getByLabel('Tag', { exact: true });
      assert.equal((await tag.locator('option').first().textContent()).trim(), 'All');
      await tag.selectOption('shipping');
      await shownIs(await idsOf('status=open&tag=shipping'), 'Open, tag shipping');
      await tag.selectOption({ label: 'All' });
      const channel = page.getByLabel('Channel', { exact: true });
      assert.equal((await channel.locator('option').first().textContent()).trim(), 'All');
      await channel.selectOption('email');
      await shownIs(await idsOf('status=open&channel=email'), 'Open, channel email');
      await channel.selectOption({ label: 'All' });
      await shownIs(await idsOf('status=open'), 'Open again');

      // "/" goes to the search box; a search shows the API's hits.
      await page.keyboard.press('Escape');
      await page.keyboard.press('/');
      const search = page.getByRole('searchbox', { name: 'Search conversations', exact: true });
      await eventually(() => search.evaluate((el) => el === document.activeElement), '/ focuses the search box');
      await page.keyboard.type('Toronto');
      await page.keyboard.press('Enter');
      const hits = (await sess('GET', '/api/chat/conversations?q=Toronto&limit=100')).body.data.map((c) => c.id).sort();
      assert.equal(hits.length, 1);
      await shownIs(hits, 'the search for Toronto');
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });
});

describe('3d. attachments, the AI handoff, deleting a contact', () => {
  test('an image is sent through "Attach file" and shown inline from this origin', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    try {
      await signIn(page, server.base);
      const liam = await conversationByName('Liam Chen');
      await rowFor(page, liam.id).click();
      await thread(page).getByRole('heading', { level: 2, name: 'Liam Chen' }).waitFor();
      // A real PNG: 24 x 24 pixels of the page itself.
      const png = await page.screenshot({ clip: { x: 0, y: 0, width: 24, height: 24 } });
      const before = (await getMessages(liam.id)).length;
      await page.getByLabel('Attach file', { exact: true }).setInputFiles({ name: 'damage.png', mimeType: 'image/png', buffer: png });
      // Choosing the file sends it.
      await eventually(async () => (await getMessages(liam.id)).length === before + 1, 'the file message', 8000);
      const m = (await getMessages(liam.id)).at(-1);
      assert.equal(m.files.length, 1);
      assert.equal(m.files[0].name, 'damage.png');
      assert.equal(m.files[0].size, png.length);
      assert.equal(m.files[0].contentType, 'image/png');
      assert.equal(m.memberId, me.id);
      const img = messagesLog(page).locator('li img').last();
      await img.waitFor();
      await eventually(() => img.evaluate((el) => el.complete && el.naturalWidth === 24), 'the image loaded', 8000);
      const src = await img.evaluate((el) => el.src);
      assert.ok(src.startsWith(`${server.base}/`) || src.startsWith('blob:'), src);
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });

  test('a reply to a conversation the AI agent handles takes it over (isChatBot false)', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    try {
      const emma = await conversationByName('Emma Dubois');
      assert.equal(emma.isChatBot, true);
      await signIn(page, server.base);
      await rowFor(page, emma.id).click();
      await thread(page).getByRole('heading', { level: 2, name: 'Emma Dubois' }).waitFor();
      await composer(page).fill('Hi Emma, Ada here: use WELCOME15 for 15% off.');
      await composer(page).press('Enter');
      await eventually(async () => (await getConv(emma.id)).isChatBot === false, 'isChatBot false after the reply', 8000);
      const last = (await getMessages(emma.id)).at(-1);
      assert.equal(last.text, 'Hi Emma, Ada here: use WELCOME15 for 15% off.');
      assert.equal(last.isBot, false);
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });

  test('Delete contact, confirmed: the customer is gone, the conversation stays, redacted', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    try {
      const noah = (await sess('GET', '/api/chat/conversations?status=resolved&limit=100')).body.data
        .find((c) => c.customerName === 'Noah Schmidt');
      assert.ok(noah);
      assert.equal((await sess('GET', `/api/chat/customers/${noah.customerUuid}`)).status, 200);
      await signIn(page, server.base);
      await page.getByRole('navigation', { name: 'Folders', exact: true }).getByRole('button', { name: /^Resolved/ }).click();
      await rowFor(page, noah.id).click();
      await thread(page).getByRole('heading', { level: 2, name: 'Noah Schmidt' }).waitFor();
      await page.getByRole('complementary', { name: 'Customer', exact: true })
        .getByRole('button', { name: 'Delete contact', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await eventually(async () => (await sess('GET', `/api/chat/customers/${noah.customerUuid}`)).status === 404,
                       'the customer deleted', 8000);
      const after = await getConv(noah.id);
      assert.equal(after.isRedacted, true);
      assert.equal(after.customerEmail, null);
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });
});

describe('3e. a read that crosses a write on the wire never shows the old state', () => {
  // The feed makes the page GET the open conversation; the agent assigns it
  // while that GET is on its way. The GET's answer (from before the assign)
  // is held in the browser and handed over after the assign's answer, as a
  // slow network would. The assignee shown must stay "me" (it showed
  // "Unassigned" until the next feed event before thread.js dropped such reads).
  test('a GET answered before "Assign to me" and delivered after it is dropped and redone', T, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    const maya = await conversationByName('Maya Patel');
    const restore = { memberId: maya.memberId, tags: maya.tags };
    try {
      assert.equal((await sess('POST', `/api/chat/conversations/${maya.id}/assign`, { memberId: null })).status, 200);
      await signIn(page, server.base);
      await rowFor(page, maya.id).click();
      const th = thread(page);
      await th.getByRole('heading', { level: 2, name: 'Maya Patel' }).waitFor();
      const assignee = page.getByLabel('Assignee', { exact: true });
      assert.equal(await assignee.inputValue(), '');

      // Every GET of the conversation is answered by the server at once and
      // handed to the page only when the test says so, one at a time.
      const held = [];  // {data, deliver()}
      const path = new URL(`/api/chat/conversations/${maya.id}`, server.base).pathname;
      const matches = (url) => url.pathname === path;
      await page.route(matches, async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        const response = await route.fetch();
        const body = await response.json();
        await new Promise((deliver) => held.push({ data: body.data, deliver }));
        // After unroute or close a held route may be handled already.
        await route.fulfill({ response }).catch(() => {});
      });

      // Another agent tags it: the feed makes the page read it; the read is held.
      assert.equal((await sess('POST', `/api/chat/conversations/${maya.id}/tags`, { tags: ['e2e-crossing'] })).status, 200);
      await eventually(async () => held.length >= 1, 'the page reading the conversation after the feed event', 8000);
      assert.equal(held[0].data.memberId, null);
      assert.deepEqual(held[0].data.tags, [...restore.tags, 'e2e-crossing']);

      await th.getByRole('button', { name: 'Assign to me', exact: true }).click();
      await eventually(async () => (await getConv(maya.id)).memberId === me.id, 'assigned in the API');
      await eventually(async () => (await assignee.inputValue()) === me.id, 'the select showing the assign\'s answer');

      // Only the stale read is delivered; later reads stay held, so nothing
      // else can change the screen during the next 700 ms.
      held[0].deliver();
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(await assignee.inputValue(), me.id, 'the old read put "Unassigned" back on screen');

      await page.unroute(matches);
      for (const h of held) h.deliver();
      const deliverLater = setInterval(() => { for (const h of held) h.deliver(); }, 50);
      try {
        // The screen ends where the API is.
        await th.getByRole('button', { name: 'Remove tag e2e-crossing', exact: true }).waitFor();
      } finally {
        clearInterval(deliverLater);
      }
      assert.equal(await assignee.inputValue(), me.id);
      const now = await getConv(maya.id);
      assert.equal(now.memberId, me.id);
      assert.deepEqual(now.tags, [...restore.tags, 'e2e-crossing']);
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
      assert.equal((await sess('POST', `/api/chat/conversations/${maya.id}/assign`, { memberId: restore.memberId })).status, 200);
      if (!restore.tags.includes('e2e-crossing')) {
        assert.equal((await sess('DELETE', `/api/chat/conversations/${maya.id}/tags/e2e-crossing`)).status, 200);
      }
    }
  });
});

async function expectShownText(page, text) {
  await messagesLog(page).getByText(text).first().waitFor();
}

function seriousViolations(results) {
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}\n` +
                v.nodes.slice(0, 5).map((n) => `    ${n.target.join(' ')}: ${n.failureSummary.replace(/\n/g, ' ')}`).join('\n'));
}

describe('5. accessibility (axe-core) and 6. screenshots', () => {
  test('no serious or critical violation: sign-in, list, thread, customer panel, help and delete dialogs; screenshots', { timeout: 120000 }, async () => {
    const { context, page, watch } = await newInboxContext(browser, server.base);
    const found = {};
    const check = async (name, builder) => {
      const results = await builder.analyze();
      found[name] = seriousViolations(results);
    };
    try {
      await page.goto(`${server.base}/inbox/`);
      await page.getByRole('main').getByRole('heading', { name: 'Sign in' }).waitFor();
      await check('sign-in screen', new AxeBuilder({ page }));
      await signIn(page, server.base);
      await rowButtons(page).first().waitFor();
      await check('list', new AxeBuilder({ page }));
      await page.screenshot({ path: artifactPath('inbox-list.png') });

      const liam = await conversationByName('Liam Chen');
      await rowFor(page, liam.id).click();
      await thread(page).getByRole('heading', { level: 2, name: 'Liam Chen' }).waitFor();
      await messagesLog(page).locator('li[data-note="true"]').first().waitFor();
      const aside = page.getByRole('complementary', { name: 'Customer', exact: true });
      await aside.getByText('liam@example.com').first().waitFor();
      await check('thread', new AxeBuilder({ page }));
      await check('customer panel', new AxeBuilder({ page }).include('aside[aria-label="Customer"]'));
      await page.screenshot({ path: artifactPath('inbox-thread.png') });
      if (process.env.INBOX_DOCS_SCREENSHOT) await page.screenshot({ path: join(root, 'docs', 'inbox.png') });

      await page.keyboard.press('Escape');
      await page.keyboard.press('?');
      await page.getByRole('dialog').waitFor();
      await check('help dialog', new AxeBuilder({ page }).include('dialog[open]'));
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });

      await aside.getByRole('button', { name: 'Delete contact', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Delete', exact: true }).waitFor();
      await check('delete-contact dialog', new AxeBuilder({ page }).include('dialog[open]'));
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      // Cancel deleted nothing.
      assert.equal((await sess('GET', `/api/chat/customers/${liam.customerUuid}`)).status, 200);

      const failing = Object.entries(found).filter(([, v]) => v.length);
      assert.deepEqual(failing.map(([k]) => k), [],
                       failing.map(([k, v]) => `${k}:\n  ${v.join('\n  ')}`).join('\n'));
      for (const f of ['inbox-list.png', 'inbox-thread.png'])
        assert.ok(readFileSync(artifactPath(f)).length > 10000, `${f} is too small to show anything`);
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });
});

describe('4. keyboard', () => {
  test('j/k, r, n, e, a, s, ?; Enter sends, Shift+Enter new line; 5,000 characters and no more', { timeout: 120000 }, async () => {
    // The anonymous demo conversation, unassigned and not starred to begin with.
    const hello = (await sess('GET', '/api/chat/conversations?limit=100')).body.data
      .find((c) => c.lastMessage && c.lastMessage.text === 'Hello, is anyone there?');
    assert.ok(hello);
    assert.equal((await sess('POST', `/api/chat/conversations/${hello.id}/assign`, { memberId: null })).status, 200);
    const { context, page, watch } = await newInboxContext(browser, server.base);
    try {
      await signIn(page, server.base);
      await rowButtons(page).nth(2).waitFor();
      const ids = await rowIds(page);
      const convs = new Map((await sess('GET', '/api/chat/conversations?limit=100')).body.data.map((c) => [c.id, c]));
      // The thread shows a conversation: its customer's name and its last text message.
      const expectShown = async (id) => {
        const c = convs.get(id);
        const last = (await getMessages(id)).filter((m) => !m.files.length).at(-1);
        await thread(page).getByRole('heading', { level: 2, name: c.customerName || 'Visitor', exact: true }).waitFor();
        await messagesLog(page).getByText(last.text).first().waitFor();
      };
      await rowFor(page, ids[0]).click();
      await expectShown(ids[0]);
      await page.keyboard.press('Escape');
      await page.keyboard.press('j');
      await expectShown(ids[1]);
      await page.keyboard.press('j');
      await expectShown(ids[2]);
      await page.keyboard.press('k');
      await expectShown(ids[1]);

      // On the anonymous conversation: s, a, e.
      await rowFor(page, hello.id).click();
      await expectShown(hello.id);
      await page.keyboard.press('Escape');
      await page.keyboard.press('s');
      await eventually(async () => (await getConv(hello.id)).isStarred === true, 's stars');
      await thread(page).getByRole('button', { name: 'Unstar', exact: true }).waitFor();
      await page.keyboard.press('s');
      await eventually(async () => (await getConv(hello.id)).isStarred === false, 's again unstars');
      await page.keyboard.press('a');
      await eventually(async () => (await getConv(hello.id)).memberId === me.id, 'a assigns to me');
      await page.keyboard.press('r');
      await eventually(() => composer(page).evaluate((el) => el === document.activeElement), 'r focuses Reply');
      // Inside the field the letters are text, not shortcuts.
      await page.keyboard.type('es');
      assert.equal(await composer(page).inputValue(), 'es');
      assert.equal((await getConv(hello.id)).status, 'open');
      await composer(page).fill('');
      await page.keyboard.press('Escape');
      assert.equal(await composer(page).evaluate((el) => el === document.activeElement), false);
      await page.keyboard.press('n');
      const noteToggle = thread(page).getByRole('button', { name: 'Note', exact: true });
      await eventually(async () => (await noteToggle.getAttribute('aria-pressed')) === 'true', 'n: note mode');
      await composer(page, true).waitFor();
      await eventually(() => composer(page, true).evaluate((el) => el === document.activeElement), 'n focuses the note');
      await page.keyboard.press('Escape');
      await noteToggle.click();
      await composer(page).waitFor();
      await page.keyboard.press('e');
      await eventually(async () => (await getConv(hello.id)).status === 'resolved', 'e resolves');
      await sess('POST', `/api/chat/conversations/${hello.id}/state`, { status: 'open' });

      // ? opens the help, listing the shortcuts; Escape closes it.
      await page.keyboard.press('?');
      const help = page.getByRole('dialog');
      await help.waitFor();
      const keys = (await help.locator('kbd').allTextContents()).map((s) => s.trim());
      for (const k of ['j', 'k', 'r', 'n', 'e', 'a', 's', '?']) assert.ok(keys.includes(k), `help lacks ${k}: ${keys}`);
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'hidden' });

      // Enter sends, Shift+Enter makes a new line (Maya's first conversation, online store).
      const maya = (await sess('GET', '/api/chat/conversations?limit=100')).body.data
        .find((c) => c.lastMessage && c.lastMessage.text === 'Yes, we ship to Canada in 5-7 business days.');
      assert.ok(maya);
      await rowFor(page, maya.id).click();
      await expectShownText(page, 'Yes, we ship to Canada in 5-7 business days.');
      const box = composer(page);
      await box.click();
      await page.keyboard.type('line one');
      await page.keyboard.press('Shift+Enter');
      await page.keyboard.type('line two');
      assert.equal(await box.inputValue(), 'line one\nline two');
      const count0 = (await getMessages(maya.id)).length;
      await page.keyboard.press('Enter');
      await eventually(async () => (await getMessages(maya.id)).length === count0 + 1, 'the message sent by Enter');
      assert.equal((await getMessages(maya.id)).at(-1).text, 'line one\nline two');
      await eventually(async () => (await box.inputValue()) === '', 'the reply box emptied after sending');

      // The limit: 5,000 characters (code points); the counter from 4,500.
      const send = thread(page).getByRole('button', { name: 'Send', exact: true });
      const counter = thread(page).locator('span[aria-live="polite"]').filter({ hasText: /characters? left/ });
      await box.fill('x'.repeat(4499));
      assert.equal(await counter.count(), 0, 'a counter before 4,500 characters');
      assert.equal(await send.isEnabled(), true);
      await box.fill('x'.repeat(4500));
      await eventually(async () => (await counter.count()) === 1 && (await counter.textContent()).trim() === '500 characters left',
                       '"500 characters left"');
      await box.fill('x'.repeat(4880));
      await eventually(async () => (await counter.textContent()).trim() === '120 characters left', '"120 characters left"');
      await box.fill('x'.repeat(4999) + '😀');  // 5,000 code points, 5,001 UTF-16 units
      await eventually(async () => (await counter.textContent()).trim() === '0 characters left', '"0 characters left" with an emoji');
      assert.equal(await send.isEnabled(), true, 'Send disabled at 5,000 code points (one astral)');
      await box.fill('x'.repeat(5001));
      await eventually(async () => !(await send.isEnabled()), 'Send disabled at 5,001');
      await box.press('Enter');
      assert.equal((await box.inputValue()).length, 5001, 'Enter cleared an over-long reply');
      assert.equal((await getMessages(maya.id)).length, count0 + 1, 'an over-long reply was sent');
      await box.fill('y'.repeat(5000));
      assert.equal(await send.isEnabled(), true);
      await box.press('Enter');
      await eventually(async () => (await getMessages(maya.id)).length === count0 + 2, 'the 5,000-character reply');
      const long = (await getMessages(maya.id)).at(-1).text;
      assert.ok(long === 'y'.repeat(5000), `the 5,000-character reply came back with ${[...long].length} characters`);
      await eventually(async () => (await box.inputValue()) === '', 'the reply box emptied after sending');
      assert.deepEqual(watch.report(), []);
    } finally {
      await context.close();
    }
  });
});
