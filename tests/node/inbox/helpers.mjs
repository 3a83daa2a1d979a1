// Shared by the inbox's browser tests: a livechatd of their own (temp
// database, free loopback ports), Debian's Chromium, the session API from
// Node, and watchers for what a page must never do (foreign requests,
// console errors, uncaught exceptions, CSP violations).
//
// Environment (ctest sets the first three, tests/CMakeLists.txt):
//   LIVECHATD        the livechatd binary (else LIVECHAT_BIN_DIR/livechatd)
//   LIVECHATCTL      the livechatctl binary (else next to livechatd)
//   INBOX_ARTIFACTS  where screenshots go (default /tmp/livechat-inbox-artifacts)
//   LIVECHAT_CHROMIUM  Chromium (default /usr/bin/chromium)
//   INBOX_DOCS_SCREENSHOT  set: also write docs/inbox.png
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = join(here, '..', '..', '..');
export const livechatd = process.env.LIVECHATD ||
  (process.env.LIVECHAT_BIN_DIR ? join(process.env.LIVECHAT_BIN_DIR, 'livechatd') : '');
export const livechatctl = process.env.LIVECHATCTL || (livechatd ? join(dirname(livechatd), 'livechatctl') : '');
export const artifacts = process.env.INBOX_ARTIFACTS || join(tmpdir(), 'livechat-inbox-artifacts');
export const chromiumPath = process.env.LIVECHAT_CHROMIUM || '/usr/bin/chromium';

export const DEMO_EMAIL = 'ada@demo.example';
export const DEMO_PASSWORD = 'demo-password';

// The inbox's Content-Security-Policy, byte for byte (hosts/livechatd/inbox_routes.cc, docs/inbox.md).
export const INBOX_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

// Starts livechatd on a temp database (or `db`), on free loopback ports.
// Resolves when it prints "listening on" (and the demo key with demo: true).
export async function startServer({ demo = true, db = null, args = [], timeoutMs = 15000 } = {}) {
  assert.ok(livechatd && existsSync(livechatd), `LIVECHATD must name the livechatd binary (got "${livechatd}")`);
  const dir = db ? null : mkdtempSync(join(tmpdir(), 'livechat-inbox-'));
  const dbPath = db || join(dir, 'demo.db');
  const argv = ['--db', dbPath, '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0', '--access-log', 'off',
                ...(demo ? ['--demo'] : []), ...args];
  const proc = spawn(livechatd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (c) => { err += c; if (err.length > 200000) err = err.slice(-100000); });
  const started = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`livechatd did not start in ${timeoutMs} ms:\n${out}\n${err}`)), timeoutMs);
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const listening = out.match(/(?:^|\n)listening on (\S+)/);
      const key = out.match(/demo API key: (sk_[0-9a-f]+)/);
      const shop = out.match(/\(id (shop_[0-9a-f]+)\)/);
      if (listening && (!demo || key)) {
        clearTimeout(timer);
        resolve({ base: `http://${listening[1]}`, apiKey: key ? key[1] : null, shopId: shop ? shop[1] : null });
      }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`livechatd exited with ${code}:\n${out}\n${err}`)); });
  });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    ...started, proc, dir, dbPath,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(t);
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

// POST /api/auth/login from Node. `forwardedFor` needs --trusted-proxy 127.0.0.1/32.
export async function login(base, email, password, { forwardedFor = null, shopId = null } = {}) {
  const headers = { 'Content-Type': 'application/json' };
  if (forwardedFor) headers['X-Forwarded-For'] = forwardedFor;
  const res = await fetch(`${base}/api/auth/login`, {
    method: 'POST', headers, body: JSON.stringify(shopId ? { email, password, shopId } : { email, password }),
  });
  const text = await res.text();
  let body = null;
  try { body = JSON.parse(text); } catch { body = text; }
  const setCookie = res.headers.get('set-cookie');
  const m = setCookie && setCookie.match(/lc_session=([^;]*)/);
  return { status: res.status, headers: res.headers, body, setCookie, cookie: m ? `lc_session=${m[1]}` : null };
}

