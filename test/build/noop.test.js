// No-op rebuilds (docs/performance.md "No-op rebuilds"): the build manifest recognises "nothing changed" and the site
// is kept; every change that could alter the output is seen, and the replaced tree is deleted off the critical path.
import { isAscii } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cacheFile } from '../../dist/cache/build-cache.js';
import { removeStaleTemps } from '../../dist/emit/output-dir.js';
import { makeCorpus } from '../helpers/corpus.js';
import { BIN, EXAMPLE_DATA, REAL_EPDS, ROOT, build, cleanup, tmp, tree } from '../helpers/index.js';

test.after.each(cleanup);

const MORNING = new Date('2026-01-02T03:04:05Z');
const EVENING = new Date('2026-01-02T21:00:00Z');

/** A project with its own inputs; builds into `site` with the options given. */
function project() {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const opts = (extra = {}) => ({ inputs: [join(dir, 'data')], out: join(dir, 'site'), cwd: dir, xsd: false, now: MORNING, ...extra });
  // Stats taken within a clock tick of a change prove nothing (the manifest refuses them): let file times move on.
  const settle = () => sleep(120);
  return { dir, out: join(dir, 'site'), opts, settle };
}

/**
 * Before each change: the shortcut is live (a build now is a no-op), so a test that then sees no no-op proves the
 * change was seen, not that the shortcut was off anyway. A build right after a change records stats too close to it
 * to be trusted: the build after that one is the no-op.
 */
async function ready(p, extra = {}) {
  await p.settle();
  let r = await build(p.opts(extra));
  if (!r.upToDate) {
    await p.settle();
    r = await build(p.opts(extra));
  }
  assert.ok(r.upToDate, 'the no-op shortcut is live before the change');
  await p.settle();
}

/** The same inputs built clean into a fresh folder: the tree and the findings an incremental build must equal. */
async function clean(p, extra = {}) {
  return build({ ...p.opts(extra), out: join(tmp(), 'site'), clean: true });
}

async function assertLikeClean(p, r, extra = {}) {
  const c = await clean(p, extra);
  assert.equal(tree(p.out), tree(c.out));
  assert.equal(r.findings, c.findings);
  assert.equal(r.summary, c.summary);
  assert.equal(r.health, c.health);
}

const epdOut = (p, e) => join(p.out, 'resource/processes', e.uuid);

test('no-op rebuild: the site is kept, only health and index.html get the new build time; same tree as a clean build', async () => {
  const p = project();
  const first = await build(p.opts());
  await ready(p);
  const ino = statSync(epdOut(p, REAL_EPDS[0])).ino;
  const indexIno = statSync(join(p.out, 'index.html')).ino;
  const same = await build(p.opts());
  assert.ok(same.upToDate, 'recognised as unchanged');
  assert.is(same.cache.read, 0);
  assert.is(same.catalog, undefined, 'nothing was read');
  assert.equal(same.findings, first.findings);
  assert.equal(same.health, first.health);
  assert.is(statSync(join(p.out, 'index.html')).ino, indexIno, 'the same build time: nothing written');
  // The manifest and the stored result are ASCII (read as latin1, not decoded); the names in them come back as written
  // (index.html below, rewritten from the stored parts, equals a clean build's).
  const stored = cacheFile(first.config).replace(/\.ndjson$/, '');
  for (const ext of ['.result.json', '.manifest.json']) assert.ok(isAscii(readFileSync(stored + ext)), `${ext} is ASCII`);

  // Later the same day: the build time moves on in health and index.html, nothing else changes.
  const later = await build(p.opts({ now: EVENING }));
  assert.ok(later.upToDate);
  assert.is(later.health.builtAt, EVENING.toISOString());
  assert.is(JSON.parse(readFileSync(join(p.out, 'healthz/index.json'), 'utf8')).builtAt, EVENING.toISOString());
  assert.ok(readFileSync(join(p.out, 'index.html'), 'utf8').includes(EVENING.toISOString()));
  assert.ok(readFileSync(join(p.out, 'index.html'), 'utf8').includes('Holzböden'), 'a stored non-ASCII name as written');
  assert.is.not(statSync(join(p.out, 'index.html')).ino, indexIno, 'index.html replaced by a rename');
  assert.is(statSync(epdOut(p, REAL_EPDS[0])).ino, ino, 'the EPD files stay as they are');
  await assertLikeClean(p, later, { now: EVENING });
  // And it still is a no-op afterwards: the rewritten files do not count as changes to the site.
  assert.ok((await build(p.opts({ now: EVENING }))).upToDate);
});

/** Each change must be seen: no shortcut, and the site and report equal a clean build's. */
async function changed(p, extra = {}) {
  const r = await build(p.opts(extra));
  assert.not.ok(r.upToDate, 'a change must not be taken for a no-op');
  await assertLikeClean(p, r, extra);
  await r.settled;
  return r;
}

