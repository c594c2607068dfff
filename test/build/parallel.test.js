// Reading on worker threads (src/catalog/pool.ts) must not change a byte of the site or the report.
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCorpus } from '../helpers/corpus.js';
import { EXAMPLE_DATA, build, cleanup, tmp, tree, wrongModes } from '../helpers/index.js';

test.after.each(cleanup);

const now = new Date('2026-01-02T03:04:05Z');

test('worker threads, small chunks: same tree and findings as one thread, bad files included', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  mkdirSync(join(dir, 'data', 'bad'));
  writeFileSync(join(dir, 'data', 'bad', 'broken.xml'), '<processDataSet><x></processDataSet>');
  writeFileSync(join(dir, 'data', 'bad', 'doctype.xml'), '<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>');
  const opts = { inputs: [join(dir, 'data')], cwd: dir, now, clean: true };
  const one = await build({ ...opts, out: join(dir, 'one'), threads: 1, cacheDir: join(dir, 'c1') });
  // Chunks of 7 files over 3 workers: many chunks finish out of order.
  const many = await build({ ...opts, out: join(dir, 'many'), threads: 3, xsdBatchSize: 7, cacheDir: join(dir, 'c2') });
  assert.ok(one.catalog.stats.xmlFiles > 50, 'enough files for many chunks');
  assert.is(many.summary.rejected, 2);
  assert.equal(many.summary, one.summary);
  assert.equal(many.findings, one.findings);
  assert.equal(tree(join(dir, 'many')), tree(join(dir, 'one')));
});

/** A folder with a corpus of more EPDs than the page thread's minimum (src/emit/page-writer.ts): their pages go to it. */
async function pageThreadCorpus() {
  const { PAGE_THREAD_MIN } = await import('../../dist/emit/page-writer.js');
  const dir = tmp();
  const corpus = join(dir, 'corpus');
  const epds = PAGE_THREAD_MIN + 20;
  makeCorpus(corpus, epds);
  return { dir, corpus, epds, PAGE_THREAD_MIN };
}

