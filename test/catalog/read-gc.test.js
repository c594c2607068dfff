// A document read and dropped must be garbage to the young-generation GC, not only to a full one: whatever outlives a
// scavenge is copied by it (and promoted by the next), and that was most of a read worker's GC time
// (docs/performance.md, "This round: the read workers' garbage").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readDocument } from '../../dist/catalog/read.js';
import { EXAMPLE_DATA, REAL_EPDS } from '../helpers/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
/** Bytes of the old generation (large objects included): where what survives two scavenges goes. */
const oldBytes = () =>
  getHeapSpaceStatistics()
    .filter((s) => s.space_name === 'old_space' || s.space_name === 'large_object_space')
    .reduce((n, s) => n + s.space_used_size, 0);

const LEVEL_1 = { structure: false, xsd: false, rules: false, disabledRules: [] };

/** @type {[string, typeof LEVEL_1 | undefined][]} */
const CASES = [
  ['--level 1', LEVEL_1],
  ['all levels (XSD runs apart)', undefined],
];
for (const [name, validation] of CASES) {
  test(`${name}: a document read and dropped does not outlive two young-generation GCs`, () => {
    const read = () => {
      let size = 0;
      for (let i = 0; i < 4; i++) {
        for (const e of REAL_EPDS) {
          const bytes = readFileSync(join(EXAMPLE_DATA, e.file));
          size += bytes.length;
          const r = readDocument(bytes, { path: e.file }, { ...(validation ? { validation } : {}), now: new Date('2026-01-02') });
          assert.ok(r.outcome.sha256, e.file);
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
    const grew = oldBytes() - before;
    // Held documents grew it by 1.3-2.6x the bytes read (their text views, scopes, getters' closures); none: 0.1-0.2x.
    assert.ok(grew < size / 2, `old generation grew by ${(grew / 1e6).toFixed(2)} MB after reading ${(size / 1e6).toFixed(2)} MB`);
  });
}

test.run();
