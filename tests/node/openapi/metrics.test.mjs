// livechatd's observability against a running process: /metrics on the admin
// listener parsed by a strict Prometheus text parser (prom-text.mjs), each
// metric moving when its event happens (admin sign-in failures and throttling
// included); /healthz, /readyz; X-Request-Id.
//
// The webhook receiver is a real HTTPS server on 127.0.0.1 with a throwaway
// certificate (openssl CLI) that livechatd trusts through --webhook-ca-file.
// SQLite contention comes from a second process (python3's sqlite3) holding
// the database's write lock.
//
// Needs LIVECHAT_BIN_DIR (the build's hosts/ folder); ctest sets it.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { parsePrometheusText, sampleValue } from './prom-text.mjs';

const bin = process.env.LIVECHAT_BIN_DIR;
const KEY_LIMIT = 30;

let dir;
let db;
let server;
let stderr = '';
let base;
let admin;
let key;
let storeId;
let appId;
let receiver;
let receiverUrl;
const held = [];  // webhook requests the receiver has not answered yet
const received = [];

function ctl(...args) {
  return JSON.parse(execFileSync(join(bin, 'livechatctl'), ['--db', db, ...args], { encoding: 'utf8' }));
}

function waitFor(pred, what, ms = 10000) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = async () => {
      try {
        const v = await pred();
        if (v) return resolve(v);
      } catch (e) {
        return reject(e);
      }
      if (Date.now() - t0 > ms) return reject(new Error(`timed out waiting for ${what}\nlivechatd stderr:\n${stderr}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

before(async () => {
  assert.ok(bin, 'LIVECHAT_BIN_DIR must name the folder holding livechatd and livechatctl');
  dir = mkdtempSync(join(tmpdir(), 'livechat-metrics-'));
  db = join(dir, 'm.db');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  receiver = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        held.push(res);
      });
    });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `https://127.0.0.1:${receiver.address().port}/hook`;

  const store = ctl('store', 'create', '--name', 'Metrics', '--plan', 'pro');
  storeId = store.id;
  appId = store.appId;
  key = ctl('key', 'create', '--store', storeId, '--name', 'metrics', '--permissions',
            'read_conversations,manage_conversations,read_customers').key;
  server = spawn(join(bin, 'livechatd'), ['--db', db, '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0',
    '--webhook-allow-private-targets', '--webhook-ca-file', join(dir, 'cert.pem'), '--rate-limit-key',
    String(KEY_LIMIT), '--webhook-retry-delays', '1h,1h,1h,1h,1h,1h', '--graphql-bucket', '3', '--graphql-refill', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr.on('data', (c) => { stderr += c; });
  [base, admin] = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`livechatd did not start in 10 s\n${stderr}`)), 10000);
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/^listening on (\S+)$/m);
      const a = out.match(/^admin listener on (\S+) /m);
      if (m && a) {
        clearTimeout(timer);
        resolve([`http://${m[1]}`, `http://${a[1]}`]);
      }
    });
    server.on('exit', (code) => reject(new Error(`livechatd exited with ${code}\n${stderr}`)));
  });
});