// The page thread (src/emit/page-writer.ts) writes most EPD pages of a large build; the main thread the rest.
test('the page thread: the same site and the same cache record as one thread; its pages are linked and kept for the next builds', async () => {
  const { dir, corpus, epds, PAGE_THREAD_MIN } = await pageThreadCorpus();
  const opts = { inputs: [corpus], cwd: dir, now, clean: true, level: 1 };
  const one = await build({ ...opts, out: join(dir, 'one'), threads: 1, cacheDir: join(dir, 'c1') });
  const two = await build({ ...opts, out: join(dir, 'two'), threads: 2, cacheDir: join(dir, 'c2') });
  assert.is(two.summary.epds, epds);
  assert.equal(tree(join(dir, 'two')), tree(join(dir, 'one')));
  await Promise.all([one.settled, two.settled]);
  // What the cache records of the site (outputs, kept blobs), whatever thread wrote it: the same rows.
  const rows = (c) => {
    const file = readdirSync(c).find((f) => f.endsWith('.ndjson'));
    const lines = readFileSync(join(c, file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const of = (k) =>
      lines
        .filter((l) => l[0] === k)
        .flatMap((l) => l[2].map((r) => JSON.stringify(r)))
        .sort();
    return { outputs: of('O'), blobs: of('B') };
  };
  const [r1, r2] = [rows(join(dir, 'c1')), rows(join(dir, 'c2'))];
  assert.ok(r2.outputs.filter((r) => r.includes('/index.html"')).length > PAGE_THREAD_MIN, 'the pages are recorded');
  assert.equal(r2, r1);
  // A runner without the site: every page linked from the blobs the thread kept.
  rmSync(join(dir, 'two'), { recursive: true, force: true });
  const fresh = await build({ ...opts, clean: false, out: join(dir, 'two'), threads: 2, cacheDir: join(dir, 'c2') });
  assert.ok(fresh.cache.fromBlobs >= epds, `pages from the blobs: ${fresh.cache.fromBlobs}`);
  assert.equal(tree(join(dir, 'two')), tree(join(dir, 'one')));
});

// With --zip-export the page thread makes ZIP exports after its pages and copies, the main thread from the other end.
test('ZIP exports beside the page thread: the same site and cache record as one thread; kept for a runner without the site', async () => {
  const { dir, corpus, epds } = await pageThreadCorpus();
  const opts = { inputs: [corpus], cwd: dir, now, clean: true, level: 1, zipExport: true };
  const one = await build({ ...opts, out: join(dir, 'one'), threads: 1, cacheDir: join(dir, 'c1') });
  const two = await build({ ...opts, out: join(dir, 'two'), threads: 2, cacheDir: join(dir, 'c2') });
  const t2 = tree(join(dir, 'two'));
  assert.is(Object.keys(t2).filter((p) => p.endsWith('/zipexport.zip')).length, epds);
  assert.equal(t2, tree(join(dir, 'one')));
  await Promise.all([one.settled, two.settled]);
  rmSync(join(dir, 'two'), { recursive: true, force: true });
  const fresh = await build({ ...opts, clean: false, out: join(dir, 'two'), threads: 2, cacheDir: join(dir, 'c2') });
  assert.ok(fresh.cache.fromBlobs >= 2 * epds, `pages and exports from the blobs: ${fresh.cache.fromBlobs}`);
  assert.equal(tree(join(dir, 'two')), t2);
});

// The page thread also makes the pages' own folders and copies inputs (src/emit/write.ts startAside): under a umask
// that takes bits, with a private input and one changed after it was read, the same site and health as one thread.
test('the page thread copies inputs and makes page folders: modes, a private input, a changed one as one thread', async () => {
  const { dir, corpus, epds } = await pageThreadCorpus();
  const procs = readdirSync(join(corpus, 'processes')).sort();
  chmodSync(join(corpus, 'processes', procs[3]), 0o600);
  // Read, indexed and hashed; then changed on disk (same size) before the site is written: near the front of the
  // thread's copies and at the main thread's end, so either may copy it.
  const changed = [procs[0], procs.at(-1)].map((f) => join(corpus, 'processes', f));
  const change = (e) => {
    if (e.phase !== 'write') return;
    for (const f of changed)
      writeFileSync(f, readFileSync(f, 'utf8').replace('<baseName', '<baseNAME').replace('</baseName', '</baseNAME'));
  };
  const sites = {};
  const umask = process.umask(0o077);
  try {
    for (const threads of [1, 2]) {
      for (const f of changed) writeFileSync(f, readFileSync(f, 'utf8').replaceAll('baseNAME', 'baseName'));
      const out = join(dir, `t${threads}`);
      const r = await build({
        inputs: [corpus],
        cwd: dir,
        now,
        clean: true,
        level: 1,
        threads,
        out,
        cacheDir: join(dir, `c${threads}`),
        onProgress: change,
      });
      assert.is(r.summary.epds, epds);
      sites[threads] = { tree: tree(out), health: r.health, modes: wrongModes(out) };
    }
  } finally {
    process.umask(umask);
  }
  assert.equal(sites[2].modes, [], 'folders 0755, files 0644');
  assert.is(sites[2].health.status, 'fail', 'the changed inputs fail health');
  assert.equal(sites[2].health, sites[1].health);
  assert.equal(sites[2].tree, sites[1].tree);
});

// A failure in the write phase while the page thread writes: it is stopped (a thread left running would keep this
// process alive), its pages go with the temporary folder, and the previous site stays as it was.
test('a write that fails beside the page thread: the thread stopped, no temporary folder left, the previous site kept', async () => {
  const { dir, corpus } = await pageThreadCorpus();
  const out = join(dir, 'site');
  const opts = { inputs: [corpus], cwd: dir, now, level: 1, threads: 2, out, cacheDir: join(dir, 'cache') };
  const first = await build(opts);
  await first.settled;
  const before = tree(out);
  const beside = readdirSync(dir).sort();
  // Every page is made again (--clean), and an input the writer must copy is gone once the write phase starts.
  const gone = join(corpus, 'processes', readdirSync(join(corpus, 'processes')).sort()[7]);
  let failed;
  try {
    await build({ ...opts, clean: true, onProgress: (p) => p.phase === 'write' && rmSync(gone) });
  } catch (e) {
    failed = e;
  }
  assert.ok(failed, 'the build failed');
  // A worker thread still running holds a message port open.
  assert.not.ok(process.getActiveResourcesInfo().includes('MessagePort'), 'no thread left running');
  assert.equal(tree(out), before, 'the previous site as it was');
  assert.equal(
    readdirSync(dir)
      .sort()
      .filter((f) => !f.startsWith('.site.spare')),
    beside.filter((f) => !f.startsWith('.site.spare')),
    'no temporary folder left',
  );
});

test('a worker that runs out of memory costs time, not results: its chunks are read on the main thread', async () => {
  const { readAll } = await import('../../dist/catalog/pool.js');
  const { discoverInputs } = await import('../../dist/read/inputs.js');
  const files = (await discoverInputs([EXAMPLE_DATA], process.cwd())).files.filter((f) => f.kind === 'xml');
  const collect = async (o) => {
    const out = [];
    await readAll(files, { maxFileSize: 5e7, now, xsdBatchSize: 20, ...o }, (i, outcome) => (out[i] = outcome));
    return out;
  };
  const one = await collect({ threads: 1 });
  // 1 MB of heap: every worker dies at start-up, every chunk falls back; the run must still end, complete.
  const starved = await collect({ threads: 2, workerHeapMb: 1 });
  assert.is(starved.length, files.length);
  assert.equal(starved, one);
});

test('chunks: in input order, all files once; with workers the last ones shrink, so the workers end together', async () => {
  const { chunkFiles } = await import('../../dist/catalog/pool.js');
  const files = Array.from({ length: 1000 }, (_, i) => ({
    abs: `/x/${i}.xml`,
    path: `${i}.xml`,
    size: 1000,
    kind: /** @type {const} */ ('xml'),
  }));
  const sizes = (workers) => chunkFiles(files, 200, workers).chunks.map((c) => c.length);
  for (const workers of [1, 2, 3]) {
    const { chunks, starts } = chunkFiles(files, 200, workers);
    assert.equal(chunks.flat(), files, `${workers} workers: every file once, in order`);
    assert.equal(
      starts,
      chunks.map((_, k) => chunks.slice(0, k).reduce((n, c) => n + c.length, 0)),
    );
  }
  assert.equal(sizes(1), [200, 200, 200, 200, 200]);
  const two = sizes(2);
  assert.ok(
    two.every((n) => n <= 200),
    `never above the chunk size: ${two}`,
  );
  assert.ok(two.at(-1) <= 25 && two.at(-2) <= 25, `the last chunks are small: ${two}`);
  for (let k = 1; k < two.length; k++) assert.ok(two[k] <= two[k - 1], `sizes only go down: ${two}`);
  // Far from the end, whole chunks: 10,000 files on 2 workers start with 40 chunks of 200.
  const many = Array.from({ length: 10_000 }, (_, i) => ({ ...files[0], path: `${i}.xml` }));
  assert.equal(
    chunkFiles(many, 200, 2)
      .chunks.slice(0, 40)
      .map((c) => c.length),
    Array(40).fill(200),
  );
  // The byte cap still holds: 50 files of 1 MB make chunks of 40.
  const big = files.slice(0, 50).map((f) => ({ ...f, size: 1_000_000 }));
  assert.equal(
    chunkFiles(big, 200, 1).chunks.map((c) => c.length),
    [40, 10],
  );
});

test('ZIP exports only with --zip-export: off by default, on adds them and changes no other file', async () => {
  const dir = tmp();
  const opts = { inputs: [EXAMPLE_DATA], cwd: dir, now, clean: true };
  await build({ ...opts, out: join(dir, 'with'), zipExport: true, cacheDir: join(dir, 'c1') });
  const byDefault = await build({ ...opts, out: join(dir, 'without'), cacheDir: join(dir, 'c2') });
  assert.is(byDefault.config.zipExport, false);
  const withZip = tree(join(dir, 'with'));
  const without = tree(join(dir, 'without'));
  const zips = Object.keys(withZip).filter((p) => p.endsWith('/zipexport.zip'));
  assert.ok(zips.length >= 5, '--zip-export emits them');
  assert.not.ok(
    Object.keys(without).some((p) => p.endsWith('zipexport.zip')),
    'the default does not',
  );
  // Health and the build marker count files, so they differ; EPD pages and the catalogue link the exports only where
  // they exist.
  const differing = Object.keys(withZip).filter((p) => !p.endsWith('zipexport.zip') && without[p] !== withZip[p]);
  assert.equal(
    differing.filter((p) => !/^(healthz|v1\/healthz|\.po-node\.json|epd\/|index\.html(\.gz|\.br)?$)/.test(p)),
    [],
  );
  assert.ok(differing.includes('index.html'), 'the catalogue links ZIP exports only where they exist');
  const page = (t) => t['epd/2eb43850-0ab2-4068-afe5-218d69a096f8/index.html'];
  assert.ok(page(withZip) !== page(without), 'the page of an EPD without export has no link to one');
});

test.run();