// A client of /api/... with a session cookie; csrf: false leaves the header out.
export function sessionClient(base, cookie) {
  return async function call(method, path, body, { csrf = true } = {}) {
    const headers = { Cookie: cookie, Accept: 'application/json' };
    if (csrf && method !== 'GET' && method !== 'HEAD') headers['X-Livechat-Csrf'] = '1';
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = text; }
    return { status: res.status, headers: res.headers, body: json };
  };
}

// The public API with the demo key.
export function keyClient(base, apiKey) {
  return async function call(method, path, body) {
    const headers = { 'X-Api-Key': apiKey };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
}

// Polls `fn` until it returns a truthy value; bounded.
export async function eventually(fn, what, timeoutMs = 5000, everyMs = 50) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function launchBrowser() {
  assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath} (apt-get install chromium)`);
  return chromium.launch({ executablePath: chromiumPath, headless: true,
                           args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

// The status lines Chromium itself logs for an HTTP error answer: expected
// for the sign-in calls the tests make fail on purpose, nothing else.
// A conversation's summary is 404 until one is generated (docs/api/openapi.yaml),
// so the customer panel's ask for it may log one too.
const EXPECTED_STATUS_LOGS = [
  { path: /^\/api\/auth\/session$/, status: 401 },
  { path: /^\/api\/auth\/login$/, status: 401 },
  { path: /^\/api\/auth\/login$/, status: 429 },
  { path: /^\/api\/chat\/conversations\/[^/]+\/summary$/, status: 404 },
];

// Records, for every page of `context`: requests to another origin, console
// errors, uncaught exceptions, CSP violations (securitypolicyviolation, which
// the page cannot swallow). `report()` lists them; [] when the page behaved.
export async function watchContext(context, base) {
  const origin = new URL(base).origin;
  const problems = [];
  const requests = [];
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window.__cspViolations = window.__cspViolations || []).push(
        `${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
    });
  });
  const attach = (page) => {
    page.on('request', (req) => {
      const url = req.url();
      requests.push(url);
      if (url.startsWith('data:') || url.startsWith('blob:')) return;
      let o;
      try { o = new URL(url).origin; } catch { o = url; }
      if (o !== origin) problems.push(`request to another origin: ${req.method()} ${url}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught exception: ${e && e.stack ? e.stack : e}`));
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const text = m.text();
      const status = text.match(/^Failed to load resource: the server responded with a status of (\d+)/);
      if (status) {
        let path = '';
        try { path = new URL(m.location().url).pathname; } catch { /* none */ }
        if (EXPECTED_STATUS_LOGS.some((x) => x.path.test(path) && x.status === Number(status[1]))) return;
      }
      problems.push(`console error: ${text} (${m.location().url}:${m.location().lineNumber})`);
    });
  };
  context.on('page', attach);
  for (const p of context.pages()) attach(p);
  return { problems, requests, report: () => problems.slice() };
}

export async function newInboxContext(browser, base, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...opts });
  context.setDefaultTimeout(10000);
  const watch = await watchContext(context, base);
  const page = await context.newPage();
  return { context, page, watch };
}

// Signs in through the sign-in screen; resolves when the inbox is up.
export async function signIn(page, base, email = DEMO_EMAIL, password = DEMO_PASSWORD) {
  await page.goto(`${base}/inbox/`);
  const form = page.getByRole('main');
  await form.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

export const list = (page) => page.getByRole('list', { name: 'Conversations', exact: true });
export const rowButtons = (page) => list(page).locator('li [data-conversation-id]');
export const rowFor = (page, id) => list(page).locator(`li [data-conversation-id="${id}"]`);
export const thread = (page) => page.getByRole('region', { name: 'Conversation', exact: true });
export const messagesLog = (page) => page.getByRole('log', { name: 'Messages', exact: true });
export const composer = (page, note = false) =>
  page.getByRole('textbox', { name: note ? 'Internal note' : 'Reply', exact: true });

export function artifactPath(name) {
  mkdirSync(artifacts, { recursive: true });
  return join(artifacts, name);
}

// Conversation ids in list order, as the page shows them.
export async function rowIds(page) {
  return rowButtons(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-conversation-id')));
}
