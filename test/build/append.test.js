// At 100,000 EPDs a build has 100,000+ findings and files: `push(...items)` overflowed the stack there (bench run).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { append } from '../../dist/util/append.js';

test('append takes arrays far larger than a spread can', () => {
  const big = Array.from({ length: 500_000 }, (_v, i) => i);
  assert.throws(() => [].push(...big), RangeError, 'the spread this replaces overflows here');
  const out = append([-1], big);
  assert.is(out.length, 500_001);
  assert.is(out[500_000], 499_999);
});

test.run();
