// The storefront SDK and widget in a real browser: Debian's headless
// Chromium driven by playwright-core, against a running `livechatd --demo`.
//
//   - the demo page loads /sdk.js; LiveChat 1.1.0 has push/on/off/is/get/version
//   - the shared vectors (tests/vectors/sdk_commands.json) get the C++
//     validator's verdicts in the page, and every rejected one pushed for real
//     logs exactly its console warning and throws nothing
//   - keyboard only: open the widget, write, send; the message is in
//     GET /chat/conversations and its messages
//   - an agent reply through POST .../messages shows in the widget and fires
//     the SDK's message:received event
//   - resolve, reopen and assign through the REST API fire conversation:resolved,
//     conversation:reopened and conversation:assigned within 2 s
//   - identify lands on the customer record; page views in browsed-pages
//   - a screenshot of the open widget is kept (LIVECHAT_ARTIFACT_DIR)
//
// Needs LIVECHAT_BIN_DIR (the build's hosts/ folder); ctest sets it and
// LIVECHAT_ARTIFACT_DIR. Chromium: LIVECHAT_CHROMIUM or /usr/bin/chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const bin = process.env.LIVECHAT_BIN_DIR;
const artifacts = process.env.LIVECHAT_ARTIFACT_DIR || join(tmpdir(), 'livechat-artifacts');
const chromiumPath = process.env.LIVECHAT_CHROMIUM || '/usr/bin/chromium';
const vectors = JSON.parse(readFileSync(join(root, 'tests', 'vectors', 'sdk_commands.json'), 'utf8'));

let dir, server, base, apiKey, browser, page;
const pageErrors = [];
const warnings = [];

async function api(method, path, body) {
  const headers = { 'X-Api-Key': apiKey };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

// Polls `fn` until it returns a truthy value (livechatd answers in ms; the widget in < 2 s).
async function eventually(fn, what, timeoutMs = 5000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  assert.ok(bin, 'LIVECHAT_BIN_DIR must name the folder holding livechatd');
  assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath} (apt-get install chromium)`);
  dir = mkdtempSync(join(tmpdir(), 'livechat-sdk-'));
  server = spawn(join(bin, 'livechatd'), ['--db', join(dir, 'shop.db'), '--listen', '127.0.0.1:0', '--demo',
                                          '--access-log', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] });
  [base, apiKey] = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('livechatd did not start in 10 s')), 10000);
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const listening = out.match(/listening on (\S+)/);
      const key = out.match(/demo API key: (sk_[0-9a-f]+)/);
      if (listening && key) {
        clearTimeout(timer);
        resolve([`http://${listening[1]}`, key[1]]);
      }
    });
    server.on('exit', (code) => reject(new Error(`livechatd exited with ${code}`)));
  });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true,
                                    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await page.goto(`${base}/demo/`);
  await page.waitForFunction(() => window.LiveChat && typeof window.LiveChat.on === 'function' &&
                                   window.LiveChat.is('session:active'));
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the global object: version 1.1.0, six methods, push returns nothing', async () => {
  const shape = await page.evaluate(() => ({
    version: LiveChat.version(),
    methods: Object.keys(LiveChat).sort(),
    pushed: LiveChat.push(['chat:close']),
    queuedProduct: LiveChat.get('product'),
  }));
  assert.equal(shape.version, '1.1.0');
  assert.deepEqual(shape.methods, ['get', 'is', 'off', 'on', 'push', 'version']);
  assert.equal(shape.pushed, undefined);
  // The demo page pushed its product into the queue before sdk.js loaded.
  assert.equal(shape.queuedProduct.title, 'Alpine Parka');
});

test('the shared vectors get the same verdicts in the page as in C++', async () => {
  const failures = await page.evaluate((v) => {
    const out = [];
    for (const t of v.vectors) {
      const w = window.LiveChatRules.check(t.command, t.args);
      const ok = t.verdict === 'accept' ? w === null : (w !== null && w.includes(t.warning));
      if (!ok) out.push(`${t.command} ${JSON.stringify(t.args).slice(0, 60)} -> ${w}`);
    }
    for (const seq of v.sequences) {
      let now = 1767225600000;
      const validate = window.LiveChatRules.createLimiter(() => now);
      for (const s of seq.steps) {
        if (s.advanceMs) now += s.advanceMs;
        const w = validate(s.session || 'default', s.command, s.args);
        const ok = s.verdict === 'accept' ? w === null : (w !== null && w.includes(s.warning));
        if (!ok) out.push(`${seq.name}: ${s.command} -> ${w}`);
      }
    }
    return out;
  }, vectors);
  assert.deepEqual(failures, []);
  assert.ok(vectors.vectors.length > 200);
});

