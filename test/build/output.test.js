// The output side in a hostile world (issue "Hold up in a hostile world"): a read-only disk, a folder the user may
// not write, a full disk and a base URL that is not one are each one line and exit 2; builds killed with SIGKILL
// leave folders the next build removes, and never one of a build that still runs.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../dist/index.js';
import { cacheFile } from '../../dist/cache/build-cache.js';
import { removeStaleTemps, removeTree, tempPrefix } from '../../dist/emit/output-dir.js';
import { makeCorpus } from '../helpers/corpus.js';
import { BIN, EXAMPLE_CONFIG, EXAMPLE_DATA, IS_ROOT, ROOT, SETPRIV, build, cleanup, nodeAsNobody, tmp, tree } from '../helpers/index.js';

const ENV = { NO_COLOR: '1', SOURCE_DATE_EPOCH: '1767323045' };
const EXAMPLE = ['--config', EXAMPLE_CONFIG, '--no-xsd', '-q'];

function run(args, { cmd = [process.execPath], env = {} } = {}) {
  const r = spawnSync(cmd[0], [...cmd.slice(1), BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...ENV, ...env } });
  return { code: r.status, err: r.stderr };
}

/** Exit 2 with exactly the error line and a hint: no stack trace. */
function oneLine(r, ...parts) {
  assert.is(r.code, 2, r.err);
  const lines = r.err.trimEnd().split('\n');
  assert.is(lines.length, 2, r.err);
  assert.match(lines[0], /^po-node: /);
  for (const p of parts) assert.match(lines[0], p);
  assert.match(lines[1], /^hint: /);
}

/** A tmpfs mounted at dir (as root, where the machine allows it); null, with a printed reason, where it cannot be. */
function tmpfs(dir, options, what) {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status === 0) return { umount: () => spawnSync('umount', ['-l', dir]) };
  const why = (r.stderr || r.error?.message || '').trim() || `mount exited ${r.status}`;
  console.warn(`\n  NOTICE: ${what} is SKIPPED: this machine cannot mount a tmpfs (${why}); it needs root and mount permission\n`);
  return null;
}

const temps = (dir) => readdirSync(dir).filter((n) => n.includes('.tmp-'));

test('--out on a read-only file system: one line naming EROFS, exit 2', () => {
  const ro = join(tmp(), 'ro');
  const m = tmpfs(ro, 'size=1m,ro', 'the read-only file system test');
  if (!m) return;
  try {
    const r = run(['build', ...EXAMPLE, '--out', join(ro, 'site')]);
    oneLine(r, /Cannot write the site to \S+\/ro\/site: read-only file system \(EROFS\)$/);
    assert.match(r.err, 'is on a read-only file system: pick an --out on a writable disk');
  } finally {
    m.umount();
  }
});

test('--out (and init --dir) in a folder the user may not write: one line naming EACCES, exit 2; DEBUG=po-node adds the stack', () => {
  if (IS_ROOT && !SETPRIV) {
    if (process.env.CI) assert.unreachable('setpriv (util-linux) is needed to run a build as nobody in CI');
    return console.warn('\n  NOTICE: no setpriv: the EACCES case of build is SKIPPED\n');
  }
  const base = tmp();
  chmodSync(base, 0o755);
  // Root's 0755 folder: nobody may enter it, not write in it. Not root: the user's own folder without write bits.
  const locked = join(base, 'locked');
  mkdirSync(locked, { mode: 0o755 });
  if (!IS_ROOT) chmodSync(locked, 0o555);
  const args = ['build', ...EXAMPLE, '--out', join(locked, 'sub', 'site')];
  const r = run(args, { cmd: nodeAsNobody() });
  oneLine(r, /Cannot write the site to \S+\/locked\/sub\/site: permission denied \(EACCES\)$/);
  assert.match(r.err, /hint: This user may not create folders in \S+\/locked\/sub/);
  const debug = run(args, { cmd: nodeAsNobody(), env: { DEBUG: 'po-node' } });
  assert.is(debug.code, 2);
  assert.match(debug.err, /\n\s+at /, 'DEBUG=po-node prints the stack');
  assert.match(debug.err, /caused by: Error: EACCES: permission denied, access/, 'and the stack of the system error');
  assert.equal(readdirSync(locked), []);
  const init = run(['init', '--dir', join(locked, 'cfg')], { cmd: nodeAsNobody() });
  oneLine(init, /Cannot write the configuration to \S+\/locked\/cfg: permission denied \(EACCES\)$/);
});

