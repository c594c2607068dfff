// The spare (docs/performance.md, "The spare tree"): the site a build replaces is kept beside the output folder as
// hard links to the new site's files, and the next build writes into it instead of a new tree.
import { cpSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spareListing, writeSpareNote } from '../../dist/cache/manifest.js';
import { EXAMPLE_DATA, REAL_EPDS, build, cleanup, tmp, tree } from '../helpers/index.js';

const pause = (ms) => new Promise((ok) => setTimeout(ok, ms));

test.after.each(cleanup);

const now = new Date('2026-01-02T03:04:05Z');
const [e0, e1, e2] = REAL_EPDS;

/** A copy of the example data and a build of it; `build(extra)` builds again and waits for the work after the result. */
function setup() {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const out = join(dir, 'site');
  const spare = join(dir, '.site.spare');
  const cacheDir = join(dir, 'cache');
  const again = async (extra = {}) => {
    const r = await build({ inputs: [join(dir, 'data')], out, cwd: dir, now, cacheDir, xsd: false, ...extra });
    await r.settled;
    return r;
  };
  /** Give an EPD of the input another name: its document, page and the lists change. */
  const rename = (e, name) => {
    const p = join(dir, 'data', e.file);
    writeFileSync(p, readFileSync(p, 'utf8').replace(/(<baseName[^>]*>)/, `$1${name} `));
  };
  return { dir, out, spare, again, rename };
}

/** The spare's own files in its root: not the site's. */
const SPARE_OWN = ['.gitignore', '.po-node-spare.json'];

/** A site built, an EPD changed, built again: the spare is there. */
async function withSpare() {
  const s = setup();
  await s.again();
  s.rename(e0, 'first');
  await s.again();
  return s;
}

/** Relative path -> inode of every file below `dir` (but the spare's own files). */
function inodes(dir) {
  const out = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || (SPARE_OWN.includes(e.name) && (e.parentPath ?? e.path) === dir)) continue;
    const p = join(e.parentPath ?? e.path, e.name);
    out[p.slice(dir.length + 1)] = lstatSync(p).ino;
  }
  return out;
}

/** The same inputs built clean into a folder of their own: the tree an incremental build must equal. */
async function clean(dir) {
  const out = join(tmp(), 'site');
  await build({ inputs: [join(dir, 'data')], out, cwd: dir, now, clean: true, xsd: false, cacheDir: join(tmp(), 'c') });
  return tree(out);
}

test('the replaced site becomes a hard-link copy of the new one, and the next build writes into it', async () => {
  const s = setup();
  await s.again();
  assert.not.ok(existsSync(s.spare), 'a first build replaces nothing');
  s.rename(e0, 'changed once');
  await s.again();
  // Every file of the site, at the same path, as the same inode; nothing else but a .gitignore of everything (a site
  // built in a repository must not be added twice).
  assert.equal(inodes(s.spare), inodes(s.out));
  assert.is(readFileSync(join(s.spare, '.gitignore'), 'utf8').split('\n').at(-2), '*');
  assert.not.ok(existsSync(join(s.out, '.gitignore')));
  const spareRoot = lstatSync(s.spare).ino;
  const pageFolder = lstatSync(join(s.spare, 'epd', e1.uuid)).ino;
  s.rename(e0, 'changed twice');
  const r = await s.again();
  // The spare was renamed into place: its folders are the site's now, none made again.
  assert.is(lstatSync(s.out).ino, spareRoot);
  assert.is(lstatSync(join(s.out, 'epd', e1.uuid)).ino, pageFolder);
  assert.ok(r.cache.fromSite > 0, 'unchanged files kept');
  assert.equal(tree(s.out), await clean(s.dir));
  assert.equal(inodes(s.spare), inodes(s.out));
});

test('a build into the spare never writes a file the live site shares: it is replaced, not changed', async () => {
  const s = await withSpare();
  // Files a change rewrites (the EPD's document and page, the lists) are hard links in the spare to the live
  // site's: seen through links of our own, they must hold their old bytes after the next build.
  const probes = [`resource/processes/${e0.uuid}`, `epd/${e0.uuid}/index.html`, 'resource/processes/index.xml', 'healthz/index.json'];
  const before = probes.map((p) => readFileSync(join(s.out, p)));
  mkdirSync(join(s.dir, 'probe'));
  probes.forEach((p, i) => linkSync(join(s.out, p), join(s.dir, 'probe', String(i))));
  s.rename(e0, 'second');
  // Later the same day: the cache (keyed by the day) and so the spare are used.
  const r = await s.again({ now: new Date('2026-01-02T09:00:00Z') });
  assert.ok(r.cache.fromSite > 0);
  probes.forEach((p, i) => {
    assert.equal(readFileSync(join(s.dir, 'probe', String(i))), before[i], `${p}: the old site's bytes unchanged`);
    assert.not.equal(readFileSync(join(s.out, p)), before[i], `${p}: written anew`);
  });
});

