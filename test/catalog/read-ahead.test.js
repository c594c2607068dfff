// An incremental build reads the inputs changed since the last build (by the build manifest's stats) in a worker
// thread while the cache loads (src/catalog/build.ts readAhead): the same outcomes as the read on the main thread.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCatalog, readAhead } from '../../dist/catalog/build.js';
import { readAll, startReadWorker } from '../../dist/catalog/pool.js';
import { cacheFile } from '../../dist/cache/build-cache.js';
import { BuildManifest, statInputs } from '../../dist/cache/manifest.js';
import { discoverInputs } from '../../dist/read/inputs.js';
import { prepareRead, startReadAhead } from '../../dist/pipeline/read.js';
import { EXAMPLE_DATA, REAL_EPDS, build, cleanup, tmp } from '../helpers/index.js';

test.after.each(cleanup);

const now = new Date('2026-01-02T03:04:05Z');
const opts = { maxFileSize: 50 << 20, now };

function data() {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const [e0] = REAL_EPDS;
  // A file rejected at level 1 and one with a rule error among the real ones.
  writeFileSync(join(dir, 'data', 'broken.xml'), '<processDataSet><unclosed></processDataSet>');
  const good = readFileSync(join(dir, 'data', e0.file), 'utf8');
  writeFileSync(
    join(dir, 'data', 'rule.xml'),
    good
      .replaceAll(e0.uuid, '0badc0de-0000-4000-8000-00000000000a')
      .replace('<referenceToReferenceFlow>0<', '<referenceToReferenceFlow>9<'),
  );
  return dir;
}

/** The inputs of data(), their XML files, and each one's outcome as read on the main thread. */
async function readOnMain() {
  const dir = data();
  const { files } = await discoverInputs([join(dir, 'data')], dir);
  const xml = files.filter((f) => f.kind === 'xml');
  const main = [];
  await readAll(xml, { ...opts, threads: 1 }, (k, o) => (main[k] = o));
  return { files, xml, main };
}

test('a read ahead in a worker gives each file the outcome of the read on the main thread', async () => {
  const { files, xml, main } = await readOnMain();
  const ahead = readAhead(xml, opts);
  assert.equal(await ahead.outcomes, main);
  assert.ok(main.some((o) => !o.header) && main.some((o) => o.findings.some((f) => f.ruleId.startsWith('eco-'))), 'bad files among them');
  // Taken by the catalog as its own read would be.
  const plain = await buildCatalog(files, [], opts);
  const withAhead = await buildCatalog(files, [], { ...opts, ahead: readAhead(xml, opts) });
  assert.equal(withAhead, plain);
});

test('the build manifest names the inputs changed since the last build of the same key', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const r = await build({ inputs: [join(dir, 'data')], out: join(dir, 'site'), cwd: dir, now });
  await r.settled;
  const manifest = new BuildManifest(cacheFile(r.config));
  const doc = JSON.parse(readFileSync(manifest.manifestFile, 'utf8'));
  const key = doc.key;
  const found = async () => (await discoverInputs([join(dir, 'data')], dir)).files;
  /** The inputs changed since that build, asked as the build asks (the files and their stats). */
  const changedSince = async (k, max) => {
    const files = await found();
    return manifest.changedInputs(k, files, statInputs(files).inputs, max);
  };
  assert.equal(await changedSince(key, 10), [], 'nothing changed');
  const [e0] = REAL_EPDS;
  const f = join(dir, 'data', e0.file);
  writeFileSync(f, readFileSync(f, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  writeFileSync(join(dir, 'data', 'new.xml'), '<x/>');
  const changed = await changedSince(key, 10);
  assert.equal(changed.map((c) => c.abs).sort(), [join(dir, 'data', 'new.xml'), f].sort());
  assert.is(await changedSince(key, 1), undefined, 'more than the limit: none');
  assert.is(await changedSince(`${key}x`, 10), undefined, 'another key: none');
});

test('a file read ahead is not hashed by the cache to see whether its bytes changed: its read tells', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const at = { inputs: [join(dir, 'data')], out: join(dir, 'site'), cwd: dir, now };
  await (
    await build(at)
  ).settled;
  // Touched: a new stat, the same bytes. Read ahead (threads 2), it is read, not hashed and taken from the cache.
  const f = join(dir, 'data', REAL_EPDS[0].file);
  writeFileSync(f, readFileSync(f));
  const ahead = await build({ ...at, threads: 2 });
  await ahead.settled;
  assert.equal([ahead.cache.read, ahead.cache.byContent], [1, 0], 'read ahead');
  // Without a read ahead (threads 1) the cache hashes it and takes its outcome.
  writeFileSync(f, readFileSync(f));
  const main = await build({ ...at, threads: 1 });
  await main.settled;
  assert.equal([main.cache.read, main.cache.byContent], [0, 1], 'on the main thread');
  assert.equal(main.findings, ahead.findings);
});