test('disk full during the write: one line naming ENOSPC; the old site intact, no temporary folder left', () => {
  const disk = join(tmp(), 'disk');
  // The example site with its ZIP exports takes about 7.3 MB: room for one, not for a second one beside it.
  const m = tmpfs(disk, 'size=12m', 'the disk-full test');
  if (!m) return;
  try {
    const out = join(disk, 'site');
    assert.is(run(['build', ...EXAMPLE, '--zip-export', '--out', out]).code, 0);
    const before = tree(out);
    // --clean: every file written anew, none hard-linked from the old site.
    const r = run(['build', ...EXAMPLE, '--zip-export', '--out', out, '--clean']);
    oneLine(r, /Cannot write the site to \S+\/disk\/site: no space left on device \(ENOSPC\)$/);
    assert.match(r.err, 'a previous site there is unchanged');
    assert.equal(readdirSync(disk), ['site']);
    assert.equal(tree(out), before);
  } finally {
    m.umount();
  }
});

test('--out is a mount point: refused before reading, one line, exit 2', () => {
  const out = join(tmp(), 'site');
  const m = tmpfs(out, 'size=1m', 'the mount point test');
  if (!m) return;
  try {
    const r = run(['build', ...EXAMPLE, '--out', out]);
    oneLine(r, /The output folder \S+\/site is a mount point/);
    assert.match(r.err, `hint: A mount point cannot be replaced by renaming: use a folder inside it, e.g. --out ${out}/site.`);
    assert.equal(readdirSync(out), []);
  } finally {
    m.umount();
  }
});

test('a base URL that is not one, as flag or in the config: one line, exit 2', () => {
  const out = join(tmp(), 'site');
  const flag = run(['build', ...EXAMPLE, '--out', out, '--base-url', 'https://exa<mple.org']);
  oneLine(flag, '--base-url "https://exa<mple.org" is not a usable base URL: it cannot be parsed as a URL');
  const cfg = join(tmp(), 'po-node.config.json');
  writeFileSync(cfg, JSON.stringify({ baseUrl: 'https://exa<mple.org', inputs: [EXAMPLE_DATA] }));
  oneLine(run(['build', '--config', cfg, '--out', out]), '"baseUrl" in ');
  assert.not.ok(existsSync(out));
  const bad = [
    'https://exa<mple.org',
    'https://ex ample.org',
    'ftp://x.org',
    'https://u:p@x.org',
    'https://x.org/a"b',
    'https://x.org/%zz',
  ];
  for (const baseUrl of bad)
    assert.throws(
      () => loadConfig({ baseUrl }),
      (e) => e instanceof ConfigError,
      baseUrl,
    );
  for (const baseUrl of ['https://epd.example.org/node/', 'http://localhost:8080', 'https://[::1]:8443/po-node']) loadConfig({ baseUrl });
  // A non-ASCII host is refused with the spelling that works.
  const idn = /Did you mean https:\/\/xn--bcher-kva\.example\/node\?/;
  assert.throws(
    () => loadConfig({ baseUrl: 'https://bücher.example/node' }),
    (e) => idn.test(e.hint),
  );
});

/**
 * A build of `args` in a child; once it is writing (its temporary folder holds EPDs), send it `signal`.
 * The corpus is large enough that the write takes about a second, so the child cannot finish in between.
 */
