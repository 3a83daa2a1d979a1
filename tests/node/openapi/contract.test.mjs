// The REST contract check: every exchange the REST suites recorded (the in-
// process fixtures of tests/rest and tests/webhooks append one JSON line per
// request when LIVECHAT_CONTRACT_DIR is set; see tests/support/
// exchange_recorder.h) is replayed against docs/api/openapi.json:
//
//   - the path and method resolve to a documented operation, or the answer
//     is one of the documented path-independent errors (404 for an unknown
//     path, 405 with an Allow header naming exactly the documented methods);
//   - the status is one the operation documents;
//   - the body validates against that response's schema with ajv (JSON
//     Schema 2020-12, strict): a missing required key, an undeclared key
//     (additionalProperties/unevaluatedProperties false) or a wrong type fails;
//   - every header the response declares required is present and valid.
//
// /api/chat/... (the admin inbox mirror) is checked against the /chat/...
// operation it mirrors, without the rate-limit headers (docs/api/README.md).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const doc = JSON.parse(readFileSync(join(here, '..', '..', '..', 'docs', 'api', 'openapi.json'), 'utf8'));
const recordDir = process.env.LIVECHAT_CONTRACT_DIR;
// The suites that must have recorded, and a floor on the traffic: a recorder
// that silently stopped would otherwise pass with nothing checked.
const REQUIRED_SUITES = (process.env.LIVECHAT_CONTRACT_SUITES ?? 'rest,webhooks').split(',');
const MIN_EXCHANGES = Number(process.env.LIVECHAT_CONTRACT_MIN ?? 500);