test('what the spare holds that the site must not is gone: added files and folders, a file replaced by hand', async () => {
  const s = await withSpare();
  // Later than the spare's note by more than a clock tick: the changed folders are told by their times, not by chance.
  await pause(120);
  writeFileSync(join(s.spare, 'resource/processes', `${e2.uuid}-stray.xml`), '<stray/>');
  mkdirSync(join(s.spare, 'stray/deeper'), { recursive: true });
  writeFileSync(join(s.spare, 'stray/deeper/file.txt'), 'stray');
  // A new file (another inode) where an unchanged EPD's document is: not the previous site's, so written again.
  const doc = join(s.spare, 'resource/processes', e1.uuid);
  rmSync(doc);
  writeFileSync(doc, 'not the EPD');
  // A file where an unchanged EPD's page folder is.
  rmSync(join(s.spare, 'epd', e2.uuid), { recursive: true });
  writeFileSync(join(s.spare, 'epd', e2.uuid), 'not a folder');
  s.rename(e0, 'second');
  await s.again();
  assert.equal(tree(s.out), await clean(s.dir));
  assert.equal(readFileSync(join(s.out, 'resource/processes', e1.uuid)), readFileSync(join(s.dir, 'data', e1.file)));
});

test('what the replaced site held that the new one does not is gone from the spare once the build is done', async () => {
  const s = setup();
  await s.again();
  rmSync(join(s.dir, 'data', e2.file));
  await s.again();
  assert.not.ok(existsSync(join(s.out, 'epd', e2.uuid)));
  // Deleted after the result, not when the spare is next reused: its folders then hold what its note says.
  for (const p of [`epd/${e2.uuid}`, `resource/processes/${e2.uuid}`, `v1/epds/${e2.uuid}`]) assert.not.ok(existsSync(join(s.spare, p)), p);
  assert.equal(inodes(s.spare), inodes(s.out));
});

test("the spare's folders as they were left are listed from the site's record; one changed since is read", async () => {
  const s = await withSpare();
  await pause(120);
  const manifest = readdirSync(join(s.dir, 'cache')).filter((n) => n.endsWith('.manifest.json'));
  assert.is(manifest.length, 1);
  const { trees } = JSON.parse(readFileSync(join(s.dir, 'cache', manifest[0]), 'utf8'));
  const previous = new Map(trees[0].entries.map((e) => [e[0], e]));
  const listed = spareListing(s.spare, previous);
  assert.ok(listed, 'the note names the tree the manifest recorded');
  const folder = `epd/${e1.uuid}`;
  assert.equal(listed(folder, lstatSync(join(s.spare, folder))), ['index.html']);
  assert.is(listed('', lstatSync(s.spare)), undefined, 'the root is always read');
  // A note of another tree: no listing.
  assert.is(spareListing(s.spare, new Map([...previous].slice(1))), undefined);
  // A file put there after the note: the folder's times tell, it is read, and the file is not published.
  writeFileSync(join(s.spare, folder, 'stray.html'), 'stray');
  assert.is(listed(folder, lstatSync(join(s.spare, folder))), undefined);
  s.rename(e0, 'second');
  await s.again();
  assert.not.ok(existsSync(join(s.out, folder, 'stray.html')));
  assert.equal(tree(s.out), await clean(s.dir));
});

test('no note where the file system cannot tell a later change by its times', () => {
  const dir = tmp();
  /** @type {import('../../dist/cache/manifest.js').TreeEntry} */
  const root = ['', 0, 0, 0, 1, 0o40755];
  const entries = [root];
  const previous = new Map([['', root]]);
  // A note whose time its own file's mtime lies far below: as on a file system with whole-second (FAT: 2 s) times.
  assert.is(writeSpareNote(dir, entries, Date.now() + 10_000), false);
  assert.not.ok(existsSync(join(dir, '.po-node-spare.json')));
  assert.is(spareListing(dir, previous), undefined);
  assert.is(writeSpareNote(dir, entries), true);
  assert.ok(spareListing(dir, previous));
});

test('--clean deletes the spare unused; the site it replaces is the next spare', async () => {
  const s = setup();
  await s.again();
  await s.again({ now: new Date('2026-01-03T00:00:00Z') });
  const old = lstatSync(s.spare).ino;
  writeFileSync(join(s.spare, 'marker-of-the-old-spare'), 'x');
  // Moved aside at the start, deleted after the result: not beside the build, taking a core from it.
  const aside = () => readdirSync(s.dir).filter((n) => n.endsWith('.spare') && n.includes('.tmp-'));
  const seen = [];
  await s.again({
    clean: true,
    onProgress: (e) => {
      if (e.phase === 'verify') seen.push(...aside().filter((n) => existsSync(join(s.dir, n, 'marker-of-the-old-spare'))));
    },
  });
  assert.is(seen.length, 1, 'the old spare still there while the build verifies');
  assert.equal(aside(), []);
  assert.not.ok(existsSync(join(s.spare, 'marker-of-the-old-spare')));
  assert.is.not(lstatSync(s.spare).ino, old);
  assert.equal(inodes(s.spare), inodes(s.out));
  assert.equal(
    readdirSync(s.dir).filter((n) => n.includes('.tmp-')),
    [],
  );
});

test('no spare with SOURCE_DATE_EPOCH (file times are set on files the live site would share), nor of a foreign folder', async () => {
  const s = setup();
  await s.again();
  process.env.SOURCE_DATE_EPOCH = '1767323045';
  try {
    await s.again();
  } finally {
    delete process.env.SOURCE_DATE_EPOCH;
  }
  assert.not.ok(existsSync(s.spare));
  // --clean over a folder po-node did not make: replaced, deleted, not kept.
  rmSync(s.out, { recursive: true });
  mkdirSync(s.out);
  writeFileSync(join(s.out, 'notes.txt'), 'mine');
  await s.again({ clean: true });
  assert.not.ok(existsSync(s.spare));
  assert.equal(readdirSync(s.dir).sort(), ['cache', 'data', 'site']);
});

test.run();
