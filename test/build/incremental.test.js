import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BuildCache, cacheFile } from '../../dist/cache/build-cache.js';
import { BuildManifest, describeTree } from '../../dist/cache/manifest.js';
import { EXAMPLE_DATA, REAL_EPDS, build, cleanup, tmp, tree, walkFiles } from '../helpers/index.js';

test.after.each(cleanup);

const now = new Date('2026-01-02T03:04:05Z');
// With ZIP exports: their reuse (from the previous site, or the cache's blobs on a fresh runner) is tested too.
const quiet = { now, zipExport: true };

/** An incremental build into `inc` and a clean build of the same inputs into a fresh folder: same tree. */
async function compare(dir, inc, extra = {}) {
  const a = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet, ...extra });
  const fresh = join(tmp(), 'site');
  const b = await build({ inputs: [join(dir, 'data')], out: fresh, cwd: dir, clean: true, ...quiet, ...extra });
  assert.equal(tree(inc), tree(fresh));
  // As JSON: the report writes them so, keys in their order (cached findings are made again from templates).
  assert.is(JSON.stringify(a.findings), JSON.stringify(b.findings));
  return a;
}

test('incremental builds are byte-identical to clean builds: no change, change, delete, add, config', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const inc = join(dir, 'site');
  const [e0, e1, e2] = REAL_EPDS;
  const epdOut = (e) => join(inc, 'resource/processes', e.uuid);
  const zipOut = (e) => join(inc, 'resource/processes', `${e.uuid}_files/zipexport.zip`);
  const first = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet });
  // The cache is saved after the result is returned (off the critical path).
  await first.settled;
  const cached = cacheFile(first.config);
  assert.ok(existsSync(cached), 'cache written to the cache folder');
  assert.not.ok(
    readdirSync(inc).some((n) => n.includes('cache')),
    'not into the site',
  );

  // No change: outputs are the previous files (hard links: same inode), not rewritten.
  const ino = statSync(epdOut(e0)).ino;
  const zipIno = statSync(zipOut(e0)).ino;
  const a = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet });
  const cacheIno = statSync(cached).ino;
  await compare(dir, inc);
  assert.is(statSync(cached).ino, cacheIno, 'a no-op rebuild leaves the cache file as it was');
  assert.ok(a.written);
  assert.is(a.cache.read, 0, 'nothing read again');
  assert.ok(a.cache.byStat > 0 && a.cache.byContent === 0, 'same machine: stat is enough');
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
  assert.not.ok(
    r.findings.some((f) => f.ruleId.startsWith('eco-')),
    'rules off: no cached rule findings',
  );
});

