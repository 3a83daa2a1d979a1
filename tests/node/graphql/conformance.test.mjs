// Our GraphQL engine against graphql-js (a client none of us wrote).
//
//   1. docs/graphql/schema.graphql is exactly what graphql-js's printSchema
//      prints for itself, and what our PrintSchema prints for the schema.
//   2. Introspection: our result for getIntrospectionQuery() (every option)
//      is deep-equal to graphql-js executing the same query on
//      buildSchema(sdl), and buildClientSchema -> printSchema gives the file.
//   3. For every document in documents.json, our parse/validate verdict and
//      errors (message and locations) equal graphql-js's parse/validate.
//
// Our side comes from the doctest "graphql-js conformance export" of
// test_graphql. Run (after `npm ci` here, offline from then on):
//   LIVECHAT_TEST_GRAPHQL=<build>/tests/test_graphql node --test
// or point LIVECHAT_GRAPHQL_CONFORMANCE at an exported JSON file instead.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  getLocation,
  graphqlSync,
  parse,
  printSchema,
  validate,
} from 'graphql';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const sdlFiles = {
  customer: process.env.LIVECHAT_GRAPHQL_SDL ?? join(root, 'docs', 'graphql', 'schema.graphql'),
  kitchen: join(root, 'tests', 'graphql', 'fixtures', 'kitchen_sink.graphql'),
};
const documents = JSON.parse(readFileSync(join(here, 'documents.json'), 'utf8'));

function loadOurs() {
  if (process.env.LIVECHAT_GRAPHQL_CONFORMANCE) {
    return JSON.parse(readFileSync(process.env.LIVECHAT_GRAPHQL_CONFORMANCE, 'utf8'));
  }
  const binary = process.env.LIVECHAT_TEST_GRAPHQL;
  if (!binary) {
    throw new Error('set LIVECHAT_TEST_GRAPHQL to the test_graphql binary (or LIVECHAT_GRAPHQL_CONFORMANCE to its export)');
  }
  const out = join(mkdtempSync(join(tmpdir(), 'livechat-graphql-')), 'conformance.json');
  execFileSync(binary, ['--test-case=graphql-js conformance export'], {
    env: { ...process.env, LIVECHAT_GRAPHQL_CONFORMANCE_OUT: out },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return JSON.parse(readFileSync(out, 'utf8'));
}

const ours = loadOurs();
const schemas = Object.fromEntries(
  Object.entries(sdlFiles).map(([name, file]) => [name, { sdl: readFileSync(file, 'utf8') }]),
);
for (const s of Object.values(schemas)) s.schema = buildSchema(s.sdl);

const introspectionQuery = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  experimentalDirectiveDeprecation: true,
  oneOf: true,
});

test('the introspection fixture is getIntrospectionQuery() with every option', () => {
  assert.equal(readFileSync(join(root, 'tests', 'graphql', 'fixtures', 'introspection_query.graphql'), 'utf8'),
    introspectionQuery);
});

for (const [name, s] of Object.entries(schemas)) {
  test(`${name}: the SDL file is what printSchema prints (plus a final newline)`, () => {
    assert.equal(printSchema(s.schema) + '\n', s.sdl);
  });

  test(`${name}: our PrintSchema equals graphql-js printSchema`, () => {
    assert.equal(ours.schemas[name].sdl + '\n', s.sdl);
  });

  test(`${name}: our introspection result equals graphql-js's`, () => {
    const expected = graphqlSync({ schema: s.schema, source: introspectionQuery });
    assert.equal(expected.errors, undefined);
    assert.deepEqual(ours.schemas[name].introspection, JSON.parse(JSON.stringify(expected.data)));
  });

  test(`${name}: buildClientSchema(our introspection) prints the SDL file`, () => {
    assert.equal(printSchema(buildClientSchema(ours.schemas[name].introspection)) + '\n', s.sdl);
  });
}

// graphql-js 16 validates a mutation or subscription against a schema that
// has none and only execute() refuses it; we refuse in validation with
// graphql-js 17's message. Emulate that for documents marked so.
function unsupportedOperations(schema, document) {
  const errors = [];
  for (const def of document.definitions) {
    if (def.kind === 'OperationDefinition' && !schema.getRootType(def.operation)) {
      errors.push({
        message: `The ${def.operation} operation is not supported by the schema.`,
        locations: [getLocation(def.loc.source, def.loc.start)],
      });
    }
  }
  return errors;
}

function plain(errors) {
  return errors.map((e) => ({ message: e.message, locations: e.locations ?? [] }));
}

const verdicts = new Map(ours.verdicts.map((v) => [v.id, v]));

for (const doc of documents) {
  test(`document ${doc.id}`, () => {
    const mine = verdicts.get(doc.id);
    assert.ok(mine, 'exported');
    const { schema } = schemas[doc.schema];
    let document;
    try {
      document = parse(doc.query);
    } catch (e) {
      assert.deepEqual({ phase: mine.phase, errors: mine.errors }, { phase: 'parse', errors: plain([e]) });
      return;
    }
    let errors = plain(validate(schema, document));
    if (doc.operationTypeCheck && errors.length === 0) errors = unsupportedOperations(schema, document);
    if (doc.compare === 'verdict') {
      assert.equal(mine.phase, errors.length === 0 ? 'valid' : 'validate');
      return;
    }
    assert.deepEqual({ phase: mine.phase, errors: mine.errors },
      { phase: errors.length === 0 ? 'valid' : 'validate', errors });
  });
}
