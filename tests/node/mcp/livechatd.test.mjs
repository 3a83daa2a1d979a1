// The official MCP TypeScript SDK (npm @modelcontextprotocol/sdk: Client +
// StreamableHTTPClientTransport), a client none of us wrote, against a
// running livechatd:
//
//   1. connect (initialize, protocol negotiation, session id) with X-App-Id
//      and a bearer key;
//   2. tools/list: 11 tools for a key without admin permissions on a store
//      with default AI settings, 15 for a legacy key, all 22 on plan plus
//      with every switch and a loyalty partner;
//   3. every tool called with valid arguments; the SDK itself checks each
//      structuredContent against the tool's outputSchema, and we check the
//      values;
//   4. invalid arguments come back as isError results;
//   5. a switch flipped with livechatctl changes the list on the next request.
//
// Needs LIVECHAT_BIN_DIR (livechatd and livechatctl); ctest sets it.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const bin = process.env.LIVECHAT_BIN_DIR;
const catalog = join(root, 'examples', 'catalog', 'sample_catalog.json');

let dir;
let server;
let base;
const stores = {};
const clients = [];

function ctl(...args) {
  return JSON.parse(execFileSync(join(bin, 'livechatctl'), ['--db', join(dir, 'm.db'), ...args], { encoding: 'utf8' }));
}

function makeStore(name, plan) {
  const store = ctl('store', 'create', '--name', name, '--plan', plan);
  ctl('catalog', 'import', '--store', store.id, '--file', catalog);
  const plain = ctl('key', 'create', '--store', store.id, '--name', 'agent',
                    '--permissions', 'read_conversations,manage_conversations,read_customers').key;
  const legacy = ctl('key', 'create', '--store', store.id, '--name', 'legacy', '--legacy').key;
  const member = ctl('member', 'create', '--store', store.id, '--email', `ada@${name.toLowerCase()}.example`,
                     '--first-name', 'Ada');
  const shopper = ctl('conversation', 'start', '--store', store.id, '--customer-name', 'Maya',
                      '--customer-email', 'maya@example.com', '--text', 'Where is my order #1001?');
  const playground = ctl('conversation', 'start', '--store', store.id, '--channel', 'playground',
                         '--customer-name', 'Tester', '--text', 'Test: do you sell merino?');
  return { id: store.id, appId: store.appId, plain, legacy, memberId: member.id, conversationId: shopper.id,
           playgroundId: playground.id };
}

async function connect(store, key) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { 'X-App-Id': store.appId, Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: 'livechat-sdk-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function names(client) {
  return (await client.listTools()).tools.map((t) => t.name);
}

before(async () => {
  assert.ok(bin, 'LIVECHAT_BIN_DIR must name the folder holding livechatd and livechatctl');
  dir = mkdtempSync(join(tmpdir(), 'livechat-mcp-'));
  stores.plain = makeStore('Default', 'pro');
  stores.full = makeStore('Everything', 'plus');
  ctl('settings', 'set', '--store', stores.full.id, '--set',
      'trainingData.products=on,trainingData.collections=on,trainingData.discounts=on,skills.sizeGuide=on,' +
      'loyaltyPartner=Smile.io');
  server = spawn(join(bin, 'livechatd'), ['--db', join(dir, 'm.db'), '--listen', '127.0.0.1:0', '--access-log', 'off',
                                          '--webhook-allow-private-targets', '--admin-listen', 'none'],
                 { stdio: ['ignore', 'pipe', 'pipe'] });
  base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('livechatd did not start in 10 s')), 10000);
    let out = '';
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/listening on (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
    server.on('exit', (code) => reject(new Error(`livechatd exited with ${code}`)));
  });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  if (server) server.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ALWAYS = ['send_message', 'faq_retrieval', 'add_note', 'update_tags', 'assign_member', 'list_members',
                'list_conversations', 'register_webhook'];
const ADMIN = ['get_setup_status', 'get_settings', 'update_settings', 'create_knowledge_entry'];

test('connect negotiates 2025-11-25, gets a session, and identifies the server', async () => {
  const { client, transport } = await connect(stores.plain, stores.plain.plain);
  assert.equal(client.getServerVersion().name, 'livechat');
  assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
  assert.equal(transport.protocolVersion, '2025-11-25');
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
  await client.ping();
});