test('no read ahead where the user asked for no worker threads (threads 1, PO_NODE_THREADS=1)', async () => {
  const dir = data();
  const prepared = await prepareRead({ inputs: [join(dir, 'data')], cwd: dir, now });
  const files = prepared.found.files;
  assert.ok(startReadAhead(prepared, files, { threads: 2 }), 'started with threads');
  assert.is(startReadAhead(prepared, files, { threads: 1 }), undefined);
  const env = process.env.PO_NODE_THREADS;
  process.env.PO_NODE_THREADS = '1';
  try {
    assert.is(startReadAhead(prepared, files), undefined);
  } finally {
    if (env === undefined) delete process.env.PO_NODE_THREADS;
    else process.env.PO_NODE_THREADS = env;
  }
  // Only plain XML files are read ahead (documents, ZIP archives are not).
  const ahead = startReadAhead(prepared, files, { threads: 2 });
  assert.ok(ahead.files.every((f) => f.kind === 'xml' && f.entry === undefined));
  await ahead.outcomes;
});

test('a read ahead takes a worker started before it, live or already gone: the same outcomes', async () => {
  const { xml, main } = await readOnMain();
  assert.equal(await readAhead(xml, opts, startReadWorker()).outcomes, main);
  // A warm worker that died before the read (out of memory as it loaded, say) is replaced.
  const dead = startReadWorker();
  await dead.terminate();
  assert.equal(await readAhead(xml, opts, dead).outcomes, main);
});

/** Threads of this process (Linux): a worker thread that was not ended shows here. */
const threads = () => Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);

test('a build that needs no read ahead ends the worker it started for one (no-op, nothing read)', async () => {
  if (process.platform !== 'linux') return;
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const run = async () => {
    const r = await build({ inputs: [join(dir, 'data')], out: join(dir, 'site'), cwd: dir, now });
    await r.settled;
    return r;
  };
  // Stats taken within a clock tick of a change prove nothing (the manifest refuses them): let file times move on.
  const tick = () => new Promise((ok) => setTimeout(ok, 120));
  await tick();
  await run();
  // Threads end a little after terminate() settles.
  const settle = async (want) => {
    for (let i = 0; i < 100 && threads() > want; i++) await new Promise((ok) => setTimeout(ok, 20));
    return threads();
  };
  await new Promise((ok) => setTimeout(ok, 100));
  const before = threads();
  const noop = await run();
  assert.ok(noop.upToDate, 'a no-op');
  assert.ok((await settle(before)) <= before, 'no thread left by the no-op');
  // A change: the worker read it and was ended with the read.
  const [e0] = REAL_EPDS;
  const f = join(dir, 'data', e0.file);
  writeFileSync(f, readFileSync(f, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  await tick();
  const changed = await run();
  assert.is(changed.upToDate, false);
  assert.is(changed.cache.read, 1);
  assert.ok((await settle(before)) <= before, 'no thread left by the read ahead');
});

test.run();
