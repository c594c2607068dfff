// readInput reads a plain file in one synchronous, exact-size read: the bytes must be the file's, whatever its size.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readInput } from '../../dist/read/zip.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';

test.after.each(cleanup);

test('a real EPD, an empty file and a large file: the bytes of the file (its size from the open file, not the listing)', async () => {
  const epd = join(EXAMPLE_DATA, REAL_EPDS[0].file);
  const dir = tmp();
  const empty = join(dir, 'empty.xml');
  writeFileSync(empty, '');
  const large = join(dir, 'large.xml');
  writeFileSync(large, Buffer.alloc(3_000_000, 'x'));
  for (const abs of [epd, empty, large]) {
    const got = await readInput({ path: abs, abs, size: 0, kind: 'xml' });
    assert.ok(got.equals(readFileSync(abs)), abs);
  }
});

test('a missing file rejects with its error code (input-unreadable names it)', async () => {
  const abs = join(tmp(), 'gone.xml');
  const e = await readInput({ path: abs, abs, size: 0, kind: 'xml' }).then(
    () => undefined,
    (err) => err,
  );
  assert.is(e?.code, 'ENOENT');
});

test.run();
