// A document read and dropped must be garbage to the young-generation GC, not only to a full one: whatever outlives a
// scavenge is copied by it (and promoted by the next), and that was most of a read worker's GC time
// (docs/performance.md, "An earlier round: the read workers' garbage"). Measured in a process of its own: V8 decides from
// what earlier allocations at the same site lived through (pretenuring), so other tests in this process would skew it.
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXAMPLE_DATA, REAL_EPDS, ROOT } from '../helpers/index.js';

const CHILD = `
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
const { readDocument } = await import(process.env.PO_READ);
const [data, files, validation] = JSON.parse(process.env.PO_ARGS);
/** Bytes of the old generation (large objects included): where what survives two scavenges goes. */
const oldBytes = () =>
  getHeapSpaceStatistics()
    .filter((s) => s.space_name === 'old_space' || s.space_name === 'large_object_space')
    .reduce((n, s) => n + s.space_used_size, 0);
const read = () => {
  let size = 0;
  for (let i = 0; i < 4; i++) {
    for (const f of files) {
      const bytes = readFileSync(join(data, f));
      size += bytes.length;
      const r = readDocument(bytes, { path: f }, { ...(validation ? { validation } : {}), now: new Date('2026-01-02') });
      if (!r.outcome.sha256) throw new Error('not accepted: ' + f);
    }
  }
  return size;
};
read(); // compiled code and feedback: old generation too, but once
gc();
const before = oldBytes();
const size = read();
gc({ type: 'minor' });
gc({ type: 'minor' });
process.stdout.write(JSON.stringify({ grew: oldBytes() - before, size }));
`;

const LEVEL_1 = { structure: false, xsd: false, rules: false, disabledRules: [] };
/** @type {[string, typeof LEVEL_1 | null][]} */
const CASES = [
  ['--level 1', LEVEL_1],
  ['all levels (XSD runs apart)', null],
];

for (const [name, validation] of CASES) {
  test(`${name}: a document read and dropped does not outlive two young-generation GCs`, () => {
    const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PO_READ: new URL('../../dist/catalog/read.js', import.meta.url).href,
        PO_ARGS: JSON.stringify([EXAMPLE_DATA, REAL_EPDS.map((e) => e.file), validation]),
      },
      cwd: ROOT,
    });
    assert.is(r.status, 0, r.stderr);
    const { grew, size } = JSON.parse(r.stdout);
    // Held documents grew it by 1.1-2.3x the bytes read (their text views, scopes, getters' closures); none: 0.1-0.2x.
    assert.ok(grew < size / 2, `old generation grew by ${(grew / 1e6).toFixed(2)} MB after reading ${(size / 1e6).toFixed(2)} MB`);
  });
}

test.run();
