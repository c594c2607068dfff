import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { updateTexts } from '../../dist/util/hash-text.js';

// Texts of every UTF-8 length (é 2, € 3, 𝄞 4 bytes), enough of them to fill several batches of 65,536 characters,
// one longer than a batch, and empty ones.
const texts = [];
for (let i = 0; i < 6000; i++) texts.push(`resource/processes/é€𝄞-${i}\n`, i % 7 ? '' : 'x'.repeat(i % 50));
texts.splice(3000, 0, 'y'.repeat(70000));

test('updateTexts hashes the same bytes as one update per text', () => {
  const one = createHash('sha256');
  for (const t of texts) one.update(t);
  const want = one.digest('hex');
  assert.is(updateTexts(createHash('sha256'), texts, (t) => t).digest('hex'), want);
  assert.is(updateTexts(createHash('sha256'), texts.entries(), ([, t]) => t).digest('hex'), want);
  // A short tail (less than a batch) is hashed too.
  assert.is(updateTexts(createHash('sha256'), ['a', 'b'], (t) => t).digest('hex'), createHash('sha256').update('ab').digest('hex'));
});

test.run();
