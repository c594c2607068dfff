// sortFindings sorts by file in groups, then each group by the other keys: the same order as one stable sort by all
// the keys (src/findings.ts), checked here against that sort on findings made to collide on every key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sortFindings } from '../../dist/index.js';

const rank = { error: 0, warning: 1, info: 2 };
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
/** The order as one comparator over all keys (what sortFindings was before it grouped by file). */
const reference = (fs) =>
  [...fs].sort(
    (a, b) =>
      cmp(a.file ?? '', b.file ?? '') ||
      cmp(a.entry ?? '', b.entry ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      rank[a.severity] - rank[b.severity] ||
      cmp(a.ruleId, b.ruleId) ||
      cmp(a.message, b.message),
  );

/** A small deterministic generator (mulberry32): the same findings on every run. */
function random(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('the same order as one stable sort by file, entry, line, severity, rule and message', () => {
  const r = random(13);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const findings = Array.from({ length: 3000 }, (_, i) => {
    const f = {
      ruleId: pick(['a-rule', 'b-rule', 'c-rule']),
      severity: pick(['error', 'warning', 'info']),
      // Undefined and '' sort together; a prefix sorts before its extensions; a path with a folder after one without.
      file: pick([undefined, '', 'data/a.xml', 'data/a.xml.bak', 'data/a/b.xml', 'data-b.zip', 'Z.xml', 'ä.xml']),
      message: pick(['m1', 'm2', 'same']),
      // Unique, so the test sees whether equal findings kept their input order (stability).
      params: { i },
    };
    if (r() < 0.3) f.entry = pick(['ILCD/processes/x.xml', 'ILCD/flows/y.xml']);
    if (r() < 0.8) f.line = Math.floor(r() * 5);
    return f;
  });
  const got = sortFindings(findings);
  assert.is(got.length, findings.length);
  assert.equal(
    got.map((f) => f.params.i),
    reference(findings).map((f) => f.params.i),
  );
  // The input is left as it was.
  assert.equal(
    findings.map((f) => f.params.i),
    findings.map((_, i) => i),
  );
});

test('no findings, one finding', () => {
  assert.equal(sortFindings([]), []);
  const one = /** @type {const} */ ({ ruleId: 'x', severity: 'error', message: 'm' });
  assert.equal(sortFindings([one]), [one]);
});

test.run();
