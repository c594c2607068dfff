// The readiness checklist as data (src/check/checklist.ts): one entry per reported item, judged after what it needs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CHECKLIST, judgeOrder } from '../../dist/check/checklist.js';
import { CHECK_ITEMS } from '../../dist/index.js';

test('every reported item has one checklist entry, in print order, reading at least one source', () => {
  assert.equal(
    CHECKLIST.map((i) => i.id),
    Object.keys(CHECK_ITEMS),
  );
  for (const i of CHECKLIST) assert.ok(i.reads.length > 0, i.id);
});

test('an item is judged after the items whose evidence it uses (health counts list and EPD problems)', () => {
  const order = judgeOrder().map((i) => i.id);
  assert.is(order.length, CHECKLIST.length);
  for (const i of CHECKLIST) for (const n of i.needs ?? []) assert.ok(order.indexOf(n) < order.indexOf(i.id), `${n} before ${i.id}`);
  assert.ok(order.indexOf('list') < order.indexOf('health'));
});

test.run();
