// writeSite's copies of inputs (src/emit/files.ts copyInto): 0644 in the site, trusted by their discovery stat only while unchanged.
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeSite } from '../../dist/emit/write.js';
import { cleanup, tmp } from '../helpers/index.js';

test.after.each(cleanup);

const sha = (b) => createHash('sha256').update(b).digest('hex');
/** @returns {[number, number, number, number]} */
const recorded = (path) => {
  const st = statSync(path);
  return [st.size, st.mtimeMs, st.ctimeMs, st.ino];
};

test('copies of inputs: 0644 whatever the input mode; trusted while as discovered, written again and not trusted once changed', async () => {
  const dir = tmp();
  const a = join(dir, 'a.xml');
  const b = join(dir, 'b.xml');
  writeFileSync(a, 'a'.repeat(200_000));
  writeFileSync(b, 'b'.repeat(200_000));
  chmodSync(a, 0o600);
  chmodSync(b, 0o600);
  const files = [a, b].map((abs, i) => ({
    path: `resource/processes/${i}`,
    contentType: 'application/xml',
    source: { copy: abs, stat: recorded(abs) },
    key: `sha256:${sha(readFileSync(abs))}`,
  }));
  // Changed after it was discovered and read (same size, other bytes): its copy must not pass for the bytes read.
  writeFileSync(b, 'c'.repeat(200_000));
  const out = join(tmp(), 'site');
  /** @type {Map<string, string>} */
  let known = new Map();
  await writeSite(files, { out, inputs: [dir], cwd: dir, allowReplace: false }, async (_dir, k) => {
    known = new Map(k);
    return [];
  });
  for (const [i, abs] of [a, b].entries()) {
    const copy = join(out, `resource/processes/${i}`);
    assert.ok(readFileSync(copy).equals(readFileSync(abs)), `copy ${i} holds the input's bytes`);
    assert.is(statSync(copy).mode & 0o777, 0o644, `copy ${i} is 0644`);
  }
  assert.is(known.get('resource/processes/0'), files[0].key, 'as discovered: known to hold its key');
  assert.not.ok(known.has('resource/processes/1'), 'changed: health reads it back');
});

test.run();