test('a call the server refused gives its place in the page window back, as CommandValidator::Apply', async () => {
  const verdicts = await page.evaluate(() => {
    let now = 1767225600000;
    const start = now;
    const validate = window.LiveChatRules.createLimiter(() => now);
    const out = [];
    for (let i = 0; i < 15; i++) out.push(validate('s', 'message:send', ['x']));
    out.push(validate('s', 'message:send', ['x']));  // the 16th: refused
    validate.refund('s', 'message:send', now);         // one of the 15 was refused by the server
    out.push(validate('s', 'message:send', ['x']));  // so one more fits
    out.push(validate('s', 'message:send', ['x']));
    now += 60000;
    out.push(validate('s', 'message:send', ['x']));  // a new window
    validate.refund('s', 'message:send', start);       // a call of the closed window: nothing back
    for (let i = 0; i < 14; i++) out.push(validate('s', 'message:send', ['x']));
    out.push(validate('s', 'message:send', ['x']));
    return out.map((w) => (w === null ? 'ok' : w.includes('rate limit of 15') ? '429' : w));
  });
  assert.deepEqual(verdicts, [...Array(15).fill('ok'), '429', 'ok', '429', ...Array(15).fill('ok'), '429']);
});

test('every rejected vector pushed for real: one console warning each, no exception, nothing sent', async () => {
  const rejected = vectors.vectors.filter((t) => t.verdict === 'reject');
  const before = warnings.length;
  const conversationsBefore = (await api('GET', '/chat/conversations?limit=100')).body.data.length;
  const results = await page.evaluate((list) => list.map((t) => {
    try {
      return { returned: window.LiveChat.push([t.command, ...t.args]), threw: false };
    } catch (e) {
      return { threw: true };
    }
  }), rejected);
  assert.ok(results.every((r) => !r.threw && r.returned === undefined));
  const got = warnings.slice(before);
  assert.equal(got.length, rejected.length);
  rejected.forEach((t, i) => {
    assert.ok(got[i].startsWith('[LiveChat] '), got[i]);
    assert.ok(got[i].includes(t.warning), `${t.command}: "${got[i]}" lacks "${t.warning}"`);
  });
  // Non-JSON arguments are refused too, and a malformed push.
  await page.evaluate(() => {
    LiveChat.push(['product', { id: 1, price: NaN }]);
    LiveChat.push('chat:open');
  });
  assert.match(warnings.at(-2), /product: arguments must be JSON values/);
  assert.match(warnings.at(-1), /push expects an array/);
  assert.equal((await api('GET', '/chat/conversations?limit=100')).body.data.length, conversationsBefore);
  assert.deepEqual(pageErrors, []);
});

test('keyboard only: open the widget, write and send; the agent sees it through the REST API', async () => {
  await page.evaluate(() => {
    window.__events = [];
    for (const name of ['chat:opened', 'message:sent', 'message:received', 'conversation:started', 'agent:typing'])
      LiveChat.on(name, (payload) => window.__events.push({ name, payload }));
  });
  await page.focus('button.lc-launcher');
  assert.equal(await page.getAttribute('button.lc-launcher', 'aria-label'), 'Open chat');
  await page.keyboard.press('Enter');
  await page.waitForSelector('section[role="dialog"]:not([hidden])');
  assert.equal(await page.evaluate(() => LiveChat.is('chat:open')), true);
  assert.equal(await page.getAttribute('button.lc-launcher', 'aria-expanded'), 'true');
  // Opening focuses the composer, which has a label.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'lc-input');
  assert.equal(await page.textContent('label[for="lc-input"]'), 'Message');
  await page.keyboard.type('Hello from the demo shop! Does the parka run small?');
  await page.keyboard.press('Enter');
  await page.waitForSelector('li.lc-msg-customer');

  const conv = await eventually(async () => {
    const list = (await api('GET', '/chat/conversations?limit=5')).body.data;
    return list.find((c) => c.lastMessage && c.lastMessage.text === 'Hello from the demo shop! Does the parka run small?');
  }, 'the conversation in GET /chat/conversations');
  assert.equal(conv.customerType, 'anonymous');
  assert.deepEqual(conv.channels, ['online_store']);
  assert.equal(conv.sessionId, await page.evaluate(() => LiveChat.get('session:id')));
  const msgs = (await api('GET', `/chat/conversations/${conv.id}/messages`)).body.data;
  assert.equal(msgs.length, 1);
  assert.equal(msgs[0].text, 'Hello from the demo shop! Does the parka run small?');
  assert.equal(await page.inputValue('#lc-input'), '');
  const names = (await page.evaluate(() => window.__events)).map((e) => e.name);
  assert.deepEqual(names, ['chat:opened', 'message:sent', 'conversation:started']);
  await eventually(() => page.evaluate((id) => LiveChat.get('conversation:id') === id, conv.id), 'conversation:id');
});