test('the cache gives back each finding as recorded: key order, its file or another or none, line and column or not', async () => {
  const dir = tmp();
  const abs = join(dir, 'a.xml');
  writeFileSync(abs, '<a/>');
  const st = statSync(abs);
  /** @type {import('../../dist/read/inputs.js').InputFile} */
  const file = { path: 'a.xml', abs, size: st.size, kind: 'xml', stat: [st.mtimeMs, st.ctimeMs, st.ino] };
  const base = {
    ruleId: 'eco-location',
    severity: 'warning',
    file: 'a.xml',
    line: 3,
    col: 5,
    xpath: '/a',
    message: 'Location missing.',
    params: { case: 'missing' },
  };
  const findings = [
    base,
    { ...base, line: 9, col: 1 },
    { ruleId: 'xml-doctype', severity: 'error', file: 'a.xml', message: 'No DOCTYPE.' },
    { severity: 'warning', ruleId: 'odd-order', col: 2, file: 'a.xml', line: 1, message: 'Keys in another order.' },
    { ruleId: 'elsewhere', severity: 'info', file: 'b.xml', line: 4, col: 4, message: 'Another file.' },
    { ruleId: 'nowhere', severity: 'info', message: 'No file.' },
    { ruleId: 'archived', severity: 'info', file: 'a.xml', entry: 'x/y.xml', line: 2, col: 7, message: 'With an entry.' },
  ];
  /** @type {import('../../dist/catalog/read.js').ReadOutcome} */
  const outcome = { findings: /** @type {any} */ (findings), sha256: 'ab'.repeat(32), digest: 'ab'.repeat(32) };
  const at = join(dir, 'cache.ndjson');
  /** The outcome recorded and saved by one cache, then looked up by the next (a new build's). */
  const roundTrip = async (o) => {
    const c = new BuildCache(join(dir, 'site'), dir, 'key', false, at).load();
    c.record(file, c.stat(file), o);
    c.save();
    return (await new BuildCache(join(dir, 'site'), dir, 'key', false, at).load().lookupAll([file]))[0];
  };
  const got = await roundTrip(outcome);
  assert.ok(readFileSync(at, 'utf8').includes('["t",'), 'findings stored by template');
  assert.is(JSON.stringify(got), JSON.stringify(outcome));
  // Without an outcome's digest, or with one of its own: as recorded.
  for (const digest of [undefined, 'cd'.repeat(32)]) {
    const o = { findings: [], sha256: 'ab'.repeat(32), ...(digest ? { digest } : {}) };
    assert.is(JSON.stringify(await roundTrip(o)), JSON.stringify(o));
  }
});

test('a cache that names a value or reference line it does not hold is unreadable: a full build, not a crash', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const inc = join(dir, 'site');
  const first = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, now });
  await first.settled;
  const file = cacheFile(first.config);
  const lines = readFileSync(file, 'utf8').split('\n');
  for (const kind of ['v', 'r', 't'])
    assert.ok(
      lines.some((l) => l.startsWith(`["${kind}",`)),
      `repeated values stored once ('${kind}')`,
    );
  for (const kind of ['v', 'r', 't']) {
    writeFileSync(file, lines.filter((l) => !l.startsWith(`["${kind}",`)).join('\n'));
    // An input changed, so the build does not stop at the build manifest ("nothing changed") before the cache.
    writeFileSync(join(dir, 'data', REAL_EPDS[0].file), `${readFileSync(join(dir, 'data', REAL_EPDS[0].file), 'utf8')} `);
    const r = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, now });
    await r.settled;
    assert.ok(r.written && r.status === 'ok', `without its '${kind}' lines`);
    assert.equal([r.cache.byStat, r.cache.byContent], [0, 0], `without its '${kind}' lines every input is read again`);
    writeFileSync(file, lines.join('\n'));
  }
});

test('--clean ignores the cache: files are written anew', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const inc = join(dir, 'site');
  const first = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet });
  await first.settled;
  const p = join(inc, 'resource/processes', REAL_EPDS[0].uuid);
  const ino = statSync(p).ino;
  // The copies kept beside the cache (EPD pages, ZIP exports) are named by content key: the clean build finds the same
  // names and keeps those files rather than unlinking and linking each again.
  const blobs = cacheFile(first.config).replace(/\.ndjson$/, '.blobs');
  const kept = () => Object.fromEntries(readdirSync(blobs).map((n) => [n, statSync(join(blobs, n)).ino]));
  const before = kept();
  assert.ok(Object.keys(before).length > 5, 'pages and exports kept');
  const again = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, clean: true, ...quiet });
  await again.settled;
  assert.is.not(statSync(p).ino, ino);
  assert.equal(kept(), before);
});

/** A CI project: config, inputs and the cache folder inside the checkout. */
function project(dir) {
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify({ inputs: ['data'], out: 'site', cacheDir: '.po-node-cache' }));
  return { cwd: dir, config: join(dir, 'po-node.config.json'), ...quiet };
}

