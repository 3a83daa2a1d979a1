// Opens N storefront widgets against livechatd and keeps each one waiting in
// a long-poll, as an open shop page does: a visitor session, one message (so
// the widget has a conversation to wait on), then GET /storefront/updates
// with wait=25 again and again. Prints "waiting N" once every first poll has
// been sent and the server holds them, then the count each second.
// Each group of 40 widgets connects from its own loopback address
// (127.2.0.1, 127.2.0.2, ...), as shoppers on many machines would: under
// livechatd's connection cap per address.
// Usage: node storefront_widgets.mjs BASE_URL APP_ID COUNT
import http from 'node:http';

const [base, appId, countText] = process.argv.slice(2);
const count = Number(countText);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const url = new URL(base);
const perAddress = 40;
const addressOf = (i) => {
  const a = Math.floor(i / perAddress);
  return `127.2.${Math.floor(a / 250)}.${(a % 250) + 1}`;
};

function call(i, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, agent, localAddress: addressOf(i),
                               headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) } },
                             (res) => {
                               let data = '';
                               res.on('data', (c) => { data += c; });
                               res.on('end', () => resolve({ status: res.statusCode, body: data ? JSON.parse(data) : null }));
                             });
    req.on('error', reject);
    req.setTimeout(60000, () => req.destroy(new Error('timeout')));
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}

let inFlight = 0;
let capped = 0;
let errors = 0;
// A widget whose request fails starts over a second later, as the SDK does.
async function widget(i) {
  for (;;) {
    try {
      await oneWidget(i);
    } catch (e) {
      errors++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
async function oneWidget(i) {
  const s = await call(i, 'POST', '/storefront/sessions', { 'X-App-Id': appId });
  if (s.status !== 201) throw new Error(`session ${i}: ${s.status}`);
  const auth = { 'X-App-Id': appId, 'X-Session-Token': s.body.data.token };
  const m = await call(i, 'POST', '/storefront/commands', auth, { command: 'message:send', args: [`widget ${i}`] });
  if (m.status !== 200) throw new Error(`message ${i}: ${m.status} ${JSON.stringify(m.body)}`);
  let cursor = m.body.data.seq;
  for (;;) {
    inFlight++;
    const u = await call(i, 'GET', `/storefront/updates?after=${cursor}&wait=25`, auth).finally(() => { inFlight--; });
    if (u.status !== 200) throw new Error(`poll ${i}: ${u.status}`);
    cursor = u.body.data.cursor;
    if (u.body.data.retryAfterMs) {
      capped++;
      await new Promise((r) => setTimeout(r, u.body.data.retryAfterMs));
    }
  }
}

// Start them in batches so setup does not look like a burst attack.
for (let i = 0; i < count; i++) {
  widget(i);
  if (i % 50 === 49) await new Promise((r) => setTimeout(r, 20));
}
const t0 = Date.now();
while (inFlight < count && Date.now() - t0 < 120000) await new Promise((r) => setTimeout(r, 100));
console.log(`waiting ${inFlight}`);
setInterval(() => console.log(`waiting ${inFlight} capped-answers ${capped} errors ${errors}`), 1000);
