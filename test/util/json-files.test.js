import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asciiJson, eachJsonLine, readJson } from '../../dist/util/json-files.js';
import { cleanup, tmp } from '../helpers/index.js';

// Non-ASCII of every UTF-8 length (é 2, € 3, 𝄞 4 bytes), lines shorter and longer than the chunk, an empty line.
const values = [{ a: 'é€𝄞' }, 'x'.repeat(50), [1, 2, { b: null }], '', 'ü'.repeat(40), 7, { c: 'end' }];

function lines(text, chunkBytes) {
  const file = join(tmp(), 'lines.ndjson');
  writeFileSync(file, text);
  const got = [];
  eachJsonLine(file, (v) => void got.push(v), chunkBytes);
  return got;
}

test('eachJsonLine gives every line, whatever the chunk size: lines cut by a chunk, longer than one, UTF-8 cut in two', () => {
  const text = values.map((v) => JSON.stringify(v)).join('\n');
  for (const chunkBytes of [1, 3, 7, 16, 64, 1 << 20]) {
    assert.equal(lines(`${text}\n`, chunkBytes), values, `chunks of ${chunkBytes}, last line ended`);
    assert.equal(lines(text, chunkBytes), values, `chunks of ${chunkBytes}, last line not ended`);
  }
  assert.equal(lines('\n\n', 4), [], 'empty lines are skipped');
});

test('eachJsonLine stops when told, and throws on a line that is not JSON', () => {
  const file = join(tmp(), 'stop.ndjson');
  writeFileSync(file, '1\n2\n3\n');
  const got = [];
  eachJsonLine(file, (v) => (got.push(v), v !== 2), 2);
  assert.equal(got, [1, 2]);
  writeFileSync(file, '1\n{"cut\n');
  assert.throws(() => eachJsonLine(file, () => undefined, 4));
});

test('asciiJson writes only ASCII, and readJson gives the value back; a UTF-8 file is read too', () => {
  const value = { name: 'Gebäude €𝄞', list: ['ß', 1] };
  const text = asciiJson(value);
  assert.ok(
    Buffer.from(text).every((b) => b < 0x80),
    text,
  );
  const file = join(tmp(), 'v.json');
  writeFileSync(file, text);
  assert.equal(readJson(file), value);
  writeFileSync(file, JSON.stringify(value));
  assert.equal(readJson(file), value);
});

test.after(() => cleanup());
test.run();