test('fresh runner: the same inputs at another path, new mtimes, the cache folder restored: nothing is parsed again', async () => {
  const a = tmp('po-node-runner-a-');
  const first = await build(project(a));
  await first.settled;
  assert.ok(existsSync(join(a, '.po-node-cache')), 'cacheDir from the config, relative to it');
  assert.ok(first.cache.read > 0);

  // The next CI run: a new checkout somewhere else (new mtimes and ctimes), actions/cache restores the cache folder.
  const b = tmp('po-node-runner-b-');
  cpSync(join(a, 'data'), join(b, 'data'), { recursive: true });
  cpSync(join(a, 'po-node.config.json'), join(b, 'po-node.config.json'));
  const later = new Date(Date.now() + 3_600_000);
  for (const f of walkFiles(join(b, 'data'))) utimesSync(f, later, later);
  cpSync(join(a, '.po-node-cache'), join(b, '.po-node-cache'), { recursive: true });
  const r = await build({ cwd: b, config: join(b, 'po-node.config.json'), ...quiet });
  assert.is(r.cache.read, 0, 'no input parsed or validated again');
  assert.is(r.cache.byStat, 0, 'stat is not trusted on another machine');
  assert.is(r.cache.byContent, first.cache.read, 'every input recognised by its bytes');
  assert.ok(r.cache.fromBlobs > 0, 'ZIP exports, EPD pages, precompressed copies and whole lists taken from the cache, not made again');
  const whole = /\/(resource\/processes\/index\.(xml|json)|v1\/epds\/index\.json)$/;
  const made = (f) => f.endsWith('zipexport.zip') || /\/epd\/[^/]+\/index\.html$/.test(f) || /\.(gz|br)$/.test(f) || whole.test(f);
  assert.is(r.cache.fromBlobs, walkFiles(join(b, 'site')).filter(made).length);
  assert.equal(tree(join(b, 'site')), tree(join(a, 'site')), 'the same site as the clean build');
  assert.equal(r.findings, first.findings);
  for (const f of walkFiles(join(b, 'site'))) {
    const bytes = readFileSync(f);
    assert.not.ok(bytes.includes(a) || bytes.includes(b), `no local path in ${f}`);
  }

  // 1% changed on that runner: only the changed file is read; the site still equals a clean build.
  const f1 = join(b, 'data', REAL_EPDS[1].file);
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  const c = await build({ cwd: b, config: join(b, 'po-node.config.json'), ...quiet });
  assert.is(c.cache.read, 1);
  const clean = await build({ cwd: b, config: join(b, 'po-node.config.json'), out: join(tmp(), 'site'), clean: true, ...quiet });
  assert.equal(tree(join(b, 'site')), tree(clean.out));
  assert.equal(c.findings, clean.findings);
});

