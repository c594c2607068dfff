// Copies of inputs (src/emit/files.ts copyInto): an input still as discovered is not hashed again; any other is.
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyInto } from '../../dist/emit/files.js';
import { cleanup, tmp } from '../helpers/index.js';

test.after.each(cleanup);

/** Copy `from` into a new file with a hash beside; what the hash saw and what copyInto said. */
function copy(from, stat) {
  const to = join(tmp(), 'copy');
  const hash = createHash('sha256');
  const fd = openSync(to, 'w');
  let r;
  try {
    r = copyInto(from, fd, hash, stat);
  } finally {
    closeSync(fd);
  }
  return { ...r, digest: hash.digest('hex'), bytes: readFileSync(to) };
}
const recorded = (path) => {
  const st = statSync(path);
  return [st.size, st.mtimeMs, st.ctimeMs, st.ino];
};
const EMPTY = createHash('sha256').digest('hex');

test('an input still as discovered is copied without a hash; changed since, or without a stat, it is hashed', () => {
  const dir = tmp();
  const f = join(dir, 'epd.xml');
  writeFileSync(f, 'x'.repeat(300_000));
  const stat = recorded(f);
  const same = copy(f, stat);
  assert.equal([same.asRecorded, same.hashed, same.digest], [true, false, EMPTY], 'as recorded: not hashed');
  assert.ok(same.bytes.equals(readFileSync(f)), 'copied whole');
  const none = copy(f);
  assert.equal([none.asRecorded, none.hashed], [false, true]);
  assert.is(none.digest, createHash('sha256').update(readFileSync(f)).digest('hex'));
  // Same size, other bytes, written after the stat was recorded: its ctime (and mtime) moved, so it is hashed.
  writeFileSync(f, 'y'.repeat(300_000));
  const changed = copy(f, stat);
  assert.equal([changed.asRecorded, changed.hashed], [false, true]);
  assert.is(changed.digest, createHash('sha256').update(readFileSync(f)).digest('hex'), 'the bytes copied, hashed');
});

test.run();
