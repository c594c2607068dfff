// The spool that keeps the EPD pages' LCIA tables on disk between the read and the write (src/util/spool.ts).
import { readdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Spool } from '../../dist/util/spool.js';
import { cleanup, tmp } from '../helpers/index.js';

test.after.each(cleanup);

test('strings come back as put, in any order, before and after the memory part is written out; nothing left on disk', () => {
  const dir = tmp();
  const spool = new Spool(dir);
  assert.equal(readdirSync(dir), [], 'unlinked as soon as it is open');
  const texts = [
    '',
    'ä€😀 <td>1.5E-3</td>',
    'x'.repeat(700_000),
    'y'.repeat(300_000),
    'ü'.repeat(300_000),
    ...Array.from({ length: 300 }, (_v, i) => `<tr>${i}${'é'.repeat(i)}</tr>`),
  ];
  const spans = texts.map((t) => spool.put(t));
  // Strings past the buffer go straight to the file; the buffer is written when full and before a take.
  assert.equal(spans[1], [0, Buffer.byteLength(texts[1])]);
  for (const i of [5, 2, 0, texts.length - 1, 1]) assert.is(spool.take(spans[i]), texts[i], `string ${i}`);
  const late = spool.put('after a take');
  assert.is(spool.take(late), 'after a take');
  texts.forEach((t, i) => assert.is(spool.take(spans[i]), t, `again ${i}`));
  spool.close();
  spool.close();
  assert.throws(() => spool.take(late), /after close/);
  assert.equal(readdirSync(dir), []);
});

test.run();
