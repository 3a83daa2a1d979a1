// A strict parser of the Prometheus text exposition format (version 0.0.4),
// for tests: it throws on anything a scraper could misread instead of
// skipping it. Checks: line grammar, metric and label names, label-value
// escapes, # TYPE before a family's samples and at most once, families
// contiguous, no duplicate series, counters and histogram parts
// non-negative, histogram buckets cumulative with an le="+Inf" bucket
// equal to _count.
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(text, where) {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$/.test(text)) throw new Error(`${where}: bad value "${text}"`);
  return Number(text);
}

// {a="x",b="y"} starting at s[i] === '{'; returns [labels, index after '}'].
function parseLabels(s, i, where) {
  const labels = {};
  i++;
  while (true) {
    if (s[i] === '}') return [labels, i + 1];
    const eq = s.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: label without '='`);
    const name = s.slice(i, eq);
    if (!LABEL.test(name) || name.startsWith('__')) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label "${name}" repeated`);
    if (s[eq + 1] !== '"') throw new Error(`${where}: label value must be quoted`);
    let j = eq + 2;
    let value = '';
    while (true) {
      if (j >= s.length) throw new Error(`${where}: unterminated label value`);
      const c = s[j];
      if (c === '"') break;
      if (c === '\\') {
        const n = s[j + 1];
        if (n === '\\') value += '\\';
        else if (n === '"') value += '"';
        else if (n === 'n') value += '\n';
        else throw new Error(`${where}: bad escape \\${n}`);
        j += 2;
        continue;
      }
      if (c === '\n') throw new Error(`${where}: raw newline in label value`);
      value += c;
      j++;
    }
    labels[name] = value;
    i = j + 1;
    if (s[i] === ',') i++;
    else if (s[i] !== '}') throw new Error(`${where}: expected ',' or '}' after a label`);
  }
}

// Returns Map(familyName -> {type, help, samples: [{name, labels, value}]}).
export function parsePrometheusText(text) {
  if (text.length && !text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map();
  const seenSeries = new Set();
  const closed = new Set();
  let current = null;
  const familyOf = (sample) => {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      if (sample.endsWith(suffix)) {
        const base = sample.slice(0, -suffix.length);
        if (families.get(base)?.type === 'histogram') return base;
      }
    }
    return sample;
  };
  const enter = (name, where) => {
    if (current !== name) {
      if (closed.has(name)) throw new Error(`${where}: family ${name} is not contiguous`);
      if (current) closed.add(current);
      current = name;
    }
  };
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, n) => {
    const where = `line ${n + 1}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = line.match(/^# (HELP|TYPE) (\S+) ?(.*)$/);
      if (!m) return;  // a plain comment
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name "${name}"`);
      enter(name, where);
      const f = families.get(name) ?? { type: 'untyped', help: undefined, samples: [], typed: false };
      families.set(name, f);
      if (kind === 'TYPE') {
        if (f.typed) throw new Error(`${where}: second TYPE for ${name}`);
        if (f.samples.length) throw new Error(`${where}: TYPE after samples of ${name}`);
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type "${rest}"`);
        f.type = rest;
        f.typed = true;
      } else {
        if (f.help !== undefined) throw new Error(`${where}: second HELP for ${name}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) throw new Error(`${where}: bad escape in HELP`);
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
      return;
    }
    const nm = line.match(/^[a-zA-Z_:][a-zA-Z0-9_:]*/);
    if (!nm) throw new Error(`${where}: bad sample line "${line}"`);
    const name = nm[0];
    let i = name.length;
    let labels = {};
    if (line[i] === '{') [labels, i] = parseLabels(line, i, where);
    if (line[i] !== ' ') throw new Error(`${where}: expected a space before the value`);
    const parts = line.slice(i + 1).split(' ');
    if (parts.length > 2) throw new Error(`${where}: trailing text`);
    const value = parseValue(parts[0], where);
    if (parts.length === 2 && !/^-?\d+$/.test(parts[1])) throw new Error(`${where}: bad timestamp`);
    const family = familyOf(name);
    enter(family, where);
    const f = families.get(family) ?? { type: 'untyped', help: undefined, samples: [], typed: false };
    families.set(family, f);
    const key = name + JSON.stringify(Object.entries(labels).sort());
    if (seenSeries.has(key)) throw new Error(`${where}: duplicate series ${key}`);
    seenSeries.add(key);
    if (f.type === 'counter' && !(value >= 0)) throw new Error(`${where}: counter below zero`);
    if (f.type === 'histogram' && name === family) throw new Error(`${where}: bare sample in histogram ${family}`);
    f.samples.push({ name, labels, value });
  });
  for (const [name, f] of families) {
    if (f.type === 'counter' && !name.endsWith('_total')) throw new Error(`counter ${name} must end in _total`);
    if (f.type === 'histogram') checkHistogram(name, f);
  }
  return families;
}

function checkHistogram(name, f) {
  const series = new Map();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const h = series.get(key) ?? { buckets: [], sum: undefined, count: undefined };
    series.set(key, h);
    if (s.name === `${name}_bucket`) {
      if (le === undefined) throw new Error(`${name}_bucket without le`);
      h.buckets.push([parseValue(le, name), s.value]);
    } else if (le !== undefined) {
      throw new Error(`${s.name} must not carry le`);
    } else if (s.name === `${name}_sum`) {
      h.sum = s.value;
    } else {
      h.count = s.value;
    }
  }
  for (const [key, h] of series) {
    if (h.sum === undefined || h.count === undefined) throw new Error(`${name}${key}: _sum or _count missing`);
    const last = h.buckets[h.buckets.length - 1];
    if (!last || last[0] !== Infinity) throw new Error(`${name}${key}: no le="+Inf" bucket last`);
    for (let i = 1; i < h.buckets.length; i++) {
      if (!(h.buckets[i][0] > h.buckets[i - 1][0])) throw new Error(`${name}${key}: le not ascending`);
      if (h.buckets[i][1] < h.buckets[i - 1][1]) throw new Error(`${name}${key}: buckets not cumulative`);
    }
    if (last[1] !== h.count) throw new Error(`${name}${key}: +Inf bucket ${last[1]} != count ${h.count}`);
  }
}

// The value of one series, or undefined when absent. `labels` must match exactly.
export function sampleValue(families, sampleName, labels = {}) {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== sampleName) continue;
      const a = Object.entries(s.labels).sort();
      const b = Object.entries(labels).sort();
      if (JSON.stringify(a) === JSON.stringify(b)) return s.value;
    }
  }
  return undefined;
}
