// graphql-js (a client none of us wrote) against a running livechatd.
//
//   1. getIntrospectionQuery() with every option over HTTP, without
//      credentials -> buildClientSchema -> printSchema equals
//      docs/graphql/schema.graphql.
//   2. For every document of documents.json written against the customer
//      schema, livechatd's verdict (400 GRAPHQL_PARSE_FAILED /
//      GRAPHQL_VALIDATION_FAILED vs accepted) agrees with graphql-js's
//      parse + validate.
//   3. Paging forward (first/after), then backward (last/before), over a
//      seeded store visits every customer exactly once, in the same order.
//
// Needs LIVECHAT_BIN_DIR (the build's hosts/ folder, with livechatd and
// livechatctl); ctest sets it. Everything runs on 127.0.0.1 and stops itself.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { buildClientSchema, buildSchema, getIntrospectionQuery, parse, printSchema, validate } from 'graphql';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const bin = process.env.LIVECHAT_BIN_DIR;
const sdl = readFileSync(join(root, 'docs', 'graphql', 'schema.graphql'), 'utf8');
const CUSTOMERS = 57;

let dir;
let server;
let base;
let appId;
let key;

function ctl(...args) {
  return JSON.parse(execFileSync(join(bin, 'livechatctl'), ['--db', join(dir, 'g.db'), ...args], { encoding: 'utf8' }));
}

before(async () => {
  assert.ok(bin, 'LIVECHAT_BIN_DIR must name the folder holding livechatd and livechatctl');
  dir = mkdtempSync(join(tmpdir(), 'livechat-gql-'));
  const store = ctl('store', 'create', '--name', 'GraphQL', '--plan', 'pro');
  appId = store.appId;
  key = ctl('key', 'create', '--store', store.id, '--name', 'gql', '--permissions', 'read_customers').key;
  for (let i = 0; i < CUSTOMERS; i++) {
    ctl('conversation', 'start', '--store', store.id, '--channel', i % 2 ? 'email' : 'whatsapp', '--customer-name',
        `Customer ${i}`, '--customer-email', `c${i}@example.test`, '--text', 'hello');
  }
  server = spawn(join(bin, 'livechatd'), ['--db', join(dir, 'g.db'), '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0', '--access-log', 'off'],
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

after(() => {
  if (server) server.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function gql(query, variables, withCredentials = true) {
  const headers = { 'Content-Type': 'application/json' };
  if (withCredentials) Object.assign(headers, { 'x-api-id': appId, 'x-api-secret': key });
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() };
}

test('introspection over HTTP, without credentials, rebuilds exactly the shipped schema', async () => {
  const q = getIntrospectionQuery({
    descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true,
    inputValueDeprecation: true,
  });
  const { status, body } = await gql(q, undefined, false);
  assert.equal(status, 200);
  assert.equal(body.errors, undefined);
  assert.equal(printSchema(buildClientSchema(body.data)) + '\n', sdl);
});

test("livechatd's verdicts agree with graphql-js's validate on the customer schema", async () => {
  const schema = buildSchema(sdl);
  // An empty body query is a transport error (400 BAD_REQUEST, spec), not a
  // GraphQL document, so it is left out here.
  const docs = JSON.parse(readFileSync(join(here, 'documents.json'), 'utf8'))
    .filter((d) => d.schema === 'customer' && d.query !== '');
  assert.ok(docs.length >= 20, `expected a real set of documents, got ${docs.length}`);
  for (const d of docs) {
    const text = d.query;
    let jsVerdict;
    try {
      const document = parse(text);
      let invalid = validate(schema, document).length > 0;
      // graphql-js 16 refuses a mutation/subscription against a query-only
      // schema at execution, we in validation (graphql-js 17's behaviour).
      if (d.operationTypeCheck && !invalid)
        invalid = document.definitions.some((def) => def.kind === 'OperationDefinition' && !schema.getRootType(def.operation));
      jsVerdict = invalid ? 'invalid' : 'valid';
    } catch {
      jsVerdict = 'syntax';
    }
    const { status, body } = await gql(text);
    const code = body.errors?.[0]?.extensions?.code;
    const ours = code === 'GRAPHQL_PARSE_FAILED' ? 'syntax' : code === 'GRAPHQL_VALIDATION_FAILED' ? 'invalid' : 'valid';
    assert.equal(ours, jsVerdict, `document: ${text}\nlivechatd answered ${status} ${JSON.stringify(body.errors)}`);
  }
});

test('paging forward then backward visits every customer exactly once', async () => {
  const forward = [];
  let cursor = null;
  for (let guard = 0; guard < 100; guard++) {
    const { body } = await gql(
      'query($after: String) { customers(first: 10, after: $after) { totalCount edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }',
      { after: cursor });
    assert.equal(body.errors, undefined);
    const c = body.data.customers;
    assert.equal(c.totalCount, CUSTOMERS);
    forward.push(...c.edges.map((e) => e.node.id));
    if (!c.pageInfo.hasNextPage) break;
    cursor = c.pageInfo.endCursor;
  }
  assert.equal(forward.length, CUSTOMERS);
  assert.equal(new Set(forward).size, CUSTOMERS);
  const backward = [];
  cursor = null;
  for (let guard = 0; guard < 100; guard++) {
    const { body } = await gql(
      'query($before: String) { customers(last: 10, before: $before) { nodes { id } pageInfo { hasPreviousPage startCursor } } }',
      { before: cursor });
    assert.equal(body.errors, undefined);
    const c = body.data.customers;
    backward.unshift(...c.nodes.map((n) => n.id));
    if (!c.pageInfo.hasPreviousPage) break;
    cursor = c.pageInfo.startCursor;
  }
  assert.deepEqual(backward, forward);
});
