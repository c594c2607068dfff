import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, stat, utimes } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, parse as parsePath, resolve, sep } from 'node:path';
import { OutputError } from '../errors.js';
import { isSafeDocumentName } from '../read/inputs.js';
import { isInside } from '../util/paths.js';
import type { BuildCache } from '../cache/build-cache.js';
import {
  copyInto,
  createFile,
  writeAll,
  writeMade,
  writeParts,
  type CopyStat,
  type NewFile,
  type PagePlan,
  type PlannedFile,
} from './files.js';
import type { KnownHashes } from './health.js';
import type { EarlyCompressor } from './precompress.js';
import { checkWritable, MOUNT_HINT, outputFailure, removeStaleTemps, removeTree, spareFolder, tempPrefix } from './output-dir.js';
import { describeTree, writeSpareNote, type FolderListing, type TreeRecord } from '../cache/manifest.js';
import { breather, pool } from '../util/pool.js';
import { defaultThreads } from '../catalog/pool.js';
import {
  PAGE_BATCH,
  PAGE_BATCH_MIN,
  PAGE_BATCHES_OUT,
  PAGE_THREAD_MIN,
  pageJob,
  PageWriter,
  type CopyJob,
  type CopyResult,
  type PageJob,
  type ZipJob,
} from './page-writer.js';

/** Written into every site po-node builds, so a later build knows the folder is its own to replace. */
export const MARKER_FILE = '.po-node.json';

export interface WriteOptions {
  out: string;
  inputs: readonly string[];
  cwd: string;
  /** Replace an output folder that po-node did not create. */
  allowReplace: boolean;
  /** mtime for every file, for reproducible archives (SOURCE_DATE_EPOCH). */
  mtime?: Date;
  /** Incremental builds: files whose content key is unchanged are hard-linked from the previous site. */
  cache?: BuildCache;
  /** What is written, for error messages (default "the site"). */
  what?: string;
  /**
   * Called with the finished folder just before it is swapped in (the build manifest records it): the record is the
   * spare's plan. `expected`: the paths the folder may hold (given when it was the spare); others are deleted.
   * `listed`: the names the spare's folders are known to hold, as its note says (given when it was the spare).
   */
  describe?: (dir: string, expected?: ReadonlySet<string>, listed?: FolderListing) => TreeRecord | undefined;
  /** Told of each document with precompressed siblings as it is written. */
  early?: EarlyCompressor;
  /**
   * The spare (docs/performance.md, "The spare tree"): with 'reuse' the spare becomes the temporary folder and the
   * previous site's files still in it are kept in place; 'renew' (--clean) deletes it unused. Either way the tree
   * this build replaces becomes the next spare. Absent: no spare is used or made.
   */
  spare?: 'reuse' | 'renew';
  /** Threads to write with: more than one lets the EPD pages be made in a thread of their own (default: every core). */
  threads?: number;
}

/** A written tree: in place; `removed` settles (never rejects) once the tree it replaced is deleted or made the spare. */
export interface Written {
  removed: Promise<void>;
}

/** Refuse output folders whose replacement would destroy something that is not ours. */
export function checkOutputFolder(o: Pick<WriteOptions, 'out' | 'inputs' | 'cwd' | 'allowReplace' | 'what'>): void {
  const out = resolve(o.out);
  if (out === parsePath(out).root) throw new OutputError(`Refusing to use the filesystem root as output folder`);
  if (isInside(out, resolve(o.cwd)))
    throw new OutputError(`The output folder ${o.out} contains the working directory; it would be replaced`, {
      hint: 'Use a subfolder such as --out site.',
    });
  for (const input of o.inputs) {
    if (isInside(out, resolve(input)))
      throw new OutputError(`The output folder ${o.out} contains the input ${input}; building would delete it`, {
        hint: 'Write the site to a separate folder, e.g. --out site.',
      });
    if (isInside(resolve(input), out) && statSync(resolve(input), { throwIfNoEntry: false })?.isDirectory()) {
      throw new OutputError(`The output folder ${o.out} is inside the input folder ${input}; the next build would read its own output`, {
        hint: 'Write the site outside the input folder.',
      });
    }
  }
  checkWritable(out, o.cwd, o.what ?? 'the site');
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new OutputError(`The output path ${o.out} exists and is not a folder`);
  if (statSync(out).dev !== statSync(dirname(out)).dev) {
    throw new OutputError(`The output folder ${o.out} is a mount point; the site is swapped in by renaming it`, {
      hint: MOUNT_HINT(o.out),
    });
  }
  let entries: string[];
  try {
    entries = readdirSync(out);
  } catch (e) {
    throw outputFailure(e, out, o.cwd, o.what ?? 'the site') ?? e;
  }
  if (entries.length && !entries.includes(MARKER_FILE) && !o.allowReplace) {
    throw new OutputError(`The output folder ${o.out} is not empty and was not made by po-node; it would be replaced`, {
      hint: 'Pick another --out, or pass --clean to replace its contents.',
    });
  }
}