test('edited, same-size, added, removed and renamed inputs are never missed', async () => {
  const p = project();
  await build(p.opts());
  const f1 = join(p.dir, 'data', REAL_EPDS[1].file);
  // Edited.
  await ready(p);
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  await changed(p);
  assert.ok(readFileSync(epdOut(p, REAL_EPDS[1]), 'utf8').includes('Changed '));
  // Other bytes of the same size, the mtime put back exactly: the ctime still moves.
  const at = new Date('2025-06-01T00:00:00Z');
  utimesSync(f1, at, at);
  await ready(p);
  const text = readFileSync(f1, 'utf8');
  writeFileSync(f1, text.replace('Changed ', 'Chunged '));
  utimesSync(f1, at, at);
  assert.is(statSync(f1).size, Buffer.byteLength(text));
  assert.is(statSync(f1).mtimeMs, at.getTime());
  await changed(p);
  assert.ok(readFileSync(epdOut(p, REAL_EPDS[1]), 'utf8').includes('Chunged '));
  // Added.
  await ready(p);
  const uuid = '0badc0de-0000-4000-8000-000000000002';
  const added = join(p.dir, 'data', 'added.xml');
  writeFileSync(added, readFileSync(join(p.dir, 'data', REAL_EPDS[0].file), 'utf8').replaceAll(REAL_EPDS[0].uuid, uuid));
  await changed(p);
  assert.ok(existsSync(join(p.out, 'resource/processes', uuid)));
  // Renamed (same inode, same bytes: only its path, and so the findings' file names, change).
  await ready(p);
  renameSync(added, join(p.dir, 'data', 'renamed.xml'));
  const renamed = await changed(p);
  assert.ok(renamed.findings.some((f) => f.file?.endsWith('renamed.xml')));
  // Removed.
  await ready(p);
  rmSync(join(p.dir, 'data', 'renamed.xml'));
  await changed(p);
  assert.not.ok(existsSync(join(p.out, 'resource/processes', uuid)));
});

test('a config change, another SOURCE_DATE_EPOCH or a manifest of another po-node is never taken for a no-op', async () => {
  const p = project();
  await build(p.opts());
  await ready(p);
  await changed(p, { baseUrl: 'https://epd.example.org/node' });
  await ready(p, { baseUrl: 'https://epd.example.org/node' });
  await changed(p, { baseUrl: 'https://epd.example.org/node', level: 1 });
  const opts = { baseUrl: 'https://epd.example.org/node', level: 1 };
  await ready(p, opts);

  // SOURCE_DATE_EPOCH stamps every file's mtime: another value is another site.
  const sde = process.env.SOURCE_DATE_EPOCH;
  try {
    process.env.SOURCE_DATE_EPOCH = '1767323045';
    await changed(p, opts);
    await ready(p, opts);
    process.env.SOURCE_DATE_EPOCH = '1767323046';
    await changed(p, opts);
  } finally {
    if (sde === undefined) delete process.env.SOURCE_DATE_EPOCH;
    else process.env.SOURCE_DATE_EPOCH = sde;
  }

  // The manifest as another po-node (another version, or another build of the same version) would have written it.
  await ready(p, opts);
  const r = await build(p.opts(opts));
  assert.ok(r.upToDate);
  const file = cacheFile(r.config).replace(/\.ndjson$/, '.manifest.json');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const key = JSON.parse(doc.key);
  assert.match(key.code, /^\d+\.\d+\.\d+/, 'the key names the version');
  writeFileSync(file, JSON.stringify({ ...doc, key: JSON.stringify({ ...key, code: `0.0.1@${key.code.split('@')[1]}` }) }));
  await changed(p, opts);
});

test('the stored build-time files of another build, cut short or gone: no no-op, a build like a clean one', async () => {
  const p = project();
  const first = await build(p.opts());
  const file = cacheFile(first.config).replace(/\.ndjson$/, '.stamped');
  const bytes = readFileSync(file);
  // The nonce's line, then index.html and the others split at the build time (the names in them as written).
  assert.match(bytes.toString('latin1', 0, 17), /^[0-9a-f]{16}\n$/);
  assert.ok(bytes.includes(Buffer.from('Holzböden')), 'stored as the bytes written');
  const edits = [
    () => writeFileSync(file, Buffer.concat([Buffer.from('0000000000000000'), bytes.subarray(16)])),
    () => writeFileSync(file, bytes.subarray(0, bytes.length - 1)),
    () => writeFileSync(file, Buffer.concat([bytes, Buffer.from('x')])),
    () => rmSync(file),
  ];
  for (const edit of edits) {
    await ready(p, { now: EVENING });
    edit();
    // A no-op would write index.html and health from these bytes: the build reads and writes everything instead.
    await changed(p, { now: MORNING });
  }
});