// ---- schemas: components.schemas as one ajv schema, refs rewritten ----
function rewriteRefs(node) {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `components#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'components', $defs: rewriteRefs(doc.components.schemas) });

function deref(obj) {
  let o = obj;
  while (o && o.$ref) {
    const parts = o.$ref.replace(/^#\//, '').split('/');
    o = parts.reduce((acc, p) => acc[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return o;
}

const validators = new Map();
function validatorFor(key, schema) {
  if (!validators.has(key)) validators.set(key, ajv.compile(rewriteRefs(schema)));
  return validators.get(key);
}

// ---- routing: documented path templates, literal segments first ----
const templates = Object.keys(doc.paths).map((path) => {
  const regex = new RegExp('^' + path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+') + '$');
  const literals = path.split('/').filter((s) => s && !s.startsWith('{')).length;
  return { path, regex, literals };
}).sort((a, b) => b.literals - a.literals);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// `method`: an /api/chat/... path documented in its own right (an admin-only
// operation such as DELETE /api/chat/customers/{customerUuid}) resolves to
// itself for the methods it documents, and mirrors /chat/... for the others
// when there is such a path.
function resolve(rawPath, method) {
  const own = templates.find((x) => x.regex.test(rawPath));
  if (own && rawPath.startsWith('/api/chat/') && method && doc.paths[own.path][method.toLowerCase()])
    return { template: own.path, mirror: false };
  let path = rawPath;
  let mirror = false;
  if (path.startsWith('/api/chat/') || path === '/api/chat') {
    path = path.slice(4);
    mirror = true;
  }
  const t = templates.find((x) => x.regex.test(path));
  // An admin-only path with no /chat/... twin (the inbox's star, files,
  // counts) is its own, whatever the method.
  if (!t && own && rawPath.startsWith('/api/chat/')) return { template: own.path, mirror: false };
  return { template: t?.path, mirror };
}

let recordings;
function loadRecordings() {
  recordings ??= readRecordings();
  return recordings;
}

function readRecordings() {
  assert.ok(recordDir, 'LIVECHAT_CONTRACT_DIR is not set: nothing to check');
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl')) files.push(p);
    }
  };
  walk(recordDir);
  const exchanges = [];
  for (const f of files) {
    const suite = f.slice(f.lastIndexOf('/') + 1).replace(/-\d+\.jsonl$/, '');
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (line) exchanges.push({ suite, ...JSON.parse(line) });
    }
  }
  return exchanges;
}

// ajv's messages plus the key they concern (unevaluatedProperty, missingProperty, ...).
function describe(errors) {
  return errors.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ');
}

const GENERIC_ERRORS = {
  400: 'INVALID_PARAMS', 401: ['UNAUTHENTICATED', 'INVALID_API_KEY'], 404: 'NOT_FOUND', 429: 'RATE_LIMITED',
};

function checkErrorBody(ex, codes) {
  const v = validatorFor('Error', { $ref: '#/components/schemas/Error' });
  const body = JSON.parse(ex.body);
  if (!v(body)) return `error body: ${ajv.errorsText(v.errors)}`;
  const allowed = [codes].flat();
  if (!allowed.includes(body.error.code)) return `error code ${body.error.code}, expected ${allowed.join(' or ')}`;
  return null;
}

// One problem string, or null when the exchange honours the document.
function check(ex) {
  const path = ex.target.split('?')[0];
  const { template, mirror } = resolve(path, ex.method);
  const method = ex.method.toLowerCase();
  const item = template ? doc.paths[template] : undefined;
  // Methods are case-sensitive: "get" is not GET (and is answered 405).
  const op = METHODS.includes(method) && ex.method === ex.method.toUpperCase() ? item?.[method] : undefined;
  if (!op) {
    // Answered before routing (authentication, rate limit, a malformed
    // target) or by routing itself (unknown path, unsupported method).
    if (ex.status === 405) {
      if (!item) return `405 on undocumented path ${path}`;
      const adminOnly = mirror ? doc.paths[`/api${template}`] : undefined;
      const documented = METHODS.filter((m) => item[m] || adminOnly?.[m]).map((m) => m.toUpperCase()).sort();
      const allow = (ex.headers.allow ?? '').split(',').map((s) => s.trim()).filter(Boolean).sort();
      if (JSON.stringify(allow) !== JSON.stringify(documented))
        return `405 Allow "${ex.headers.allow}" but the document has ${documented.join(', ')} on ${template}`;
      return checkErrorBody(ex, 'METHOD_NOT_ALLOWED');
    }
    const codes = GENERIC_ERRORS[ex.status];
    if (!codes) return `${ex.method} ${path}: no operation, and status ${ex.status} is not a path-independent error`;
    return checkErrorBody(ex, codes);
  }
  // The template the adapter reported (metric labels) must be the document's.
  if (ex.route && ex.route !== (mirror ? `/api${template}` : template))
    return `${ex.method} ${path}: adapter reported route ${ex.route}, the document's is ${template}`;
  const response = deref(op.responses[String(ex.status)]);
  if (!response) return `${ex.method} ${template}: undocumented status ${ex.status}`;
  const contentType = (ex.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const media = response.content?.['application/json'];
  if (contentType === 'text/event-stream') {
    const problem = checkEventStream(ex, template, response);
    if (problem) return problem;
  } else if (media) {
    let body;
    try {
      body = JSON.parse(ex.body);
    } catch {
      return `${ex.method} ${template} ${ex.status}: body is not JSON`;
    }
    const key = `${method} ${template} ${ex.status}`;
    const v = validatorFor(key, media.schema);
    if (!v(body)) return `${key}: ${describe(v.errors)}\n  body: ${ex.body.slice(0, 600)}`;
  } else if (ex.body && !Object.keys(response.content ?? {}).length) {
    // Other media types (a file's bytes) have no schema to check.
    return `${ex.method} ${template} ${ex.status}: a body where none is documented`;
  }
  for (const [name, h] of Object.entries(response.headers ?? {})) {
    const header = deref(h);
    const value = ex.headers[name.toLowerCase()];
    const isRateHeader = /^x-ratelimit-|^ratelimit(-policy)?$|^retry-after$/i.test(name);
    if (value === undefined) {
      if (header.required && !(mirror && isRateHeader)) return `${ex.method} ${template} ${ex.status}: header ${name} missing`;
      continue;
    }
    const v = validatorFor(`header ${name} ${JSON.stringify(header.schema)}`, header.schema);
    if (!v(value)) return `${ex.method} ${template} ${ex.status}: header ${name}="${value}": ${ajv.errorsText(v.errors)}`;
  }
  return null;
}


// A live stream (text/event-stream): documented for this response, and each
// event's data valid against the media's x-sse-data schema, with the SSE id
// and event name the data's own cursor and type.
function checkEventStream(ex, template, response) {
  const media = response.content?.['text/event-stream'];
  const key = `${ex.method} ${template} ${ex.status} text/event-stream`;
  if (!media) return `${key}: not documented`;
  if (!media['x-sse-data']) return `${key}: no x-sse-data schema for the events' data`;
  const v = validatorFor(key, media['x-sse-data']);
  for (const block of ex.body.split('\n\n')) {
    const fields = {};
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
    }
    if (fields.data === undefined) continue;
    let data;
    try {
      data = JSON.parse(fields.data);
    } catch {
      return `${key}: an event's data is not JSON`;
    }
    if (!v(data)) return `${key}: ${describe(v.errors)}\n  data: ${fields.data.slice(0, 600)}`;
    if (fields.id !== data.cursor || fields.event !== data.type)
      return `${key}: id "${fields.id}" / event "${fields.event}" are not the data's cursor and type`;
  }
  return null;
}