/**
 * Adds the files that depend on what was written (health), given the folder being written and the files whose bytes
 * the writer saw to be those of their `sha256:` key (by path).
 */
type Finish = (dir: string, known: KnownHashes, digests: KnownHashes) => Promise<readonly PlannedFile[]>;

/**
 * The only writer: builds the whole site in a temporary sibling folder, lets `finish` add files
 * that depend on what was written (health), then swaps it in with renames, so readers never see
 * a half-written site and a failed build leaves the old one untouched.
 */
export async function writeSite(files: readonly PlannedFile[], o: WriteOptions, finish: Finish): Promise<Written> {
  checkOutputFolder(o);
  const out = resolve(o.out);
  try {
    return await writeAndSwap(out, files, o, finish);
  } catch (e) {
    // Read-only file system, no permission, disk full: one line for the user, not a stack trace.
    throw outputFailure(e, out, o.cwd, o.what ?? 'the site') ?? e;
  }
}

async function writeAndSwap(out: string, files: readonly PlannedFile[], o: WriteOptions, finish: Finish): Promise<Written> {
  await mkdir(dirname(out), { recursive: true });
  // Leftovers of builds killed before they could clean up (kill -9, power loss); also frees their disk space.
  await removeStaleTemps(out);
  const tmp = await mkdtemp(tempPrefix(out));
  // The spare is taken by renaming it over the new (empty) temporary folder: a concurrent build finds none. Its files
  // are trusted only through the cache's record of the previous site; without one it is deleted unused.
  const reuse = o.spare === 'reuse' && !!o.cache?.knowsPreviousSite && (await rename(spareFolder(out), tmp).then(yes, no));
  // One no build may reuse (--clean, no record of the previous site) is moved aside now and deleted with the replaced
  // tree, after the result: deleting 45,000 paths beside the build would take a core from it.
  const aside =
    o.spare && !reuse
      ? await rename(spareFolder(out), `${tmp}.spare`).then(
          () => `${tmp}.spare`,
          () => undefined,
        )
      : undefined;
  try {
    // mkdtemp makes the folder 0700: web server workers (www-data, nobody) could read nothing once it is swapped in.
    await chmod(tmp, SITE_MODES.dir);
    const { fixFile, fixDir } = probeModes(tmp);
    const file = { mode: SITE_MODES.file, fixMode: fixFile, ...(o.mtime ? { mtime: o.mtime } : {}) };
    const w: Writer = {
      dir: tmp,
      file,
      fixDir,
      known: new Map(),
      digests: new Map(),
      made: new Set([tmp]),
      reuse,
      kept: new Map(),
      pageThread: (o.threads ?? defaultThreads()) > 1,
      ...(reuse ? { expected: new Set<string>() } : {}),
      ...(o.cache ? { cache: o.cache } : {}),
      ...(o.early ? { early: o.early } : {}),
    };
    await writeFiles(w, files);
    const late = await finish(tmp, w.known, w.digests);
    // With the cache: a late file with a content key (a precompressed sibling) is linked from the previous site.
    await writeFiles(w, late);
    await writeFiles({ ...w, cache: undefined }, [
      {
        path: MARKER_FILE,
        contentType: 'application/json',
        source: { text: `${JSON.stringify({ generator: 'po-node', files: files.length + late.length })}\n` },
      },
    ]);
    const listed = reuse ? o.cache?.spareListing(tmp) : undefined;
    const tree = o.describe ? o.describe(tmp, w.expected, listed) : w.expected && describeTree(tmp, undefined, w.expected, listed);
    const trash = await swap(tmp, out);
    // The replaced tree is deleted, or made the next spare, off the critical path: the new site is in place and the
    // result can be reported. A build killed before that is done leaves a `.trash` folder the next build removes
    // (removeStaleTemps).
    const spare = o.spare && tree && trash.length === 1 ? trash[0] : undefined;
    const after = trash.map((t) => (t === spare ? keepSpare(t, out, tree!) : removeTree(t)));
    return { removed: Promise.all([aside && removeTree(aside), ...after]).then(() => undefined) };
  } catch (e) {
    await Promise.all([rm(tmp, { recursive: true, force: true }).catch(() => undefined), aside && removeTree(aside)]);
    throw e;
  }
}