test('a changed site is never taken for a no-op: a file edited, removed or added, in any folder', async () => {
  const p = project();
  await build(p.opts());
  const epd = epdOut(p, REAL_EPDS[0]);
  const edits = [
    () => writeFileSync(epd, readFileSync(epd, 'utf8').replace(/<baseName/, '<baseName ')),
    () => rmSync(join(p.out, 'v1/epds', REAL_EPDS[2].uuid)),
    () => writeFileSync(join(p.out, 'resource/processes/stray.xml'), '<x/>'),
    // Folders whose files a no-op rewrites (health, index.html) are compared by their names, not their mtime.
    () => writeFileSync(join(p.out, 'stray.html'), 'x'),
    () => writeFileSync(join(p.out, 'healthz/stray.json'), '{}'),
    () => rmSync(join(p.out, 'nodeinfo'), { recursive: true }),
  ];
  for (const edit of edits) {
    await ready(p);
    edit();
    await changed(p);
  }
});

test('1% changed: files linked from the previous site are trusted by health only while they are as recorded', async () => {
  const p = project();
  await build(p.opts());
  await ready(p);
  // One input changes (no no-op), and one EPD of the site is altered in place, keeping its size.
  const f1 = join(p.dir, 'data', REAL_EPDS[1].file);
  writeFileSync(f1, readFileSync(f1, 'utf8').replace(/(<baseName[^>]*>)/, '$1Changed '));
  const epd = epdOut(p, REAL_EPDS[0]);
  const bytes = readFileSync(epd, 'utf8');
  writeFileSync(
    epd,
    bytes.replace(/(<baseName[^>]*>)(.)/, (_m, t, ch) => `${t}${ch === 'X' ? 'Y' : 'X'}`),
  );
  const r = await build(p.opts());
  assert.not.ok(r.upToDate);
  assert.is(r.health.status, 'fail', 'the altered file is re-hashed, not trusted');
  assert.match(r.health.reasons.join('\n'), REAL_EPDS[0].uuid);
  // The untouched ones are trusted: nothing else failed, and a clean rebuild repairs the site.
  assert.is(r.health.checks.filter((c) => !c.ok).length, 2, 'the EPD under both path sets');
  const repaired = await build({ ...p.opts(), clean: true });
  assert.is(repaired.health.status, 'ok');
});

const ENV = { ...process.env, NO_COLOR: '1', SOURCE_DATE_EPOCH: '1767323045' };
const temps = (dir) => readdirSync(dir).filter((n) => n.includes('.tmp-'));

test('kill -9 while the replaced site is deleted: the next build removes what is left and never restores it', async () => {
  const base = tmp();
  const input = join(base, 'in');
  makeCorpus(input, 300);
  const out = join(base, 'site');
  const args = [BIN, 'build', input, '--out', out, '--level', '1', '-q'];
  assert.is(spawnSync(process.execPath, args, { cwd: ROOT, env: ENV }).status, 0);
  const before = tree(out);
  // --clean: a full rebuild, so the old tree goes to the trash and is deleted after the report.
  const child = spawn(process.execPath, [...args, '--clean'], { cwd: ROOT, stdio: 'ignore', env: ENV });
  const exited = new Promise((ok) => child.on('exit', (code, sig) => ok(code ?? sig)));
  while (!temps(base).some((n) => n.includes('.trash'))) {
    if (child.exitCode !== null) assert.unreachable('the build ended before its old tree was seen being deleted');
    await sleep(1);
  }
  child.kill('SIGSTOP');
  const trash = temps(base).filter((n) => n.includes('.trash'));
  assert.is(trash.length, 1, 'stopped while deleting the replaced tree');
  child.kill('SIGKILL');
  assert.is(await exited, 'SIGKILL');
  assert.equal(tree(out), before, 'the new site is in place');
  // The site gone too: a trash folder is never put back in its place (an `.old` one would be).
  rmSync(out, { recursive: true });
  assert.is(spawnSync(process.execPath, args, { cwd: ROOT, env: ENV }).status, 0);
  assert.equal(readdirSync(base).sort(), ['in', 'site']);
  assert.equal(tree(out), before);
});

test('stale cleanup: a dead build trash folder is removed, never renamed into place', async () => {
  const base = tmp();
  const out = join(base, 'site');
  const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const trash = join(base, `.site.tmp-${host}-${dead}-1-abcdef.trash`);
  mkdirSync(join(trash, 'resource'), { recursive: true });
  writeFileSync(join(trash, '.po-node.json'), '{}');
  await removeStaleTemps(out);
  assert.equal(readdirSync(base), []);
});

test.run();