test('an agent reply through POST .../messages shows in the widget and fires message:received', async () => {
  const convId = await page.evaluate(() => LiveChat.get('conversation:id'));
  assert.ok(convId);
  const member = (await api('GET', '/chat/members')).body.data.find((m) => m.active);
  const typing = await api('POST', `/chat/conversations/${convId}/typing`, { memberId: member.id, active: true });
  assert.equal(typing.status, 200);
  await page.waitForSelector('.lc-typing:has-text("typing")', { timeout: 2000 });
  const sentAt = Date.now();
  const reply = await api('POST', `/chat/conversations/${convId}/messages`,
                          { text: 'It runs true to size. Take your usual one!', memberId: member.id });
  assert.equal(reply.status, 201);
  await page.waitForSelector('li.lc-msg-agent:has-text("It runs true to size")', { timeout: 2000 });
  assert.ok(Date.now() - sentAt < 2000, 'the reply took longer than 2 s');
  const received = await page.evaluate(() => window.__events.filter((e) => e.name === 'message:received'));
  assert.equal(received.length, 1);
  assert.equal(received[0].payload.text, 'It runs true to size. Take your usual one!');
  assert.equal(received[0].payload.senderType, 'agent');
  assert.ok((await page.evaluate(() => window.__events.map((e) => e.name))).includes('agent:typing'));
  assert.equal(await page.evaluate(() => LiveChat.is('agent:available')), true);
  await api('POST', `/chat/conversations/${convId}/typing`, { memberId: member.id, active: false });

  mkdirSync(artifacts, { recursive: true });
  const shot = join(artifacts, 'storefront-widget-open.png');
  await page.screenshot({ path: shot });
  assert.ok(readFileSync(shot).length > 10000);
});

test('resolve, reopen and assign through the REST API reach $livechat.on handlers within 2 s', async () => {
  const convId = await page.evaluate(() => LiveChat.get('conversation:id'));
  assert.ok(convId);
  await page.evaluate(() => {
    window.__state = [];
    for (const name of ['conversation:resolved', 'conversation:reopened', 'conversation:assigned'])
      LiveChat.on(name, (payload) => window.__state.push({ name, payload, at: Date.now() }));
  });
  const member = (await api('GET', '/chat/members')).body.data.find((m) => m.active);
  // The demo store assigns new conversations; the widget has seen the
  // unassign by the time it reports the resolve that follows it.
  assert.equal((await api('POST', `/chat/conversations/${convId}/assign`, { memberId: null })).status, 200);
  const steps = [
    ['conversation:resolved', () => api('POST', `/chat/conversations/${convId}/state`, { status: 'resolved' })],
    ['conversation:reopened', () => api('POST', `/chat/conversations/${convId}/state`, { status: 'open' })],
    ['conversation:assigned', () => api('POST', `/chat/conversations/${convId}/assign`, { memberId: member.id })],
  ];
  for (const [name, change] of steps) {
    const sentAt = Date.now();
    assert.equal((await change()).status, 200);
    const seen = await eventually(() => page.evaluate((n) => window.__state.find((e) => e.name === n), name), name, 5000);
    assert.deepEqual(seen.payload, { conversationId: convId });
    assert.ok(Date.now() - sentAt < 2000, `${name} took ${Date.now() - sentAt} ms`);
  }
  assert.deepEqual((await page.evaluate(() => window.__state)).map((e) => e.name), steps.map((s) => s[0]));
  assert.equal(await page.evaluate(() => LiveChat.is('conversation:active')), true);
});

