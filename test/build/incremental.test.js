import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from '../../dist/index.js';
import { cacheFile } from '../../dist/emit/cache.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp, tree } from '../helpers/index.js';

test.after.each(cleanup);

const now = new Date('2026-01-02T03:04:05Z');
const quiet = { now };

/** An incremental build into `inc` and a clean build of the same inputs into a fresh folder: same tree. */
async function compare(dir, inc, extra = {}) {
  const a = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet, ...extra });
  const fresh = join(tmp(), 'site');
  const b = await build({ inputs: [join(dir, 'data')], out: fresh, cwd: dir, clean: true, ...quiet, ...extra });
  assert.equal(tree(inc), tree(fresh));
  assert.equal(a.findings, b.findings);
  return a;
}

test('incremental builds are byte-identical to clean builds: no change, change, delete, add, config', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const inc = join(dir, 'site');
  const [e0, e1, e2] = REAL_EPDS;
  const epdOut = (e) => join(inc, 'resource/processes', e.uuid);
  const zipOut = (e) => join(inc, 'resource/processes', `${e.uuid}_files/zipexport.zip`);
  await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet });
  assert.ok(existsSync(cacheFile(inc)), 'cache written to the cache folder');
  assert.not.ok(readdirSync(inc).some((n) => n.includes('cache')), 'not into the site');

  // No change: outputs are the previous files (hard links: same inode), not rewritten.
  const ino = statSync(epdOut(e0)).ino;
  const zipIno = statSync(zipOut(e0)).ino;
  const a = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet });
  const cacheIno = statSync(cacheFile(inc)).ino;
  await compare(dir, inc);
  assert.is(statSync(cacheFile(inc)).ino, cacheIno, 'a no-op rebuild leaves the cache file as it was');
  assert.ok(a.written);
  assert.is(statSync(epdOut(e0)).ino, ino, 'unchanged EPD reused');
  assert.is(statSync(zipOut(e0)).ino, zipIno, 'unchanged ZIP export reused');

  // Change one EPD: its files are new, the others reused.
  const f1 = join(dir, 'data', e1.file);
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  const ino0 = statSync(epdOut(e0)).ino;
  await compare(dir, inc);
  assert.ok(readFileSync(epdOut(e1), 'utf8').includes('Changed '));
  assert.ok(readFileSync(join(inc, 'resource/processes/index.json'), 'utf8').includes('Changed '), 'lists follow the change');
  assert.is(statSync(epdOut(e0)).ino, ino0);

  // Delete one EPD: its outputs are gone.
  rmSync(join(dir, 'data', e2.file));
  await compare(dir, inc);
  assert.not.ok(existsSync(epdOut(e2)));
  assert.not.ok(existsSync(zipOut(e2)));

  // Add one EPD (a copy of another under a new UUID).
  const uuid = '0badc0de-0000-4000-8000-000000000001';
  const src = readFileSync(join(dir, 'data', e0.file), 'utf8');
  writeFileSync(join(dir, 'data', 'added.xml'), src.replaceAll(e0.uuid, uuid));
  await compare(dir, inc);
  assert.ok(existsSync(join(inc, 'resource/processes', uuid)));

  // Config and validation settings invalidate the cache.
  await compare(dir, inc, { baseUrl: 'https://epd.example.org/node' });
  assert.ok(readFileSync(join(inc, 'resource/processes/index.xml'), 'utf8').includes('https://epd.example.org/node'));
  const r = await compare(dir, inc, { baseUrl: 'https://epd.example.org/node', level: 2 });
  assert.not.ok(r.findings.some((f) => f.ruleId.startsWith('eco-')), 'rules off: no cached rule findings');
});

test('--clean ignores the cache: files are written anew', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const inc = join(dir, 'site');
  await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet });
  const p = join(inc, 'resource/processes', REAL_EPDS[0].uuid);
  const ino = statSync(p).ino;
  await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, clean: true, ...quiet });
  assert.is.not(statSync(p).ino, ino);
});

test.run();
