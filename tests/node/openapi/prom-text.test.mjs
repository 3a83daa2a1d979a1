// The strict exposition parser used by metrics.test.mjs must itself refuse
// what a scraper could misread.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { parsePrometheusText, sampleValue } from './prom-text.mjs';

const ok = `# HELP a_total A.
# TYPE a_total counter
a_total{x="1",y="q\\"\\\\\\n"} 3
# HELP h Latency.
# TYPE h histogram
h_bucket{le="0.1"} 1
h_bucket{le="+Inf"} 2
h_sum 0.5
h_count 2
`;

test('a well-formed exposition parses, with escapes decoded', () => {
  const m = parsePrometheusText(ok);
  assert.equal(m.get('a_total').type, 'counter');
  assert.equal(sampleValue(m, 'a_total', { x: '1', y: 'q"\\\n' }), 3);
  assert.equal(sampleValue(m, 'h_count'), 2);
});

test('malformed expositions are refused', () => {
  const bad = {
    'no final newline': ok.slice(0, -1),
    'duplicate series': ok + 'a_total{x="1",y="q\\"\\\\\\n"} 4\n',
    'family not contiguous': ok + 'a_total{x="2"} 1\n',
    'bad escape': '# TYPE b gauge\nb{x="\\t"} 1\n',
    'unquoted label': '# TYPE b gauge\nb{x=1} 1\n',
    'bad value': '# TYPE b gauge\nb 1,5\n',
    'TYPE after samples': 'b 1\n# TYPE b gauge\n',
    'counter without _total': '# TYPE c counter\nc 1\n',
    'negative counter': '# TYPE c_total counter\nc_total -1\n',
    'buckets not cumulative': '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    '+Inf != count': '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n',
    'no +Inf bucket': '# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n',
    'bad metric name': '# TYPE 1x gauge\n',
    'trailing text': '# TYPE b gauge\nb 1 2 3\n',
  };
  for (const [why, text] of Object.entries(bad)) assert.throws(() => parsePrometheusText(text), Error, why);
});
