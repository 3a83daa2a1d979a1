// Regenerates docs/api/openapi.json (what livechatd embeds and serves at
// /openapi.json) from docs/api/openapi.yaml. Run after editing the YAML:
//   node tests/node/openapi/yaml-to-json.mjs
// The openapi_json ctest fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const api = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'api');
const doc = parse(readFileSync(join(api, 'openapi.yaml'), 'utf8'));
writeFileSync(join(api, 'openapi.json'), JSON.stringify(doc, null, 2) + '\n');