test('default settings: 11 tools for a key without admin permissions, 15 for a legacy key', async () => {
  const plain = await connect(stores.plain, stores.plain.plain);
  assert.deepEqual(await names(plain.client),
                   [...ALWAYS, 'check_order_status', 'customer_support', 'human_agent_transfer']);
  const legacy = await connect(stores.plain, stores.plain.legacy);
  const legacyNames = await names(legacy.client);
  assert.equal(legacyNames.length, 15);
  for (const t of ADMIN) assert.ok(legacyNames.includes(t), t);
});

test('plan plus with every switch and a loyalty partner lists all 22', async () => {
  const { client } = await connect(stores.full, stores.full.legacy);
  const { tools } = await client.listTools();
  assert.equal(tools.length, 22);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema.type, 'object', t.name);
  }
});

test('a bad key or a key of another store is refused with 401', async () => {
  await assert.rejects(connect(stores.plain, 'sk_00000000000000000000000000000000'), /401|Unauthorized|Invalid/i);
  await assert.rejects(connect(stores.plain, stores.full.plain), /401|Unauthorized|Invalid/i);
});

test('every tool with valid arguments returns conforming structuredContent', async () => {
  const s = stores.full;
  const { client } = await connect(s, s.legacy);
  const call = async (name, args) => {
    const res = await client.callTool({ name, arguments: args });
    assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
    // The same JSON as text, for clients that read only content.
    assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent, name);
    return res.structuredContent;
  };
  const called = new Set();
  const run = async (name, args) => {
    called.add(name);
    return call(name, args);
  };

  const sent = await run('send_message', { conversationId: s.conversationId, text: 'Let me look that up.' });
  assert.equal(sent.message.senderType, 'bot');
  assert.equal(sent.message.isBot, true);

  const faq = await run('faq_retrieval', { query: 'how much does shipping cost', limit: 2 });
  assert.equal(faq.results.length, 2);
  assert.equal(faq.results[0].id, 'kb_shipping_cost');

  const note = await run('add_note', { conversationId: s.conversationId, text: 'Asked about #1001' });
  assert.equal(note.note.text, 'Asked about #1001');

  const tags = await run('update_tags', { conversationId: s.conversationId, tags: ['wismo', 'x'.repeat(60)] });
  assert.deepEqual(tags.tags, ['wismo', 'x'.repeat(50)]);

  const assigned = await run('assign_member', { conversationId: s.conversationId, memberId: s.memberId });
  assert.equal(assigned.memberId, s.memberId);
  const unassigned = await run('assign_member', { conversationId: s.conversationId, memberId: null });
  assert.equal(unassigned.memberId, null);

  const members = await run('list_members', {});
  assert.deepEqual(members.members.map((m) => m.email), ['ada@everything.example']);

  const convs = await run('list_conversations', {});
  assert.deepEqual(convs.conversations.map((c) => c.id), [s.playgroundId]);

  const hook = await run('register_webhook', { url: 'https://localhost/hooks/livechat', events: ['message.created'] });
  assert.match(hook.secret, /^whsec_/);

  const products = await run('product_lookup', { query: 'merino sweater' });
  assert.equal(products.products[0].id, 'prod_merino_crew');
  const faqs = await run('product_faq_lookup', { productId: 'prod_merino_crew' });
  assert.equal(faqs.faqs.length, 2);

  const cart = await run('manage_cart', { conversationId: s.conversationId, action: 'add',
                                          productId: 'prod_wool_socks', variantId: 'var_socks_m', quantity: 2 });
  assert.equal(cart.cart.subtotal, '58.00');
  assert.equal((await call('manage_cart', { conversationId: s.conversationId, action: 'get' })).cart.itemCount, 2);

  const cols = await run('collection_lookup', { query: 'winter' });
  assert.equal(cols.collections[0].id, 'col_winter');
  const disc = await run('discount_lookup', { code: 'WELCOME10' });
  assert.equal(disc.discounts[0].id, 'disc_welcome');
  assert.equal(disc.discounts[0].active, true);
  const size = await run('size_guide_lookup', {});
  assert.deepEqual(size.sizeChart.columns, ['Size', 'Chest', 'Waist', 'Hip']);
  const order = await run('check_order_status', { trackingNumber: '1Z999AA10123456784' });
  assert.equal(order.order.orderNumber, '#1001');
  const support = await run('customer_support', { conversationId: s.conversationId, type: 'refund',
                                                  orderNumber: '#1002', reason: 'Arrived damaged' });
  assert.equal(support.request.status, 'open');
  const loyalty = await run('partner_loyalty_lookup', { email: 'maya@example.com' });
  assert.equal(loyalty.account.points, 640);

  const setup = await run('get_setup_status', {});
  assert.equal(setup.scenarioCount, 2);
  assert.equal(setup.trainingCount, 13);
  const widget = await run('get_settings', { area: 'widget' });
  assert.equal(widget.settings.position, 'right');
  const updated = await run('update_settings', { area: 'widget', settings: { position: 'left' } });
  assert.equal(updated.settings.position, 'left');
  const entry = await run('create_knowledge_entry', { question: 'Do you gift wrap?', answer: 'Yes, $5.' });
  assert.equal(entry.entry.question, 'Do you gift wrap?');

  // Last: the handover (the AI lets go).
  const transfer = await run('human_agent_transfer', { conversationId: s.conversationId });
  assert.equal(transfer.message.isTransfer, true);
  assert.equal(transfer.conversation.isChatBot, false);

  const listed = (await client.listTools()).tools.map((t) => t.name);
  assert.deepEqual([...called].sort(), [...listed].sort(), 'every listed tool was called');
});

