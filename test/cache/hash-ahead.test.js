import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HashAhead } from '../../dist/cache/hash-ahead.js';
import { cleanup, tmp } from '../helpers/index.js';

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** `n` files of a few KB to 2 MB (beyond the reused read buffer), some of them the same bytes. */
function files(n) {
  const dir = tmp();
  const out = [];
  for (let i = 0; i < n; i++) {
    const bytes = i % 7 === 3 ? Buffer.from('same bytes\n') : randomBytes(i % 50 === 0 ? 2_100_000 : 1000 + 37 * i);
    const p = join(dir, `f${i}.xml`);
    writeFileSync(p, bytes);
    out.push({ p, digest: sha(bytes) });
  }
  return out;
}

test('every file has its sha256, whether the worker or this thread hashed it', async () => {
  const fs = files(400);
  const h = new HashAhead(fs.map((f) => f.p));
  // Let the worker take a part, then hash the rest from the end back.
  await new Promise((r) => setTimeout(r, 30));
  h.hashTheRest();
  assert.equal(
    fs.map((f) => h.digestOf(f.p)),
    fs.map((f) => f.digest),
  );
  h.stop();
});

test('the worker stopped early: what it did not finish is hashed here, and correctly', () => {
  const fs = files(200);
  const h = new HashAhead(fs.map((f) => f.p));
  h.stop();
  assert.equal(
    fs.map((f) => h.digestOf(f.p)),
    fs.map((f) => f.digest),
  );
});

test('an unreadable input has no digest; a path it was not given is hashed on the spot', () => {
  const dir = tmp();
  const folder = join(dir, 'a-folder.xml');
  mkdirSync(folder);
  const missing = join(dir, 'gone.xml');
  const other = join(dir, 'other.xml');
  writeFileSync(other, 'other');
  const h = new HashAhead([folder, missing]);
  h.hashTheRest();
  assert.is(h.digestOf(folder), undefined);
  assert.is(h.digestOf(missing), undefined);
  assert.is(h.digestOf(other), sha('other'));
  h.stop();
});

test.after.each(cleanup);
test.run();