const yes = () => true;
const no = () => false;

/**
 * Make the replaced site the next build's spare: a hard link of every file of the site just swapped in, at the same
 * path, by the record the build made of it. Most are already there (the files this build kept or linked share the
 * replaced site's inodes): a 1% rebuild relinks about 2% of them, instead of deleting 45,000 paths (10,000 EPDs).
 * What is left over from the replaced site is deleted when the spare is next reused (describeTree's `expected`).
 * Never rejects: on any failure (not a site of ours, the live site changing under it, a spare already there) the
 * tree is deleted.
 */
async function keepSpare(trash: string, out: string, tree: TreeRecord): Promise<void> {
  try {
    // Replaced with --clean: a folder po-node did not write is not kept.
    if (!existsSync(join(trash, MARKER_FILE))) throw new Error('not a site of ours');
    const breathe = breather();
    for (const [path, kind, , , ino] of tree.entries) {
      if (kind !== 1) continue;
      const to = join(trash, path);
      if (inode(to) !== ino) relink(join(out, path), to);
      const b = breathe();
      if (b) await b;
    }
    // What the replaced site held that this one does not is deleted now, after the result, so the spare holds the
    // tree's paths and no others; its note lets the next build take most folders' names from the tree's record.
    const kinds = new Map(tree.entries.map((e) => [e[0], e[1]]));
    const prune = async (rel: string): Promise<void> => {
      for (const d of readdirSync(join(trash, rel), { withFileTypes: true })) {
        const p = rel ? `${rel}/${d.name}` : d.name;
        const kind = kinds.get(p);
        if (kind === 0 && d.isDirectory()) await prune(p);
        else if (kind !== 1 || !d.isFile()) rmSync(join(trash, p), { recursive: true, force: true });
        const b = breathe();
        if (b) await b;
      }
    };
    await prune('');
    writeSpareNote(trash, tree.entries);
    // Beside a site built inside a repository: `git add -A` would add a second copy of it. Deleted when reused (not
    // planned).
    writeFileSync(join(trash, '.gitignore'), SPARE_GITIGNORE);
    await rename(trash, spareFolder(out));
  } catch {
    await removeTree(trash);
  }
}

const SPARE_GITIGNORE = '# po-node: the spare of the site beside this folder (docs/performance.md#incremental-builds)\n*\n';

/** The inode at `p`, if anything is there (a file where a folder of the path should be: nothing). */
function inode(p: string): number | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false })?.ino;
  } catch {
    return undefined;
  }
}

/** Hard-link `from` to `to` in a tree of ours, replacing what is at `to` and making its folders (site modes). */
function relink(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') rmSync(to, { recursive: true, force: true });
    else if (code === 'ENOENT' && !existsSync(dirname(to))) makeDirs(dirname(to));
    else throw e;
    linkSync(from, to);
  }
}

/** mkdir -p with the site's folder mode on each folder made, whatever the umask. */
function makeDirs(d: string): void {
  const first = mkdirSync(d, { recursive: true, mode: SITE_MODES.dir });
  if (first === undefined) return;
  for (let p = d; ; p = dirname(p)) {
    chmodSync(p, SITE_MODES.dir);
    if (p === first || dirname(p) === p) break;
  }
}

/**
 * Modes of the published tree, whatever the umask and the inputs' own modes (an input may well be 0600): folders
 * 0755, files 0644, so any web server user can read the site, and the same on every machine (reproducible).
 */
export const SITE_MODES = { dir: 0o755, file: 0o644 } as const;

/**
 * Put the finished folder in place of `out`: the old site is renamed aside, the new one renamed in. A concurrent
 * build of the same output may put its site in between; then this one moves that aside too (the last build wins).
 */
