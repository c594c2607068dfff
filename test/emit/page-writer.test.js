// The page thread's other jobs (src/emit/page-thread.ts): input copies, as writeOne makes them on the main thread
// (copyInto: not hashed while still as recorded), and the pages' own folders, with the site's mode whatever the umask.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PageWriter } from '../../dist/emit/page-writer.js';
import { cleanup, tmp } from '../helpers/index.js';

test.after.each(cleanup);

/** @returns {[number, number, number, number]} */
const recorded = (path) => {
  const st = statSync(path);
  return [st.size, st.mtimeMs, st.ctimeMs, st.ino];
};
const sha = (b) => createHash('sha256').update(b).digest('hex');

test('copies in the page thread: as recorded, not hashed; changed since, hashed; gone, left to the main thread', async () => {
  const dir = tmp();
  const site = join(dir, 'site');
  mkdirSync(site);
  const [a, b, c] = ['a.xml', 'b.xml', 'c.xml'].map((n) => join(dir, n));
  writeFileSync(a, 'a'.repeat(300_000));
  writeFileSync(b, 'b'.repeat(1000));
  const statB = recorded(b);
  // Same size, other bytes, written after its stat was recorded.
  writeFileSync(b, 'B'.repeat(1000));
  const writer = new PageWriter();
  try {
    const file = { mode: 0o644, fixMode: true };
    const reply = await writer.run(
      undefined,
      file,
      undefined,
      [
        { to: join(site, 'a'), copy: a, stat: recorded(a) },
        { to: join(site, 'b'), copy: b, stat: statB },
        { to: join(site, 'c'), copy: c, stat: statB },
      ],
      { mode: 0o755, fix: false },
    );
    assert.ok(reply, 'answered');
    assert.equal(reply.sizes, [300_000, 1000, undefined]);
    assert.equal(reply.copies, [{ asRecorded: true }, { asRecorded: false, digest: sha(readFileSync(b)) }, undefined]);
    assert.ok(readFileSync(join(site, 'a')).equals(readFileSync(a)), 'copied whole');
    assert.ok(readFileSync(join(site, 'b')).equals(readFileSync(b)), 'the bytes there now');
    assert.is(statSync(join(site, 'a')).mode & 0o777, 0o644);
  } finally {
    await writer.close();
  }
});

test("a page's own folder made by the thread: the site's mode under a umask that takes bits; one there is taken", async () => {
  const { readStage } = await import('../../dist/index.js');
  const { planEpdPages } = await import('../../dist/emit/epd-page.js');
  const { pageJob } = await import('../../dist/emit/page-writer.js');
  const { EXAMPLE_CONFIG } = await import('../helpers/index.js');
  const now = new Date('2026-01-02T03:04:05Z');
  const r = await readStage({ config: EXAMPLE_CONFIG, now, pageTables: true });
  const site = join(tmp(), 'site');
  mkdirSync(site);
  mkdirSync(join(site, 'there'));
  const writer = new PageWriter();
  const umask = process.umask(0o077);
  try {
    const [p0, p1] = planEpdPages(r.catalog.epds, r.cfg, r.references, r.catalog.spool);
    const file = { mode: 0o644, fixMode: true };
    const jobs = [
      { ...pageJob(join(site, 'new', 'index.html'), p0.page), dir: join(site, 'new') },
      { ...pageJob(join(site, 'there', 'index.html'), p1.page), dir: join(site, 'there') },
      // A folder whose parent is missing: not made, the page left to the main thread.
      { ...pageJob(join(site, 'x', 'y', 'index.html'), p1.page), dir: join(site, 'x', 'y') },
    ];
    const reply = await writer.run(r.cfg, file, r.catalog.spool.shared(), jobs, { mode: 0o755, fix: true });
    assert.ok(reply, 'answered');
    assert.ok(reply.sizes[0] > 0 && reply.sizes[1] > 0, 'written');
    assert.is(reply.sizes[2], undefined);
    assert.is(statSync(join(site, 'new')).mode & 0o777, 0o755, 'the folder made, its mode set again');
    assert.is(statSync(join(site, 'new', 'index.html')).mode & 0o777, 0o644);
    assert.ok(
      readFileSync(join(site, 'there', 'index.html')).equals(Buffer.from(await /** @type {any} */ (p1.source).make())),
      'the page in the folder there',
    );
  } finally {
    process.umask(umask);
    await writer.close();
    r.catalog.spool?.close();
  }
});

// With --zip-export the thread also makes ZIP exports of plain files (src/emit/zip-writer.ts zipFromFiles): the bytes
// the main thread's zipExport makes, its shared entries made once, and a missing input left to the main thread.
test('ZIP exports in the page thread: the same bytes as the main thread makes; a missing input left to it', async () => {
  const { readStage } = await import('../../dist/index.js');
  const { planDependencyFiles } = await import('../../dist/emit/dependencies.js');
  const { EXAMPLE_CONFIG } = await import('../helpers/index.js');
  const r = await readStage({ config: EXAMPLE_CONFIG, now: new Date('2026-01-02T03:04:05Z'), zipExport: true });
  const zips = planDependencyFiles(r.catalog.epds, r.references, { zipExport: true }).filter((f) => f.path.endsWith('zipexport.zip'));
  assert.ok(zips.length >= 5, 'exports planned');
  /** @type {{ make: () => Promise<Uint8Array[]>, files?: () => import('../../dist/emit/zip-writer.js').FileEntries }[]} */
  const sources = zips.map((f) => /** @type {any} */ (f.source));
  assert.ok(
    sources.every((s) => s.files),
    'every export of plain files may go to the thread',
  );
  const site = join(tmp(), 'site');
  mkdirSync(site);
  const jobs = sources.map((s, k) => ({ to: join(site, `${k}.zip`), entries: s.files() }));
  // One entry gone (as if deleted after it was read): the thread cannot make that export.
  const gone = {
    to: join(site, 'gone.zip'),
    entries: [...jobs[0].entries, { ...jobs[0].entries[0], path: join(site, 'nothing-here.xml') }],
  };
  const writer = new PageWriter();
  try {
    const reply = await writer.run(undefined, { mode: 0o644, fixMode: false }, undefined, [...jobs, gone], { mode: 0o755, fix: false });
    assert.ok(reply, 'answered');
    assert.is(reply.sizes.at(-1), undefined, 'left to the main thread');
    for (const [k, f] of zips.entries()) {
      const main = Buffer.concat(await sources[k].make());
      assert.ok(readFileSync(jobs[k].to).equals(main), `${f.path}: the same bytes`);
      assert.is(reply.sizes[k], main.length);
    }
  } finally {
    await writer.close();
  }
});

test.run();