test('identify lands on the customer record', async () => {
  await page.evaluate(() => LiveChat.push(['identify', { email: 'ana@example.com', name: 'Ana Lima', phone: '+351 912 345 678' }]));
  const convId = await page.evaluate(() => LiveChat.get('conversation:id'));
  const conv = await eventually(async () => {
    const c = (await api('GET', `/chat/conversations/${convId}`)).body.data;
    return c.customerEmail === 'ana@example.com' ? c : null;
  }, 'the identified conversation');
  const customer = (await api('GET', `/chat/customers/${conv.customerUuid}`)).body.data;
  assert.equal(customer.email, 'ana@example.com');
  assert.equal(customer.name, 'Ana Lima');
  assert.equal(customer.firstName, 'Ana');
  assert.equal(customer.phone, '+351 912 345 678');
  assert.equal(customer.type, 'guest');
  assert.deepEqual(await page.evaluate(() => LiveChat.get('user')),
                   { email: 'ana@example.com', name: 'Ana Lima', phone: '+351 912 345 678' });
});

test('page views show up in browsed-pages, newest first', async () => {
  const convId = await page.evaluate(() => LiveChat.get('conversation:id'));
  // Another page of the shop: a navigation loads the SDK again, on the same session.
  await page.goto(`${base}/demo/?page=size-guide`);
  await page.waitForFunction(() => window.LiveChat && window.LiveChat.is && window.LiveChat.is('session:active'));
  const pages = await eventually(async () => {
    const list = (await api('GET', `/chat/conversations/${convId}/browsed-pages`)).body.data;
    return list.length >= 2 ? list : null;
  }, 'two browsed pages');
  assert.equal(pages[0].url, `${base}/demo/?page=size-guide`);
  assert.equal(pages[0].title, 'Demo Outfitters: Alpine Parka');
  assert.equal(pages.at(-1).url, `${base}/demo/`);
  // The session survived the navigation: the history is back in the widget.
  await page.evaluate(() => LiveChat.push(['chat:open']));
  await page.waitForSelector('li.lc-msg-agent:has-text("It runs true to size")', { timeout: 3000 });
  assert.equal(await page.evaluate(() => LiveChat.get('conversation:id')), convId);
  assert.deepEqual(pageErrors, []);
});

test('the pre-chat form: labelled fields, filled by keyboard, submitted before the first message', async () => {
  // A fresh visitor (own storage) on a page that asks for name and email first.
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const visitor = await context.newPage();
  const errors = [];
  visitor.on('pageerror', (e) => errors.push(String(e)));
  await visitor.addInitScript(() => { window.LiveChatSettings = { prechat: ['name', 'email'] }; });
  await visitor.goto(`${base}/demo/`);
  await visitor.waitForFunction(() => window.LiveChat && window.LiveChat.is && window.LiveChat.is('session:active'));
  assert.equal(await visitor.evaluate(() => LiveChat.is('prechat:required')), true);
  assert.deepEqual(await visitor.evaluate(() => LiveChat.get('prechat:config')), { enabled: true, fields: ['name', 'email'] });
  await visitor.evaluate(() => LiveChat.push(['prechat:field', 'name', 'Bo Berg']));
  await visitor.focus('button.lc-launcher');
  await visitor.keyboard.press('Enter');
  await visitor.waitForSelector('form.lc-prechat:not([hidden])');
  assert.equal(await visitor.isHidden('form.lc-composer'), true);
  // Labels wrap their inputs; the prefilled name is there; focus starts in the form.
  assert.equal(await visitor.inputValue('form.lc-prechat label:has-text("Name") input'), 'Bo Berg');
  assert.equal(await visitor.evaluate(() => document.activeElement.name), 'name');
  await visitor.keyboard.press('Tab');
  await visitor.keyboard.type('bo@example.com');
  await visitor.keyboard.press('Enter');
  await visitor.waitForSelector('form.lc-composer:not([hidden])');
  assert.equal(await visitor.evaluate(() => LiveChat.is('prechat:completed')), true);
  await visitor.keyboard.type('Hi, I am Bo.');
  await visitor.keyboard.press('Enter');
  const conv = await eventually(async () => {
    const list = (await api('GET', '/chat/conversations?limit=10')).body.data;
    return list.find((c) => c.lastMessage && c.lastMessage.text === 'Hi, I am Bo.');
  }, "Bo's conversation");
  assert.equal(conv.customerEmail, 'bo@example.com');
  assert.equal(conv.customerName, 'Bo Berg');
  assert.equal(conv.customerType, 'guest');
  assert.deepEqual(errors, []);
  await context.close();
});
