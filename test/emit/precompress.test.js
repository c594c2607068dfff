// Precompressed siblings made early (as each document is written) and from one read: the same bytes as the streamed
// compression, nothing compressed that the cache can link, documents below minBytes left alone.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compressFile, EarlyCompressor, planPrecompressed } from '../../dist/emit/precompress.js';
import { tmp } from '../helpers/index.js';

/** @type {import('../../dist/config/load.js').PrecompressConfig} */
const CONFIG = { encodings: ['br', 'gzip'], minBytes: 1024 };

/** A list of a few hundred KB: many stream chunks, so whole and streamed compression really differ in how they cut it. */
function writeList(dir) {
  const items = Array.from({ length: 8000 }, (_, i) => ({ uuid: `u-${i}`, name: `EPD ${i} ${'x'.repeat(i % 37)}` }));
  const bytes = Buffer.from(JSON.stringify({ data: items }));
  mkdirSync(join(dir, 'resource/processes'), { recursive: true });
  const abs = join(dir, 'resource/processes/index.json');
  writeFileSync(abs, bytes);
  return { abs, bytes, path: 'resource/processes/index.json', digest: createHash('sha256').update(bytes).digest('hex') };
}

test('a document compressed whole is byte-identical to the streamed compression, both encodings', async () => {
  const { abs, bytes } = writeList(tmp());
  assert.ok(bytes.length > 256 * 1024);
  for (const e of /** @type {const} */ (['gzip', 'br'])) {
    assert.ok(Buffer.from(await compressFile(abs, e, bytes)).equals(Buffer.from(await compressFile(abs, e))), e);
  }
});

test('early: a document above the whole-read limit (8 MB) is read once for both encodings, the same bytes as whole', async () => {
  const dir = tmp();
  mkdirSync(join(dir, 'resource/processes'), { recursive: true });
  const abs = join(dir, 'resource/processes/index.xml');
  // About 20 MB: three chunks through the compression slot's buffer, the last one short.
  const rows = Array.from(
    { length: 230_000 },
    (_, i) => `<p:process uuid="u-${i}"><name>EPD ${i} ${'y'.repeat(i % 53)}</name></p:process>\n`,
  );
  const bytes = Buffer.from(`<list>\n${rows.join('')}</list>\n`);
  assert.ok(bytes.length > 2 * (8 << 20));
  writeFileSync(abs, bytes);
  const early = new EarlyCompressor(CONFIG);
  early.written('resource/processes/index.xml', abs, bytes.length, createHash('sha256').update(bytes).digest('hex'));
  const made = early.of('resource/processes/index.xml').made;
  assert.equal([...made.keys()].sort(), ['br', 'gzip']);
  for (const e of /** @type {const} */ (['gzip', 'br'])) {
    assert.ok(Buffer.from(await made.get(e)).equals(Buffer.from(await compressFile(abs, e, bytes))), e);
  }
});

test('early: compressed as written, unless the cache can link the sibling; the plan uses the digest and the bytes', async () => {
  const dir = tmp();
  const list = writeList(dir);
  const asked = [];
  // The previous site holds the brotli sibling of exactly this content: it is linked, never compressed.
  const early = new EarlyCompressor(CONFIG, (path, key) => (asked.push(path), key.startsWith('br-') ? [{}] : []));
  assert.ok(early.wants(list.path));
  assert.not.ok(early.wants('resource/processes/abc'), 'datasets have no siblings');
  early.written(list.path, list.abs, list.bytes.length, list.digest);
  assert.equal(asked.sort(), [`${list.path}.br`, `${list.path}.gz`]);
  assert.equal([...early.of(list.path).made.keys()], ['gzip']);
  const streamed = Buffer.from(await compressFile(list.abs, 'gzip'));
  assert.ok(Buffer.from(await early.of(list.path).made.get('gzip')).equals(streamed));
  // The file changes on disk after it was reported: the plan keys the siblings by what the writer saw.
  writeFileSync(list.abs, Buffer.concat([list.bytes, Buffer.from(' ')]));
  const planned = await planPrecompressed(dir, [{ path: list.path, contentType: 'application/json', source: { text: '' } }], CONFIG, early);
  assert.equal(
    planned.map((f) => [f.path, f.key]),
    [
      [`${list.path}.br`, `br-5:sha256:${list.digest}`],
      [`${list.path}.gz`, `gzip-8:sha256:${list.digest}`],
    ],
  );
  assert.ok(Buffer.from(await /** @type {any} */ (planned[1].source).make()).equals(streamed), 'the early bytes, not compressed again');
});

test('a document with a content key (a list page linked from the previous site) has siblings keyed by it, not hashed', async () => {
  const dir = tmp();
  const list = writeList(dir);
  const key = 'list:json:0123abcd';
  const planned = await planPrecompressed(dir, [{ path: list.path, contentType: 'application/json', source: { text: '' }, key }], CONFIG);
  assert.equal(
    planned.map((f) => [f.path, f.key]),
    [
      [`${list.path}.br`, `br-5:${key}`],
      [`${list.path}.gz`, `gzip-8:${key}`],
    ],
  );
  // As the early compressor keys the same document when the writer writes it.
  const asked = [];
  new EarlyCompressor(CONFIG, (_path, k) => (asked.push(k), [])).written(list.path, list.abs, list.bytes.length, list.digest, key);
  assert.equal(asked.sort(), [`br-5:${key}`, `gzip-8:${key}`]);
});

test('early: a document below minBytes starts no compression', () => {
  const early = new EarlyCompressor(CONFIG);
  early.written('index.html', '/nonexistent/index.html', 100, 'ab');
  assert.equal(early.of('index.html').made.size, 0);
});

test.run();
