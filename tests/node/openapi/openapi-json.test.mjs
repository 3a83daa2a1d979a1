// docs/api/openapi.json is what livechatd compiles in and serves at
// /openapi.json; it must say exactly what docs/api/openapi.yaml says.
// Regenerate with: node tests/node/openapi/yaml-to-json.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const api = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'api');

test('openapi.json equals openapi.yaml', () => {
  const yaml = parse(readFileSync(join(api, 'openapi.yaml'), 'utf8'));
  const json = JSON.parse(readFileSync(join(api, 'openapi.json'), 'utf8'));
  assert.deepEqual(json, yaml, 'stale docs/api/openapi.json: run node tests/node/openapi/yaml-to-json.mjs');
  assert.equal(json.openapi, '3.1.0');
});