test('invalid arguments come back as isError results with a message to act on', async () => {
  const s = stores.full;
  const { client } = await connect(s, s.legacy);
  const cases = [
    ['send_message', { conversationId: s.conversationId }, 'INVALID_PARAMS: text is required'],
    ['send_message', { conversationId: s.conversationId, text: 'x'.repeat(5001) },
     'INVALID_PARAMS: text must be at most 5000 characters (got 5001)'],
    ['send_message', { conversationId: 'nope', text: 'hi' }, 'NOT_FOUND: conversation not found'],
    ['faq_retrieval', { query: 'x', limit: 50 }, 'INVALID_PARAMS: limit must be at most 20'],
    ['add_note', { conversationId: s.conversationId, text: 'n'.repeat(151) },
     'INVALID_PARAMS: text must be at most 150 characters (got 151)'],
    ['update_tags', { conversationId: s.conversationId, tags: 'vip' }, 'INVALID_PARAMS: tags must be an array'],
    ['manage_cart', { conversationId: s.conversationId, action: 'buy' },
     'INVALID_PARAMS: action must be one of get, add, update, remove, clear'],
    ['check_order_status', {}, 'INVALID_PARAMS: give orderNumber or trackingNumber'],
    ['get_settings', { area: 'billing' }, 'INVALID_PARAMS: area must be one of widget, assistant, training, skills'],
    ['product_lookup', { productId: 'nope' }, 'NOT_FOUND: product not found'],
  ];
  for (const [name, args, message] of cases) {
    const res = await client.callTool({ name, arguments: args });
    assert.equal(res.isError, true, name);
    assert.equal(res.content[0].text, message, name);
    assert.equal(res.structuredContent, undefined, name);
  }
  // A tool this key is not offered is a protocol error, not a result.
  const plain = await connect(stores.plain, stores.plain.plain);
  await assert.rejects(plain.client.callTool({ name: 'product_lookup', arguments: { query: 'x' } }),
                       /not available to this key: turn on training data: products/);
  await assert.rejects(plain.client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool: no_such_tool/);
});

test('a switch flipped in settings changes the tool list on the next request', async () => {
  const s = stores.plain;
  const { client } = await connect(s, s.plain);
  assert.ok(!(await names(client)).includes('product_lookup'));
  ctl('settings', 'set', '--store', s.id, '--set', 'trainingData.products=on,skills.humanAgentTransfer=off');
  let now = await names(client);
  assert.ok(now.includes('product_lookup'));
  assert.ok(now.includes('manage_cart'));
  assert.ok(!now.includes('human_agent_transfer'));
  assert.equal(now.length, 13);
  const res = await client.callTool({ name: 'product_lookup', arguments: { productId: 'prod_beanie' } });
  assert.equal(res.structuredContent.products[0].title, 'Ribbed Merino Beanie');
  ctl('settings', 'set', '--store', s.id, '--set', 'trainingData.products=off,skills.humanAgentTransfer=on');
  now = await names(client);
  assert.equal(now.length, 11);
});