async function swap(tmp: string, out: string): Promise<string[]> {
  const olds: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const old = `${tmp}.old${attempt || ''}`;
    try {
      await rename(out, old);
      olds.push(old);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    try {
      await rename(tmp, out);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (attempt < 5 && (code === 'ENOTEMPTY' || code === 'EEXIST')) continue;
      // Never leave the user without a site: the previous one goes back.
      const last = olds.at(-1);
      if (last) await rename(last, out).catch(() => undefined);
      throw e;
    }
  }
  // Renamed from `.old` (put back after a crash mid-swap) to `.trash` (only ever deleted): the next build must never
  // restore a tree that is being deleted.
  const trash: string[] = [];
  for (const [i, old] of olds.entries()) {
    const t = `${tmp}.trash${i || ''}`;
    await rename(old, t).then(
      () => trash.push(t),
      () => trash.push(old),
    );
  }
  return trash;
}

/** Where and how one site folder is written: file and folder modes as probed there, the cache, hashes seen. */
interface Writer {
  dir: string;
  file: NewFile;
  /** The umask (or a default ACL) takes bits from new folders: chmod each. */
  fixDir: boolean;
  cache?: BuildCache;
  /** Files whose bytes are known to be those of their `sha256:` key, by path (health need not read them). */
  known: Map<string, string>;
  /**
   * The SHA-256 of files without such a key (the lists, their pages) that this build wrote and hashed as it wrote them,
   * by path: health reads them back to count their entries, but need not hash them again.
   */
  digests: Map<string, string>;
  early?: EarlyCompressor;
  /** Folders known to exist (absolute). */
  made: Set<string>;
  /** The folder is the spare: files of the previous site still in it are kept; anything else there is replaced. */
  reuse: boolean;
  /** Files kept in the spare: path -> inode. */
  kept: Map<string, number>;
  /** With `reuse`: every path written or kept and its folders (relative), so the rest can be deleted. */
  expected?: Set<string>;
  /** EPD pages may be made in the page thread (src/emit/page-writer.ts). */
  pageThread: boolean;
}

/**
 * Do new files and folders in `dir` get the site's modes as created? Probed once per site (the umask, or a default
 * ACL of the parent), so the thousands of files and folders need no chmod where they do (the usual umask 022 or 002).
 */