test('fresh runner: the unchanged entries of the whole lists come from their copies kept beside the cache', async () => {
  const a = tmp('po-node-runner-a-');
  await (
    await build(project(a))
  ).settled;
  const cacheDir = join(a, '.po-node-cache');
  const blobs = join(
    cacheDir,
    readdirSync(cacheDir).find((f) => f.endsWith('.blobs')),
  );
  // Each whole list is kept as a hard link of the site's file (not a copy: every build writes them anew).
  const keptOf = (file) =>
    readdirSync(blobs)
      .map((n) => join(blobs, n))
      .find((p) => statSync(p).ino === statSync(file).ino);
  const WHOLE = ['resource/processes/index.xml', 'resource/processes/index.json', 'v1/epds/index.json'];
  for (const l of WHOLE) assert.ok(keptOf(join(a, 'site', l)), `${l} kept beside the cache`);
  const keptXml = keptOf(join(a, 'site', WHOLE[0]));

  // Another checkout with the cache folder restored (copied), one EPD changed.
  const [e0, e1] = REAL_EPDS;
  const runner = (name) => {
    const b = tmp(name);
    cpSync(join(a, 'data'), join(b, 'data'), { recursive: true });
    cpSync(join(a, 'po-node.config.json'), join(b, 'po-node.config.json'));
    cpSync(cacheDir, join(b, '.po-node-cache'), { recursive: true });
    const f1 = join(b, 'data', e1.file);
    writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
    return { b, kept: join(b, relative(a, keptXml)) };
  };
  const clean = async (b) =>
    tree((await build({ cwd: b, config: join(b, 'po-node.config.json'), out: join(tmp(), 'site'), clean: true, ...quiet })).out);

  // The unchanged EPD's entry marked in the kept copy (the same length): the runner's list carries the mark, so the
  // entry was taken from there; the changed EPD's entry is rendered anew.
  const { b, kept } = runner('po-node-runner-b-');
  const marked = e0.uuid.toUpperCase();
  assert.is.not(marked, e0.uuid, 'the UUID has letters to mark');
  writeFileSync(kept, readFileSync(kept, 'latin1').replace(e0.uuid, marked), 'latin1');
  const r = await build({ cwd: b, config: join(b, 'po-node.config.json'), ...quiet });
  assert.is(r.cache.read, 1);
  const list = readFileSync(join(b, 'site', WHOLE[0]), 'utf8');
  assert.ok(list.includes(marked), 'the unchanged entry spliced from the kept copy');
  assert.ok(list.includes('Changed '), 'the changed entry rendered');

  // A kept copy of another size than recorded (marked as above, and a byte longer) is not used: every entry rendered,
  // the site that of a clean build.
  const c = runner('po-node-runner-c-');
  writeFileSync(c.kept, `${readFileSync(c.kept, 'latin1').replace(e0.uuid, marked)} `, 'latin1');
  await build({ cwd: c.b, config: join(c.b, 'po-node.config.json'), ...quiet });
  assert.equal(tree(join(c.b, 'site')), await clean(c.b));
});

test('fresh runner: a config in a subfolder with the site beside it (out "../site", as the example node) is recognised too', async () => {
  // The host configs' site root defaults to the output folder, an absolute path: outside the config's folder it went
  // into the cache key as it was, so another checkout path never matched the cache.
  const setUp = (dir) => {
    cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
    const config = { inputs: ['../data'], out: '../site', cacheDir: '../.po-node-cache' };
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf', 'po-node.config.json'), JSON.stringify(config));
    return { cwd: dir, config: join(dir, 'conf', 'po-node.config.json'), ...quiet };
  };
  const a = tmp('po-node-runner-a-');
  const first = await build(setUp(a));
  await first.settled;
  const b = tmp('po-node-runner-b-');
  const opts = setUp(b);
  cpSync(join(a, '.po-node-cache'), join(b, '.po-node-cache'), { recursive: true });
  const r = await build(opts);
  assert.is(r.cache.read, 0, 'no input parsed or validated again');
  assert.is(r.cache.byContent, first.cache.read, 'every input recognised by its bytes');
  assert.equal(tree(join(b, 'site')), tree(join(a, 'site')));
});

test('fresh runner: a changed config or a file with the same size but other bytes is not taken from the cache', async () => {
  const a = tmp('po-node-runner-a-');
  const first = await build(project(a));
  await first.settled;
  const b = tmp('po-node-runner-b-');
  cpSync(a, b, { recursive: true });
  rmSync(join(b, 'site'), { recursive: true });
  // Same size, other bytes: one letter of a name.
  const f0 = join(b, 'data', REAL_EPDS[0].file);
  const text = readFileSync(f0, 'utf8');
  writeFileSync(
    f0,
    text.replace(/(<baseName[^>]*>)(.)/, (_m, t, ch) => `${t}${ch === 'X' ? 'Y' : 'X'}`),
  );
  assert.is(statSync(f0).size, Buffer.byteLength(text));
  const r = await build({ cwd: b, config: join(b, 'po-node.config.json'), ...quiet });
  assert.is(r.cache.read, 1);
  const clean = await build({ cwd: b, config: join(b, 'po-node.config.json'), out: join(tmp(), 'site'), clean: true, ...quiet });
  assert.equal(tree(join(b, 'site')), tree(clean.out));
  const changed = await build({ cwd: b, config: join(b, 'po-node.config.json'), baseUrl: 'https://epd.example.org/node', ...quiet });
  assert.is(changed.cache.read, first.cache.read, 'config change: a full build');
});

