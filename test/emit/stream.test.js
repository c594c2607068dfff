import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanList } from '../../dist/emit/health.js';
import { encodeParts, jsonWithItems } from '../../dist/emit/stream.js';
import { cleanup, tmp } from '../helpers/index.js';

const items = [{ a: 1, b: { c: [1, 2], d: 'x"y' } }, { a: 2, b: {} }, { e: [] }];

for (const indent of [0, 1, 2]) {
  for (const n of [0, 1, 3]) {
    test(`jsonWithItems gives JSON.stringify's bytes (indent ${indent}, ${n} items)`, () => {
      const head = { startIndex: 0, pageSize: n, data: [] };
      const want = JSON.stringify({ ...head, data: items.slice(0, n) }, null, indent || undefined);
      assert.is([...jsonWithItems(head, 'data', items.slice(0, n), indent)].join(''), want);
    });
  }
}

test('jsonWithItems refuses an items key that is not last (the split would be wrong)', () => {
  assert.throws(() => [...jsonWithItems({ data: [], total: 1 }, 'data', [])], /last key/);
});

test('encodeParts gives the bytes of the joined pieces in chunks of at most the given size, losing nothing', () => {
  // Non-ASCII of every UTF-8 length (é 2, € 3, 𝄞 4 bytes: a surrogate pair), pieces larger than the buffer, empty ones.
  const parts = Array.from({ length: 300 }, (_v, i) => (i % 50 === 7 ? `<big>${'é€𝄞'.repeat(40)}</big>` : i % 9 === 0 ? '' : `${i}é€𝄞,`));
  const chunks = [];
  encodeParts(parts, (b) => chunks.push(Buffer.from(b)), 64);
  assert.equal(Buffer.concat(chunks), Buffer.from(parts.join('')));
  assert.ok(chunks.length > 10);
  // A text larger than the buffer is encoded into it a part at a time: no chunk over its size.
  assert.ok(chunks.every((c) => c.length <= 64));
  // Long texts cut at every offset: surrogate pairs (4 bytes) and 3-byte characters at each chunk end, a lone
  // surrogate (encoded as U+FFFD, as Buffer.from does).
  for (let pad = 0; pad < 8; pad++) {
    const text = `${'a'.repeat(pad)}${'𝄞€é'.repeat(30)}\ud800x${'𝄞'.repeat(20)}`;
    const got = [];
    encodeParts(['<', text, Buffer.from('bytes'), text], (b) => got.push(Buffer.from(b)), 64);
    assert.equal(Buffer.concat(got), Buffer.concat([Buffer.from(`<${text}`), Buffer.from('bytes'), Buffer.from(text)]));
    assert.ok(got.every((c) => c.length <= 64));
  }
  // Bytes larger than the buffer go on their own.
  const big = [];
  encodeParts([Buffer.alloc(100, 1)], (b) => big.push(b.length), 64);
  assert.equal(big, [100]);
  const none = [];
  encodeParts([], (b) => none.push(b));
  assert.is(none.length, 0);
});

test('health reads lists back as a stream: entries split across read chunks count once, total and hash exact', async () => {
  const dir = tmp();
  // Entries of odd length, so markers fall across the read boundaries (chunks of 4,099 bytes) at many offsets; non-ASCII
  // too.
  const body = Array.from({ length: 20000 }, (_v, i) => `<process:process n="${i}">é${'x'.repeat(i % 7)}</process:process>\n`).join('');
  const text = `<list serviceapi:totalSize="20000">\n${body}</list>\n`;
  writeFileSync(join(dir, 'l.xml'), text);
  const r = scanList(join(dir, 'l.xml'), '<process:process ', /\sserviceapi:totalSize="(\d+)"/, 4099);
  assert.is(r.entries, 20000);
  const whole = scanList(join(dir, 'l.xml'), '<process:process ', /\sserviceapi:totalSize="(\d+)"/);
  assert.equal(whole, r, 'the same in chunks of 1 MiB');
  assert.is(r.total, 20000);
  assert.is(r.sha256, createHash('sha256').update(text).digest('hex'));
  assert.is(scanList(join(dir, 'missing.xml'), 'x', /y/).entries, -1);
  await cleanup();
});

test.run();