async function signalWhileWriting(base, args, signal) {
  const env = { ...process.env, ...ENV };
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((ok) => child.on('exit', (code, sig) => ok(code ?? sig)));
  const filled = (n) => {
    try {
      return readdirSync(join(base, n, 'resource/processes')).length > 50;
    } catch {
      return false; // not there yet
    }
  };
  while (!temps(base).some(filled)) {
    if (child.exitCode !== null) assert.unreachable(`the build ended before it was seen writing:\n${err}`);
    await sleep(2);
  }
  child.kill(signal);
  return { child, exited, stderr: () => err };
}

test('kill -9 during a build: the next build removes what it left and writes the same site', async () => {
  const base = tmp();
  const input = join(base, 'in');
  makeCorpus(input, 300);
  const out = join(base, 'site');
  const args = ['build', input, '--out', out, '--level', '2', '-q'];
  assert.is(run(args).code, 0);
  const before = tree(out);
  const killed = await signalWhileWriting(base, [...args, '--clean'], 'SIGKILL');
  assert.is(await killed.exited, 'SIGKILL');
  assert.ok(temps(base).length, 'the killed build left its temporary folder');
  assert.equal(tree(out), before, 'the old site untouched');
  const r = run(args);
  assert.is(r.code, 0, r.err);
  assert.equal(readdirSync(base).sort(), ['in', 'site']);
  assert.equal(tree(out), before);
});

test('a build never removes the temporary folder of a live build of the same output', async () => {
  const base = tmp();
  const input = join(base, 'in');
  makeCorpus(input, 300);
  const out = join(base, 'site');
  // Stopped mid-write: alive, and its folder there, while another build of the same --out runs to the end.
  const stopped = await signalWhileWriting(base, ['build', input, '--out', out, '--level', '2', '-q'], 'SIGSTOP');
  try {
    const theirs = temps(base);
    const r = await build({ inputs: [join(EXAMPLE_DATA, 'ibu_with_dependencies')], out, xsd: false });
    assert.ok(r.written);
    assert.equal(temps(base), theirs, 'the live build keeps its folder');
  } finally {
    stopped.child.kill('SIGCONT');
  }
  assert.is(await stopped.exited, 0, stopped.stderr());
  assert.equal(readdirSync(base).sort(), ['in', 'site']);
  assert.is(JSON.parse(readFileSync(join(out, 'resource/processes/index.json'), 'utf8')).totalCount, 300, 'the last build wins');
});

test('stale folders: dead owners removed, live ones and other hosts kept, an old site moved aside put back', async () => {
  const base = tmp();
  const out = join(base, 'site');
  const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  const mk = (name) => mkdirSync(join(base, name));
  const live = mkdtempSync(tempPrefix(out)).split('/').pop();
  const otherHost = host === '0badc0de' ? '0badc0d0' : '0badc0de';
  // The spare itself is nobody's (the next build takes it); a spare a dead build had set aside to delete is gone.
  const keep = [
    live,
    `.site.tmp-${otherHost}-${dead}-1-abcdef`,
    '.site.tmp-abcdef',
    `.site2.tmp-${host}-${dead}-1-abcdef`,
    '.site.tmp-x',
    '.site.spare',
  ];
  const gone = [`.site.tmp-${host}-${dead}-7-abcdef`, '.site.tmp-ghijkl', `.site.tmp-${host}-${dead}-3-abcdef.spare`];
  let zombie;
  if (existsSync('/proc/self/stat')) {
    // The pid of this process with another start time: a reused pid, not this process.
    gone.push(`.site.tmp-${host}-${process.pid}-1-reused`);
    // A killed build its parent has not reaped yet: perl forks a child that exits and is never waited for (a shell
    // may reap its background job before it execs, so `sh -c 'sleep 0 & exec sleep 5'` was flaky under load).
    const reaper = 'my $p = fork(); if (!$p) { exit 0 } $| = 1; print "$p\\n"; sleep 5';
    zombie = spawn('perl', ['-e', reaper], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pid = Number(await new Promise((ok) => zombie.stdout.once('data', ok)));
    let stat = '';
    while (!/\) Z /.test(stat)) {
      await sleep(5);
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    }
    gone.push(`.site.tmp-${host}-${pid}-${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}-zombie`);
  }
  for (const n of [...keep, ...gone]) if (n !== live) mk(n);
  const twoDaysAgo = new Date(Date.now() - 48 * 3600 * 1000);
  utimesSync(join(base, '.site.tmp-ghijkl'), twoDaysAgo, twoDaysAgo);
  // Killed between the two renames of its swap: the old site is aside and no site is in place.
  mk(`.site.tmp-${host}-${dead}-9-zzzzzz.old`);
  writeFileSync(join(base, `.site.tmp-${host}-${dead}-9-zzzzzz.old`, '.po-node.json'), '{}');
  await removeStaleTemps(out);
  zombie?.kill();
  assert.equal(readdirSync(base).sort(), [...keep, 'site'].sort());
  assert.ok(existsSync(join(out, '.po-node.json')), 'the old site is back in place');
});