test('pages of the EPD list: unchanged ones are linked, a changed EPD or declared unit renders its pages again', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify({ paging: { pageSizes: [2] } }));
  const extra = { config: join(dir, 'po-node.config.json') };
  const inc = join(dir, 'site');
  await (
    await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, ...quiet, ...extra })
  ).settled;
  const pages = join(inc, 'resource/processes/pages/2');
  // The pages themselves (their precompressed siblings follow them, by their own content key).
  const docs = () => readdirSync(pages).filter((f) => /\.(xml|json)$/.test(f));
  const holding = (uuid) => docs().filter((f) => readFileSync(join(pages, f), 'utf8').includes(uuid));
  const inodes = () => new Map(docs().map((f) => [f, statSync(join(pages, f)).ino]));
  const [e0, e1] = REAL_EPDS;
  assert.ok(docs().length >= 6 && holding(e1.uuid).length === 2, 'several pages, one per format holds the EPD');

  // One EPD changed: only its page (both formats) and the whole lists are rendered again.
  const f1 = join(dir, 'data', e1.file);
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  let before = inodes();
  const last = await compare(dir, inc, extra);
  for (const [f, ino] of inodes()) {
    if (holding(e1.uuid).includes(f)) assert.is.not(ino, before.get(f), `${f} holds the changed EPD`);
    else assert.is(ino, before.get(f), `${f} linked`);
  }
  assert.ok(holding('Changed ').length === 2);
  // The manifest records the files linked from the previous site by that site's record of them, not by an lstat:
  // it still describes the site as it is (else the next build would take the unchanged site for changed).
  await last.settled;
  const { trees } = JSON.parse(readFileSync(new BuildManifest(cacheFile(last.config)).manifestFile, 'utf8'));
  const byPath = (entries) => new Map(entries.map((e) => [e[0], e]));
  assert.equal(byPath(trees[0].entries), byPath(describeTree(inc).entries));

  // The EPD's bytes are the same, but its declared unit (the name of its reference flow) changed: its pages too.
  const unit = JSON.parse(readFileSync(join(inc, 'resource/processes/index.json'), 'utf8')).data.find((d) => d.uuid === e0.uuid)
    .referenceFlows[0];
  const flow = walkFiles(join(dir, 'data')).find((f) => f.includes(`/flows/${unit.uuid}`));
  writeFileSync(flow, readFileSync(flow, 'utf8').replace(/(<baseName[^>]*>)/, '$1Renamed '));
  before = inodes();
  await compare(dir, inc, extra);
  assert.ok(holding(e0.uuid).every((f) => inodes().get(f) !== before.get(f)));
  assert.ok(holding('Renamed ').length >= 1, 'the new name is listed');
});

test('a reused file of the previous site gets the site mode back (0644), whatever mode it had', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const inc = join(dir, 'site');
  const [e0, e1] = REAL_EPDS;
  const epdOut = join(inc, 'resource/processes', e0.uuid);
  await (
    await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, now })
  ).settled;
  chmodSync(epdOut, 0o600);
  const ino = statSync(epdOut).ino;
  const f1 = join(dir, 'data', e1.file);
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  const r = await build({ inputs: [join(dir, 'data')], out: inc, cwd: dir, now });
  assert.ok(r.cache.fromSite > 0, 'outputs linked from the previous site');
  assert.is(statSync(epdOut).ino, ino, 'the unchanged EPD is the previous file');
  assert.is(statSync(epdOut).mode & 0o777, 0o644);
});

test.run();