// An outbound delivery against doc.webhooks[event]: its declared headers and body.
function checkDelivery(d) {
  const event = d.headers['x-webhook-event'];
  const op = doc.webhooks[event]?.post;
  if (!op) return `delivery of undocumented event "${event}"`;
  for (const p of op.parameters.map(deref)) {
    const value = d.headers[p.name.toLowerCase()];
    if (value === undefined) {
      if (p.required) return `delivery ${event}: header ${p.name} missing`;
      continue;
    }
    const v = validatorFor(`param ${p.name}`, p.schema);
    if (!v(value)) return `delivery ${event}: header ${p.name}="${value}": ${describe(v.errors)}`;
  }
  const v = validatorFor(`webhook ${event}`, op.requestBody.content['application/json'].schema);
  let body;
  try {
    body = JSON.parse(d.body);
  } catch {
    return `delivery ${event}: body is not JSON`;
  }
  if (!v(body)) return `delivery ${event}: ${describe(v.errors)}\n  body: ${d.body.slice(0, 600)}`;
  return null;
}

test('every webhook delivery the suites made honours the document\'s webhooks', () => {
  const deliveries = loadRecordings().filter((e) => e.kind === 'webhook');
  assert.ok(deliveries.length >= 50, `only ${deliveries.length} deliveries recorded`);
  const problems = new Map();
  const events = new Set();
  for (const d of deliveries) {
    events.add(d.headers['x-webhook-event']);
    const p = checkDelivery(d);
    if (p) problems.set(p, (problems.get(p) ?? 0) + 1);
  }
  console.log(`${deliveries.length} deliveries of ${[...events].sort().join(', ')}`);
  assert.equal(problems.size, 0, [...problems].map(([p, n]) => `${n} x ${p}`).join('\n'));
});

test('every recorded REST response honours docs/api/openapi.json', () => {
  const exchanges = loadRecordings().filter((e) => e.kind !== 'webhook');
  const suites = new Set(exchanges.map((e) => e.suite));
  for (const s of REQUIRED_SUITES) assert.ok(suites.has(s), `no recordings from the ${s} suite in ${recordDir}`);
  assert.ok(exchanges.length >= MIN_EXCHANGES, `only ${exchanges.length} exchanges recorded (expected >= ${MIN_EXCHANGES})`);

  const problems = new Map();  // problem -> count, so one drift reads as one line
  const covered = new Map();
  for (const ex of exchanges) {
    const p = check(ex);
    if (p) problems.set(p, (problems.get(p) ?? 0) + 1);
    const { template } = resolve(ex.target.split('?')[0], ex.method);
    if (template) {
      const k = `${ex.method} ${template}`;
      covered.set(k, (covered.get(k) ?? 0) + 1);
    }
  }
  const uncovered = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const m of METHODS) if (item[m] && !covered.has(`${m.toUpperCase()} ${path}`)) uncovered.push(`${m.toUpperCase()} ${path}`);
  console.log(`${exchanges.length} exchanges from ${[...suites].join(', ')}; ${covered.size} operations exercised`);
  const report = [...problems].map(([p, n]) => `${n} x ${p}`).join('\n');
  assert.equal(problems.size, 0, `responses that break the contract:\n${report}`);
  // A documented operation no suite calls is a promise nothing checks.
  assert.deepEqual(uncovered, [], 'documented operations no recorded suite exercised');
});