function probeModes(dir: string): { fixFile: boolean; fixDir: boolean } {
  const d = join(dir, '.po-node-modes');
  // The spare may hold one a killed build left.
  rmSync(d, { recursive: true, force: true });
  mkdirSync(d, SITE_MODES.dir);
  try {
    const f = join(d, 'f');
    closeSync(openSync(f, 'w', SITE_MODES.file));
    return { fixDir: (statSync(d).mode & 0o7777) !== SITE_MODES.dir, fixFile: (statSync(f).mode & 0o7777) !== SITE_MODES.file };
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}

async function writeFiles(w: Writer, files: readonly PlannedFile[]): Promise<void> {
  const { dir, cache, expected } = w;
  // Same content key, same bytes: the first file of a key is written, the others become hard links to it
  // (the /v1 copy of each EPD, an EPD's PDF shared by many EPDs), so the site costs the corpus once, not thrice.
  const lead = new Map<string, { path: string; size: number }>();
  const later: PlannedFile[] = [];
  const first: PlannedFile[] = [];
  // Indexed loops over the files (30,000 at 10,000 EPDs): they run once, mostly before V8 optimises them
  // (docs/performance.md, "Loops that run once").
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (f.key && lead.has(f.key)) later.push(f);
    else {
      if (f.key) lead.set(f.key, { path: f.path, size: 0 });
      first.push(f);
    }
  }
  // The EPD pages to make go to the page thread first, then the input copies and the ZIP exports, so it works beside
  // everything the main thread writes; the main thread makes them from the other end once done with the rest (startAside).
  const asidePages = w.pageThread ? pagesAside(w, first) : [];
  const candidates = asidePages.length ? [...asidePages, ...copiesAside(w, first), ...zipsAside(w, first)] : [];
  const apart = new Set(candidates);
  // In a new tree the pages' own folders (one per EPD) are the thread's to make (startAside): the main thread makes
  // the others, 2,000 instead of 12,000 at 10,000 EPDs, before anything else.
  const ownDirs = new Set<string>();
  const dirs = new Set<string>();
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    // Every folder up to the site's root, intermediate ones too: mkdir applies the umask to each.
    const d0 = dirname(target(dir, f.path));
    const own = !w.reuse && f.page !== undefined && apart.has(f);
    if (own) ownDirs.add(d0);
    for (let d = own ? dirname(d0) : d0; d !== dir && !dirs.has(d); d = dirname(d)) dirs.add(d);
    expected?.add(f.path);
  }
  for (const d of dirs) {
    ownDirs.delete(d);
    expected?.add(d.slice(dir.length + 1));
  }
  // Synchronous: thousands of tiny calls. Sorted: a parent before its children. The loops below let the event loop
  // run every few ms (breather): the lists' compressions stream through it. In the spare, folders are made only for
  // the files not kept (most folders are there).
  const breathe = breather();
  for (const d of w.reuse ? [] : [...dirs].sort()) {
    mkdirSync(d, { recursive: true, mode: SITE_MODES.dir });
    if (w.fixDir) chmodSync(d, SITE_MODES.dir);
    w.made.add(d);
    const b = breathe();
    if (b) await b;
  }
  // Files of the previous site still as the build manifest recorded them (same inode, size, mtime and mode): kept
  // where the spare has them, else linked synchronously; known to hold the bytes of their key (health need not read
  // them again). False: make it.
  const linked = (f: PlannedFile): boolean => {
    if (!f.key || w.file.mtime || !cache) return false;
    // The path is resolved only when there is something to keep or link (a clean build has nothing), and once.
    const inSpare = w.reuse ? target(dir, f.path) : undefined;
    const here = inSpare ? cache.verifiedPrevious(f.path, f.key, inSpare) : undefined;
    const prev = here ?? cache.verifiedPrevious(f.path, f.key);
    if (!prev) return false;
    const to = inSpare ?? target(dir, f.path);
    if (here) {
      w.kept.set(f.path, here.ino);
      w.made.add(dirname(to));
    } else {
      ensureDir(w, dirname(to));
      if (!linkTo(prev.path, to)) return false;
    }
    cache.emitted(f.path, f.key, prev.size, 'site', true);
    w.known.set(f.path, f.key);
    lead.get(f.key)!.size = prev.size;
    return true;
  };
  // Several in flight for the files that are made (ZIP exports compress in the thread pool); the writes are synchronous.
  // The loop lets the event loop run every few ms: the page thread's answers come in through it.
  const sized = (f: PlannedFile, size: number) => {
    if (f.key) lead.get(f.key)!.size = size;
  };
  const make = (rest: PlannedFile[]) =>
    pool(rest, 16, async (f) => {
      sized(f, await writeOne(w, f));
      const b = breathe();
      if (b) await b;
    });
  const linkedOr = async (group: readonly PlannedFile[]) => {
    const rest: PlannedFile[] = [];
    for (let i = 0; i < group.length; i++) {
      const f = group[i]!;
      if (!linked(f)) rest.push(f);
      // Awaited only when it yields: an await per file (30,000) suspends the loop each time.
      const b = breathe();
      if (b) await b;
    }
    return rest;
  };
  const pages = candidates.length ? await linkedOr(candidates) : [];
  const aside = pages.length >= PAGE_THREAD_MIN ? await startAside(w, pages, asidePages[0]!.page!, ownDirs) : undefined;
  // Documents that get precompressed siblings first (the lists): they are compressed in the thread pool while the
  // rest is linked and written. After everything else, a 1% rebuild of 10,000 EPDs waited 0.5 s for them.
  const withSiblings: PlannedFile[] = [];
  const others: PlannedFile[] = [];
  for (let i = 0; i < first.length; i++) {
    const f = first[i]!;
    if (!apart.has(f)) (w.early?.wants(f.path) ? withSiblings : others).push(f);
  }
  try {
    for (const group of [withSiblings, others]) await make(await linkedOr(group));
    // Too few for the thread: made here (already found not linkable).
    if (!aside) await make(pages);
  } catch (e) {
    // Never left writing: the temporary folder is removed after this returns.
    await aside?.stop();
    throw e;
  }
  await aside?.finish(sized);
  // The first file of each key is this build's: linked without looking at it again; a copy where linking fails (EMLINK).
  // In the spare, a link to the same inode as a kept first file is already one.
  for (const f of later) {
    const b = breathe();
    if (b) await b;
    const { path, size } = lead.get(f.key!)!;
    const to = target(dir, f.path);
    const ino = w.kept.get(path);
    if (ino !== undefined && inode(to) === ino) {
      w.known.set(f.path, f.key!);
      cache?.emitted(f.path, f.key!, size, undefined, true);
      continue;
    }
    ensureDir(w, dirname(to));
    if (!linkTo(target(dir, path), to)) await writeOne(w, f);
    else {
      const known = w.known.has(path);
      if (known) w.known.set(f.path, f.key!);
      cache?.emitted(f.path, f.key!, size, undefined, known);
    }
  }
}