test('builds of the same output at once, in one process: each succeeds, the last one wins, nothing left over', async () => {
  const base = tmp();
  const out = join(base, 'site');
  const cacheDir = join(base, 'cache');
  const inputs = ['ibu_with_dependencies', 'environdec_with_dependencies', 'epditaly_with_dependencies'].map((d) => join(EXAMPLE_DATA, d));
  for (let round = 0; round < 3; round++) {
    const rs = await Promise.all(inputs.map((i) => build({ inputs: [i], out, xsd: false, cacheDir })));
    assert.ok(rs.every((r) => r.written));
    await Promise.all(rs.map((r) => r.settled));
    // The spare of the last round's site (test/build/spare.test.js): one at most.
    assert.equal(
      readdirSync(base)
        .filter((n) => n !== '.site.spare')
        .sort(),
      ['cache', 'site'],
    );
    assert.is(JSON.parse(readFileSync(join(out, 'resource/processes/index.json'), 'utf8')).totalCount, 1);
  }
});

test('a corrupt or truncated incremental-build cache costs a full build, not a crash', () => {
  const base = tmp();
  const out = join(base, 'site');
  const cacheDir = join(base, 'cache');
  mkdirSync(cacheDir);
  // The file the build will look for: named after the resolved config (output folder and node id).
  const file = cacheFile(loadConfig({ config: EXAMPLE_CONFIG, out, cwd: ROOT }), cacheDir);
  const corrupt = [
    // A header line of another build, then a line cut in the middle.
    `${JSON.stringify({ format: 7, key: 'another build' })}\n["i","a",{"size":1`,
    // A line cut in the middle right after the header, or no header at all.
    '{"format":7,"key":"',
    // Bytes that are not text (the gzipped cache of an older po-node put in its place).
    gzipSync('x'.repeat(1e6)),
  ];
  for (const bytes of corrupt) {
    writeFileSync(file, bytes);
    const r = run(['build', ...EXAMPLE, '--out', out], { env: { PO_NODE_CACHE_DIR: cacheDir } });
    assert.is(r.code, 0, r.err);
    assert.ok(existsSync(join(out, '.po-node.json')));
  }
});

test('removeTree deletes a whole tree, with rm -rf or, where there is no rm, with fs.rm; a missing folder is no error', async () => {
  const make = () => {
    const dir = join(tmp(), 'trash');
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, 'a', 'b', 'f'), 'x');
    writeFileSync(join(dir, '-rf'), 'a name like an option');
    chmodSync(join(dir, 'a', 'b', 'f'), 0o400);
    return dir;
  };
  const dir = make();
  await removeTree(dir);
  assert.not.ok(existsSync(dir));
  await removeTree(dir);
  const path = process.env.PATH;
  process.env.PATH = join(tmp(), 'no-such-bin');
  try {
    const other = make();
    await removeTree(other);
    assert.not.ok(existsSync(other), 'fs.rm without rm on the PATH');
  } finally {
    process.env.PATH = path;
  }
});

test.after(() => cleanup());
test.run();