after(async () => {
  for (const res of held.splice(0)) res.end();
  if (server) {
    const exited = new Promise((r) => server.on('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let scrapes = 0;  // every scrape counts itself on the admin listener
async function scrape() {
  ++scrapes;
  const res = await fetch(`${admin}/metrics`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await res.text());
}

// livechatd counts a request after its response is written (the duration
// includes the write), so a client that holds an answer may scrape before
// that answer is counted: scrape until `settled(m)` holds, for at most 2 s,
// and return the last scrape either way so the assertions report the values.
async function scrapeSettled(settled) {
  const deadline = Date.now() + 2000;
  for (;;) {
    const m = await scrape();
    if (settled(m) || Date.now() > deadline) return m;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function api(method, path, body) {
  const headers = { 'X-Api-Key': key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

const requests = (m, route, method, status) =>
  sampleValue(m, 'livechat_http_requests_total', { route, method, status: String(status) }) ?? 0;
const latencyCount = (m, route, method) =>
  sampleValue(m, 'livechat_http_request_duration_seconds_count', { route, method }) ?? 0;

test('every family renders with HELP and TYPE; the exposition parses strictly', async () => {
  assert.equal((await fetch(`${base}/healthz`)).status, 200);  // request families appear with their first child
  const m = await scrape();
  const want = {
    livechat_http_requests_total: 'counter',
    livechat_http_request_duration_seconds: 'histogram',
    livechat_rate_limit_refusals_total: 'counter',
    livechat_login_failures_total: 'counter',
    livechat_login_throttled_total: 'counter',
    livechat_webhook_queue_depth: 'gauge',
    livechat_webhook_oldest_pending_age_seconds: 'gauge',
    livechat_sqlite_busy_retries_total: 'counter',
    livechat_sqlite_checkpoints_background_total: 'counter',
    livechat_sqlite_checkpoints_writer_total: 'counter',
    livechat_sqlite_wal_pages: 'gauge',
    livechat_store_writes_total: 'counter',
    livechat_store_write_transactions_total: 'counter',
    livechat_event_streams_open: 'gauge',
    livechat_storefront_polls_waiting: 'gauge',
  };
  for (const [name, type] of Object.entries(want)) {
    assert.equal(m.get(name)?.type, type, name);
    assert.ok(m.get(name).help.length > 0, `${name} has help`);
  }
  assert.equal(sampleValue(m, 'livechat_webhook_queue_depth'), 0);
  assert.equal(sampleValue(m, 'livechat_webhook_oldest_pending_age_seconds'), 0);
  assert.equal(sampleValue(m, 'livechat_login_throttled_total', { scope: 'account' }), 0);
  assert.equal(sampleValue(m, 'livechat_login_throttled_total', { scope: 'address' }), 0);
  assert.equal(sampleValue(m, 'livechat_event_streams_open'), 0);
  assert.equal(sampleValue(m, 'livechat_storefront_polls_waiting'), 0);
});

test('an open live change feed is counted while it is open', async () => {
  const ac = new AbortController();
  const res = await fetch(`${base}/chat/events`, {
    headers: { 'X-Api-Key': key, Accept: 'text/event-stream' }, signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  await reader.read();  // the first piece (retry:, then the events so far) has been sent
  assert.equal(sampleValue(await scrape(), 'livechat_event_streams_open'), 1);
  ac.abort();
});

test('wrong admin passwords count as login failures; past 5, attempts are throttled with 429 and counted', async () => {
  ctl('member', 'create', '--store', storeId, '--email', 'owner@metrics.test', '--role', 'admin',
      '--password', 'long enough password');
  const login = (password) => fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: 'owner@metrics.test', password }),
  });
  const before = await scrape();
  const failuresBefore = sampleValue(before, 'livechat_login_failures_total');
  for (let i = 0; i < 5; i++) assert.equal((await login(`guess ${i}`)).status, 401);
  // The 5th failure started a 1 s wait: the right password is refused unchecked.
  const refused = await login('long enough password');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.equal((await refused.json()).error.code, 'RATE_LIMITED');
  const m = await scrapeSettled((s) =>
    requests(s, '/api/auth/login', 'POST', 401) - requests(before, '/api/auth/login', 'POST', 401) >= 5 &&
    requests(s, '/api/auth/login', 'POST', 429) - requests(before, '/api/auth/login', 'POST', 429) >= 1);
  assert.equal(sampleValue(m, 'livechat_login_failures_total') - failuresBefore, 5);
  assert.equal(sampleValue(m, 'livechat_login_throttled_total', { scope: 'account' }), 1);
  assert.equal(sampleValue(m, 'livechat_login_throttled_total', { scope: 'address' }), 0);
  assert.equal(requests(m, '/api/auth/login', 'POST', 429) - requests(before, '/api/auth/login', 'POST', 429), 1);
  assert.equal(requests(m, '/api/auth/login', 'POST', 401) - requests(before, '/api/auth/login', 'POST', 401), 5);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal((await login('long enough password')).status, 200);
});

test('a request adds one to its route template and status, and one latency observation', async () => {
  const conv = ctl('conversation', 'start', '--store', storeId, '--customer-name', 'Ann', '--text', 'hi');
  const before = await scrape();
  const scrapesBefore = scrapes;
  const route = '/chat/conversations/{conversationId}';
  assert.equal((await api('GET', `/chat/conversations/${conv.id}`)).status, 200);
  assert.equal((await api('GET', '/chat/conversations/no-such-id')).status, 404);
  assert.equal((await api('GET', '/chat/nothing-here')).status, 404);
  const m = await scrapeSettled((s) => latencyCount(s, route, 'GET') - latencyCount(before, route, 'GET') >= 2 &&
    requests(s, 'unmatched', 'GET', 404) - requests(before, 'unmatched', 'GET', 404) >= 1);
  assert.equal(requests(m, route, 'GET', 200) - requests(before, route, 'GET', 200), 1);
  assert.equal(requests(m, route, 'GET', 404) - requests(before, route, 'GET', 404), 1);
  assert.equal(requests(m, 'unmatched', 'GET', 404) - requests(before, 'unmatched', 'GET', 404), 1);
  assert.equal(latencyCount(m, route, 'GET') - latencyCount(before, route, 'GET'), 2);
  // Each scrape counts itself on the admin listener: `before` and every one
  // but the last that scrapeSettled made are in `m`.
  assert.equal(requests(m, '/metrics', 'GET', 200) - requests(before, '/metrics', 'GET', 200), scrapes - scrapesBefore);
});

test('/healthz and /readyz answer on both listeners; /metrics only on the admin one', async () => {
  for (const origin of [base, admin]) {
    const h = await fetch(`${origin}/healthz`);
    assert.equal(h.status, 200);
    assert.deepEqual(await h.json(), { status: 'ok' });
    const r = await fetch(`${origin}/readyz`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { status: 'ready', checks: { database: 'ok', migrations: 'ok', writes: 'ok', dispatcher: 'ok' } });
  }
  const onMain = await fetch(`${base}/metrics`);
  assert.equal(onMain.status, 404);
  assert.equal((await onMain.json()).error.code, 'NOT_FOUND');
  const apiOnAdmin = await fetch(`${admin}/chat/members`, { headers: { 'X-Api-Key': key } });
  assert.equal(apiOnAdmin.status, 404);
});

test('X-Request-Id: a valid one is echoed, an invalid or missing one is replaced by 32 hex digits', async () => {
  const ok = 'req-1.A_b:c';
  assert.equal((await fetch(`${base}/healthz`, { headers: { 'X-Request-Id': ok } })).headers.get('x-request-id'), ok);
  const max = 'a'.repeat(128);
  assert.equal((await fetch(`${base}/healthz`, { headers: { 'X-Request-Id': max } })).headers.get('x-request-id'), max);
  for (const bad of ['a'.repeat(129), 'has space', 'quote"d', '']) {
    const id = (await fetch(`${base}/healthz`, { headers: { 'X-Request-Id': bad } })).headers.get('x-request-id');
    assert.match(id, /^[0-9a-f]{32}$/, `replaces ${JSON.stringify(bad)}`);
  }
  const a = (await api('GET', '/chat/members')).headers.get('x-request-id');
  const b = (await api('GET', '/chat/members')).headers.get('x-request-id');
  assert.match(a, /^[0-9a-f]{32}$/);
  assert.notEqual(a, b);
  // The access log line carries it.
  await waitFor(() => stderr.includes(`"requestId":"${ok}"`), 'the access log line with the request id');
});

test('a webhook delivery moves queue depth, oldest pending age, outcome counter and latency histogram', async () => {
  const sub = await api('POST', '/chat/webhooks', { url: receiverUrl, events: ['message.created'] });
  assert.equal(sub.status, 201, await sub.clone().text());
  const before = await scrape();
  const okBefore = sampleValue(before, 'livechat_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0;
  const durBefore = sampleValue(before, 'livechat_webhook_delivery_duration_seconds_count') ?? 0;

  // Queued by another process; the receiver holds the request unanswered.
  ctl('conversation', 'start', '--store', storeId, '--customer-name', 'Bo', '--text', 'webhook please');
  await waitFor(() => received.length === 1, 'the delivery to reach the receiver');
  let m = await scrape();
  assert.equal(sampleValue(m, 'livechat_webhook_queue_depth'), 1, 'the held delivery is still pending');
  // Due since it was queued: its age grows while the receiver holds it.
  await new Promise((r) => setTimeout(r, 1200));
  m = await scrape();
  assert.ok(sampleValue(m, 'livechat_webhook_oldest_pending_age_seconds') >= 1,
            'oldest pending age counts the seconds since it fell due');

  held.shift().writeHead(200).end('ok');
  // The outcome is written, then counted: wait for both.
  m = await waitFor(async () => {
    const s = await scrape();
    const counted = sampleValue(s, 'livechat_webhook_deliveries_total', { outcome: 'succeeded' }) - okBefore === 1;
    return sampleValue(s, 'livechat_webhook_queue_depth') === 0 && counted ? s : null;
  }, 'the queue to drain and the attempt to be counted');
  assert.equal(sampleValue(m, 'livechat_webhook_deliveries_total', { outcome: 'succeeded' }) - okBefore, 1);
  assert.equal(sampleValue(m, 'livechat_webhook_delivery_duration_seconds_count') - durBefore, 1);
  assert.ok(sampleValue(m, 'livechat_webhook_delivery_duration_seconds_sum') >= 1, 'the held second is in the sum');
  assert.equal(sampleValue(m, 'livechat_webhook_oldest_pending_age_seconds'), 0);

  // A 500 schedules a retry an hour out: outcome "retrying", still pending, not overdue.
  ctl('conversation', 'start', '--store', storeId, '--customer-name', 'Cy', '--text', 'again');
  await waitFor(() => received.length === 2, 'the second delivery');
  held.shift().writeHead(500).end('no');
  m = await waitFor(async () => {
    const s = await scrape();
    return sampleValue(s, 'livechat_webhook_deliveries_total', { outcome: 'retrying' }) === 1 ? s : null;
  }, 'the retrying outcome');
  assert.equal(sampleValue(m, 'livechat_webhook_queue_depth'), 1);
  assert.equal(sampleValue(m, 'livechat_webhook_oldest_pending_age_seconds'), 0);
  assert.equal(sampleValue(m, 'livechat_webhook_delivery_duration_seconds_count') - durBefore, 2);
});

test('a write that waits for another process\'s SQLite lock counts busy retries', async () => {
  const conv = ctl('conversation', 'start', '--store', storeId, '--customer-name', 'Di', '--text', 'lock');
  const before = sampleValue(await scrape(), 'livechat_sqlite_busy_retries_total');
  const locker = spawn('python3', ['-c', `
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN IMMEDIATE')
print('locked', flush=True)
time.sleep(0.8)
c.execute('COMMIT')
`, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => locker.on('exit', r));
  await new Promise((resolve) => locker.stdout.once('data', resolve));
  const res = await api('POST', `/chat/conversations/${conv.id}/notes`, { text: 'written after the lock' });
  assert.equal(res.status, 201);
  await exited;
  const after = sampleValue(await scrape(), 'livechat_sqlite_busy_retries_total');
  assert.ok(after > before, `busy retries ${before} -> ${after}`);
});

test('429s add to the refusal counter one for one; the API key scope is labelled', async () => {
  const before = await scrape();
  const refusedBefore = sampleValue(before, 'livechat_rate_limit_refusals_total', { scope: 'key' });
  let refused = 0;
  for (let i = 0; i < KEY_LIMIT + 3; i++) {
    const r = await api('GET', '/chat/members');
    if (r.status === 429) {
      refused++;
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
    }
  }
  assert.ok(refused >= 3, `at least 3 refusals (got ${refused})`);
  // The last request is counted once its answer is written (scrapeSettled).
  const m = await scrapeSettled((s) =>
    requests(s, '/chat/members', 'GET', 429) - requests(before, '/chat/members', 'GET', 429) >= refused);
  assert.equal(sampleValue(m, 'livechat_rate_limit_refusals_total', { scope: 'key' }) - refusedBefore, refused);
  assert.equal(requests(m, '/chat/members', 'GET', 429) - requests(before, '/chat/members', 'GET', 429), refused);
});

test('a GraphQL query over its cost budget is THROTTLED and counted under scope graphql', async () => {
  const first = await scrape();
  const before = sampleValue(first, 'livechat_rate_limit_refusals_total', { scope: 'graphql' }) ?? 0;
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'x-api-id': appId, 'x-api-secret': key },
    body: JSON.stringify({ query: '{ customer(id: "nobody") { id email firstName } }' }),  // cost 4 > bucket 3
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.errors[0].extensions.code, 'THROTTLED');
  // The request is counted once its answer is written (scrapeSettled): a
  // sanitized server can still be recording it when the client scrapes.
  const m = await scrapeSettled((s) =>
    requests(s, '/graphql', 'POST', 200) - requests(first, '/graphql', 'POST', 200) >= 1);
  assert.equal(sampleValue(m, 'livechat_rate_limit_refusals_total', { scope: 'graphql' }) - before, 1);
  assert.equal(requests(m, '/graphql', 'POST', 200) - requests(first, '/graphql', 'POST', 200), 1);
});