/** Hard-link; false when that is not possible (EMLINK, another file system). What is at `to` (the spare's) is replaced. */
function linkTo(from: string, to: string): boolean {
  try {
    relink(from, to);
    return true;
  } catch {
    return false;
  }
}

/** Make `d` and its missing parents unless known to exist (in the spare, folders are made only as files need them). */
function ensureDir(w: Writer, d: string): void {
  if (w.made.has(d)) return;
  ensureDir(w, dirname(d));
  try {
    mkdirSync(d, SITE_MODES.dir);
    if (w.fixDir) chmodSync(d, SITE_MODES.dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // The spare's: a file where a folder is planned (put there by hand) is replaced.
    if (!lstatSync(d).isDirectory()) {
      rmSync(d, { force: true });
      makeDirs(d);
    }
  }
  w.made.add(d);
}

/** EPD pages of `files` the page thread may make: those of one plan (one context and spool), without siblings. */
function pagesAside(w: Writer, files: readonly PlannedFile[]): PlannedFile[] {
  const first = files.find((f) => f.page)?.page;
  if (!first) return [];
  return files.filter((f) => f.page && f.page.ctx.cfg === first.ctx.cfg && f.page.spool === first.spool && !w.early?.wants(f.path));
}

/**
 * Input files copied as they are (EPDs, the datasets they reference), keyed by their sha256 and without precompressed
 * siblings: the page thread may copy them (copyInto, as writeOne would).
 */
function copiesAside(w: Writer, files: readonly PlannedFile[]): PlannedFile[] {
  return files.filter((f) => !f.page && 'copy' in f.source && f.key?.startsWith('sha256:') && !w.early?.wants(f.path));
}

/** ZIP exports of plain files, without precompressed siblings: the page thread may make them (zipFromFiles). */
function zipsAside(w: Writer, files: readonly PlannedFile[]): PlannedFile[] {
  return files.filter((f) => 'files' in f.source && f.source.files && !w.early?.wants(f.path));
}

/**
 * EPD pages, then input copies, then ZIP exports, made in the page thread (src/emit/page-writer.ts) from the front of
 * `files`, a batch at a time, while the main thread writes the rest of the site; `finish` then makes them here from
 * the back until the two meet, makes any the thread did not write, and records them all in their order (the cache's
 * record stays the same whatever the split). An unchanged file is linked from the previous site or the blob folder
 * here first, as writeOne would. A page whose folder is in `ownDirs` (its own, in a new tree) has it made by the
 * thread, unless it is needed here first.
 */
async function startAside(
  w: Writer,
  files: readonly PlannedFile[],
  { ctx, spool }: PagePlan,
  ownDirs: ReadonlySet<string>,
): Promise<{ finish(sized: (f: PlannedFile, size: number) => void): Promise<void>; stop(): Promise<void> }> {
  const { cache } = w;
  const made: { f: PlannedFile; to: string; dir?: string; size?: number; kept?: boolean; copied?: CopyResult }[] = [];
  const reused: [PlannedFile, number][] = [];
  for (const f of files) {
    const to = target(w.dir, f.path);
    const d = dirname(to);
    // A page of its own folder with nothing to link there: the thread makes the folder.
    const deferred = ownDirs.has(d) && !w.made.has(d) && !(cache && f.key && cache.reusable(f.path, f.key).length);
    if (deferred) {
      made.push({ f, to, dir: d });
      continue;
    }
    ensureDir(w, d);
    const size = await reuseOutput(w, f, to);
    if (size !== undefined) reused.push([f, size]);
    else made.push({ f, to });
  }
  let fd: number | undefined;
  try {
    fd = spool?.shared();
  } catch {
    // A closed spool: the pages read their documents again.
  }
  const writer = made.length ? new PageWriter() : undefined;
  // Made as sent (a ZIP export's entries are 46 objects).
  const job = ({ f, to, dir }: (typeof made)[number]): PageJob | CopyJob | ZipJob => {
    // Made files are kept beside the cache (copies are not): only they need their blob's place.
    const blob = () => (cache && f.key ? cache.blobFor(f.key) : undefined);
    if (f.page) return { ...pageJob(to, f.page, blob()), ...(dir ? { dir } : {}) };
    const s = f.source;
    if ('files' in s && s.files) {
      const b = blob();
      return { to, entries: s.files(), ...(b ? { blob: b } : {}) };
    }
    const c = s as { copy: string; stat?: CopyStat };
    return { to, copy: c.copy, ...(c.stat ? { stat: c.stat } : {}) };
  };
  const dirs = { mode: SITE_MODES.dir, fix: w.fixDir };
  let front = 0;
  let back = made.length;
  // Batches out at a time: the thread has work queued while the main thread writes a large list without a break (its
  // answers come in only between files).
  const feed = async () => {
    while (writer && front < back) {
      const from = front;
      const n = Math.max(PAGE_BATCH_MIN, Math.min(PAGE_BATCH, Math.ceil((back - front) / (4 * PAGE_BATCHES_OUT))));
      front = Math.min(back, front + n);
      const r = await writer.run(ctx.cfg, w.file, fd, made.slice(from, front).map(job), dirs);
      r?.sizes.forEach((size, k) => Object.assign(made[from + k]!, { size, kept: r.kept[k], copied: r.copies[k] }));
    }
  };
  const feeding = Promise.all(Array.from({ length: PAGE_BATCHES_OUT }, feed));
  // Written here: recorded in the cache below, in order (as writeOne would have).
  const here = { ...w, cache: undefined };
  return {
    async stop() {
      back = front;
      await writer?.close();
      await feeding;
    },
    async finish(sized) {
      const breathe = breather();
      try {
        while (front < back) {
          const m = made[--back]!;
          m.size = await writeOne(here, m.f);
          const b = breathe();
          if (b) await b;
        }
        await feeding;
      } finally {
        await writer?.close();
      }
      for (const [f, size] of reused) sized(f, size);
      for (const m of made) {
        const inThread = m.size !== undefined && m.kept !== undefined;
        // Not written by the thread (it ended, or failed on this one): made here, where a failure is reported.
        const size = (m.size ??= await writeOne(here, m.f));
        // A copy holds the bytes of its key when the input was still as recorded, or hashed to it (as writeOne).
        if (inThread && m.copied && (m.copied.asRecorded || m.copied.digest === m.f.key!.slice(7))) w.known.set(m.f.path, m.f.key!);
        if (cache && m.f.key) {
          cache.emitted(m.f.path, m.f.key, size);
          // Pages and ZIP exports are made, so kept beside the cache (the thread kept its own); copies need not be.
          if ((m.f.page || 'make' in m.f.source) && !inThread) cache.keep(m.to, m.f.key, size);
          else if (m.kept) cache.kept(m.f.key, size);
        }
        sized(m.f, size);
      }
    },
  };
}

/**
 * An output whose content key is unchanged, hard-linked (or copied) at `to` from the previous site or the cache's blob
 * folder: its size; undefined when there is none to take.
 */
async function reuseOutput(w: Writer, f: PlannedFile, to: string): Promise<number | undefined> {
  const { cache } = w;
  const mtime = w.file.mtime;
  if (!cache || !f.key) return undefined;
  for (const prev of cache.reusable(f.path, f.key)) {
    const linked = linkSame(prev.path, to, prev.size);
    if (linked === undefined && !(prev.blob && (await copySame(prev.path, to, prev.size)))) continue;
    // A site written by an older po-node may hold files of another mode.
    if (linked !== SITE_MODES.file) chmodSync(to, SITE_MODES.file);
    cache.emitted(f.path, f.key, prev.size, prev.blob ? 'blob' : 'site');
    if (mtime) await utimes(to, mtime, mtime);
    return prev.size;
  }
  return undefined;
}

/** Write one planned file (or hard-link it from the previous site or the cache when its content key is unchanged); returns its size. */
async function writeOne(w: Writer, f: PlannedFile): Promise<number> {
  const to = target(w.dir, f.path);
  const { cache } = w;
  ensureDir(w, dirname(to));
  const reused = await reuseOutput(w, f, to);
  if (reused !== undefined) return reused;
  // Bytes keyed by their SHA-256 (datasets, documents) are hashed as they are written: health need not read them back.
  // Documents with precompressed siblings too: their compression starts now, not after the whole site is written.
  const keyed = f.key?.startsWith('sha256:') ?? false;
  const early = !keyed && w.early?.wants(f.path);
  const hash = keyed || early ? createHash('sha256') : undefined;
  const s = f.source;
  const made = 'make' in s ? await s.make() : undefined;
  let copied: ReturnType<typeof copyInto> | undefined;
  const size = createFile(to, w.file, (fd) => {
    if ('make' in s) return writeMade(fd, made!, hash);
    // An input still as discovered is not hashed again: its key is the sha256 of the bytes read then.
    if ('copy' in s) return (copied = copyInto(s.copy, fd, hash, keyed ? s.stat : undefined)).size;
    if ('bytes' in s) return writeAll(fd, s.bytes, hash);
    if ('parts' in s) return writeParts(fd, s.parts(), hash);
    return writeParts(fd, [s.text], hash);
  });
  if (copied?.asRecorded) w.known.set(f.path, f.key!);
  else if (hash && (!copied || copied.hashed)) {
    const digest = hash.digest('hex');
    if (keyed && digest === f.key!.slice(7)) w.known.set(f.path, f.key!);
    if (!keyed) w.digests.set(f.path, digest);
    if (early) w.early!.written(f.path, to, size, digest, f.key);
  }
  if (cache && f.key) {
    cache.emitted(f.path, f.key, size);
    // Made, not copied (ZIP exports): kept beside the cache for a runner that has no previous site; a whole list too,
    // for its entries.
    if (made) cache.keep(to, f.key, size);
    else if ('parts' in s) cache.keepList(to, f.path, f.key, size);
  }
  return size;
}

/**
 * Hard-link an unchanged file of the previous site; returns its mode bits, or undefined (then it is written) when
 * that is not possible. Synchronous: at 10,000 EPDs an incremental build links about 20,000 files, and a thread-pool
 * round trip for each `lstat`, `link` and `chmod` cost more than the calls.
 */
function linkSame(from: string, to: string, size: number): number | undefined {
  try {
    const st = lstatSync(from);
    if (!st.isFile() || st.size !== size) return undefined;
    relink(from, to);
    return st.mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** A cached copy on another file system (no hard link possible). */
async function copySame(from: string, to: string, size: number): Promise<boolean> {
  try {
    // Never copied into what is there: in the spare it may be a hard link to the live site's file.
    await rm(to, { recursive: true, force: true });
    await copyFile(from, to, constants.COPYFILE_FICLONE);
    if ((await stat(to)).size === size) return true;
    await rm(to, { force: true });
    return false;
  } catch {
    return false;
  }
}

/** Resolve a planned path and prove it stays inside the output folder. */
function target(dir: string, path: string): string {
  // Folders are plain ASCII; the last segment may be a document name with spaces or non-ASCII.
  const folders = FOLDERS.exec(path)![0];
  const last = path.slice(folders.length);
  if (!(plainSegment(last) || isSafeDocumentName(last))) {
    throw new Error(`internal: unsafe output path ${JSON.stringify(path)}`);
  }
  // No empty, `.` or `..` segment: appended to the (absolute, normalised) folder it stays inside it. path.resolve
  // and the isInside check cost 0.5 s of a 1% rebuild of 10,000 EPDs (30,000 paths).
  if (plainRoot(dir)) return `${dir}/${path}`;
  const to = resolve(dir, path);
  if (!isInside(dir, to)) throw new Error(`internal: output path escapes the site: ${path}`);
  return to;
}

/** The leading folders of a path: plain ASCII segments, none `.` or `..`. */
const FOLDERS = /^(?:(?!\.\.?\/)[A-Za-z0-9._-]+\/)*/;
const plainSegment = (s: string) => /^[A-Za-z0-9._-]+$/.test(s) && s !== '..' && s !== '.';

/** An absolute, normalised POSIX folder (asked once per site folder, not per file). */
let lastRoot: [string, boolean] = ['', false];
function plainRoot(dir: string): boolean {
  if (lastRoot[0] !== dir) lastRoot = [dir, sep === '/' && isAbsolute(dir) && !dir.endsWith('/') && normalize(dir) === dir];
  return lastRoot[1];
}
