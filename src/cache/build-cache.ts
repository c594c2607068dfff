import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import type { OutcomeCache } from '../catalog/build.js';
import type { Interner } from '../catalog/intern.js';
import type { ReadOutcome } from '../catalog/read.js';
import type { ResolvedConfig } from '../config/load.js';
import type { Finding } from '../findings.js';
import type { Ref } from '../parse/extract.js';
import type { InputFile } from '../read/inputs.js';
import { eachJsonLine } from '../util/json-files.js';
import { isInside, toPosix } from '../util/paths.js';
import { GENERATOR_VERSION } from '../version.js';
import { keepBlob } from './blobs.js';
import { hashFile, type HashAhead } from './hash-ahead.js';
import { BuildManifest, spareListing, type FolderListing, type TreeEntry } from './manifest.js';

/**
 * Incremental builds (docs/performance.md). One NDJSON file per output folder in a cache folder
 * (--cache-dir / "cacheDir", else PO_NODE_CACHE_DIR, else $XDG_CACHE_HOME/po-node, else ~/.cache/po-node): not in the
 * site, which must stay reproducible and must not publish local paths. It maps each plain input file, by its path
 * relative to the inputs' root (the config's folder, else the working directory), to the sha256 of its bytes, its
 * stat (size, mtime, ctime: only a fast path on the machine that wrote it) and what reading it produced (index
 * header, findings of levels 1-4); and each emitted file that has a content key to that key. ZIP exports are kept
 * beside it (`<name>.blobs/`), so a CI runner without the previous site does not make them again. One key over
 * po-node version, resolved config (paths relative to the root), build day (date rules) and the working directory
 * relative to the root invalidates everything at once. Nothing in it depends on where the checkout lies.
 */
export type CachedOutcome = ReadOutcome;

interface InputEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  outcome: CachedOutcome;
}

/**
 * Bump when the cache's layout or the meaning of its entries changes. 4: inputs by relative path and content; 5:
 * findings have params; 6: repeated values by number ('v' lines); 7: not gzipped; 8: the whole lists' entries ('e', 'l');
 * 9: outputs and blobs many to a line ('O', 'B'); 10: findings by template ('t'), a digest equal to the sha256 as 1; 11:
 * an EPD's description (its general comment as its page shows it), not every language's comments, nor synonyms; 12:
 * a process's names as 0 where they are its header's (one array in memory), the findings' file as 1 where it is the
 * input's own path.
 */
const FORMAT = 12;

interface CacheDoc {
  format: number;
  key: string;
  /** Absolute inputs' root and output folder of the build that wrote it: stat and the previous site are trusted only there. */
  root: string;
  out: string;
  /** By input path: a map, as every input is looked up by a path made for it (an object's keys are internalised). */
  inputs: Map<string, InputEntry>;
  /** Emitted path -> content key and size, for the site that was last written. */
  outputs: Map<string, { key: string; size: number }>;
  /** Content key -> size of the copy kept in the blob folder: a map, as every output's key is looked up in it. */
  blobs: Map<string, number>;
  /** Whole lists as written: path -> content key and [start, length] of each entry of `entryKeys`, flat. */
  lists: Record<string, { key: string; spans: readonly number[] }>;
  /** The entry keys of the EPDs of the lists (src/emit/list-entries.ts). */
  entryKeys?: readonly string[];
}

type Line =
  | ['r', number, Ref]
  | ['v', number, unknown]
  | ['t', number, Finding]
  | ['i', string, InputEntry]
  | ['O', 0, [path: string, key: string, size: number][]]
  | ['B', 0, [key: string, size: number][]]
  | ['l', string, { key: string; spans: number[] }]
  | ['e', 0, string[]];

/**
 * Header fields whose values EPDs of one programme operator repeat (the compliance system, the publisher, owners,
 * classifications, declared-unit links), and the finding fields (messages, XPaths) thousands of findings repeat: on
 * disk each distinct value once ('v' line), then by number. Names and comments differ from EPD to EPD: kept inline.
 */
const PACKED_HEADER = ['links'] as const;
const PACKED_PROCESS = ['classifications', 'compliance', 'owner', 'publishers', 'registrationAuthority'] as const;
const PACKED_FINDING = ['message', 'xpath'] as const;
/**
 * A finding on disk: by its template ('t' line: the finding with its file, line and column nulled, which thousands of
 * findings share: the same rule, message, XPath and parameters) with its line and column; the file is the outcome's
 * (`ff`). A finding with another file, or none, is kept as an object (its message and XPath packed).
 */
type DiskFinding = [template: number, line: number, col: number] | Finding;
const PLACED = new Set(['file', 'line', 'col']);
/** A template as loaded: its keys in order and their values, a finding made from it by one loop. */
interface Template {
  keys: string[];
  values: unknown[];
}
/** Shorter values cost more as a number and a lookup than inline. */
const PACK_MIN = 24;
/** Bytes of a previous list read at a time for its entries (ListEntryStore.previous). */
const ENTRY_WINDOW = 1 << 20;

/** The same keys in both maps, each value of `a` as `same` judges it against `b`'s. */
function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>, same: (v: V, w: V | undefined) => boolean): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (!same(v, b.get(k))) return false;
  return true;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PO_NODE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'po-node');
}

/** The cache file of one output folder: named by its path relative to the inputs' root and the node's ID, never an absolute path. */
export function cacheFile(cfg: Pick<ResolvedConfig, 'out' | 'baseDir' | 'node'>, dir: string = defaultCacheDir()): string {
  const name = `${toPosix(relative(cfg.baseDir, cfg.out))}\0${cfg.node.id}`;
  return join(dir, `${createHash('sha256').update(name).digest('hex').slice(0, 24)}.ndjson`);
}

/** The resolved config without absolute paths: the same project checked out elsewhere has the same key. */
export function cacheKey(cfg: ResolvedConfig, now: Date, cwd: string): string {
  const rel = (p: string) => toPosix(relative(cfg.baseDir, p));
  const { baseDir: _b, cacheDir: _c, configFile, ...rest } = cfg;
  const portable = {
    ...rest,
    inputs: cfg.inputs.map(rel),
    out: rel(cfg.out),
    deploy: {
      ...cfg.deploy,
      out: rel(cfg.deploy.out),
      // By default the output folder (absolute here, as `out`): relative like it. A root given for the server stays.
      siteRoot:
        cfg.deploy.siteRoot === cfg.out || isInside(cfg.baseDir, cfg.deploy.siteRoot) ? rel(cfg.deploy.siteRoot) : cfg.deploy.siteRoot,
    },
    ...(configFile ? { configFile: rel(configFile) } : {}),
  };
  // Findings name files relative to the working directory: it must stand where it stood.
  const all = { v: GENERATOR_VERSION, cfg: portable, day: now.toISOString().slice(0, 10), cwd: rel(cwd) };
  return createHash('sha256').update(JSON.stringify(all)).digest('hex');
}

/** What the cache saved a build, for reports and tests. */
export interface CacheStats {
  /** Inputs whose earlier outcome was used: `byStat` on the same machine, `byContent` after their bytes were hashed. */
  byStat: number;
  byContent: number;
  /** Inputs read, parsed and validated. */
  read: number;
  /** Outputs hard-linked from the previous site or from the blob folder instead of written. */
  fromSite: number;
  fromBlobs: number;
}

export class BuildCache implements OutcomeCache {
  private prev: CacheDoc | undefined;
  private readonly next: CacheDoc;
  readonly stats: CacheStats = { byStat: 0, byContent: 0, read: 0, fromSite: 0, fromBlobs: 0 };
  private readonly blobDir: string;
  private blobDirMade = false;
  /** The previous site as the build manifest recorded it, by path. */
  private site: Map<string, TreeEntry> | undefined;
  /** Outputs linked from a previous-site file still as recorded: path -> content key (their bytes are known). */
  readonly verified = new Map<string, string>();
  /** Content key -> the manifest's record of the previous-site file it was linked from (its inode's stat). */
  private readonly verifiedRecords = new Map<string, TreeEntry>();
  /** The previous build's entry keys of the whole lists, by key: their index (one map for all lists and pages). */
  private entryIndex: Map<string, number> | undefined;

  /**
   * `root`: the inputs' root (config folder, else working directory); inputs are keyed relative to it.
   * `fresh`: ignore what is on disk (--clean), but still record for the next build. Call load() before use.
   */
  constructor(
    readonly out: string,
    readonly root: string,
    private readonly key: string,
    private readonly fresh: boolean,
    readonly file: string,
  ) {
    this.next = { format: FORMAT, key, root, out, inputs: new Map(), outputs: new Map(), blobs: new Map(), lists: {} };
    this.blobDir = file.replace(/\.ndjson$/, '.blobs');
  }

  /**
   * Read the previous build's cache: JSON lines, read in chunks (src/util/json-files.ts); a corpus of 100,000 EPDs
   * makes a cache of about 300 MB, too much for one string.
   */
  load(interner?: Interner, manifest: BuildManifest = new BuildManifest(this.file)): this {
    if (this.fresh) return this;
    this.site = manifest.previousSite(this.out);
    let doc: CacheDoc | undefined;
    const refs: Ref[] = [];
    const values: unknown[] = [];
    const templates: Template[] = [];
    try {
      eachJsonLine(this.file, (line) => {
        if (!doc) {
          const head = line as Pick<CacheDoc, 'format' | 'key' | 'root' | 'out'>;
          if (head.format !== FORMAT || head.key !== this.key) return false;
          doc = { ...head, inputs: new Map(), outputs: new Map(), blobs: new Map(), lists: {} };
          return true;
        }
        const e = line as Line;
        // Interned as read, so the previous index never exists twice in memory.
        if (e[0] === 'r') refs[e[1]] = interner ? interner.ref(e[2]) : e[2];
        else if (e[0] === 'v') values[e[1]] = interner ? interner.shared(e[2]) : e[2];
        else if (e[0] === 't') templates[e[1]] = template(interner ? interner.shared(e[2]) : e[2]);
        else if (e[0] === 'i') {
          const o = e[2].outcome as CachedOutcome & { ff?: string | 1 };
          const h = o.header;
          if ((o.digest as unknown) === 1) o.digest = o.sha256;
          // On disk a header's references are numbers: indexes of the 'r' lines before it; packed values likewise.
          if (h) {
            // In place: no second array per header (10,000 of ~60 references each at 10,000 EPDs).
            const rs = h.references as unknown as (number | Ref)[];
            for (let i = 0; i < rs.length; i++) rs[i] = known(refs, rs[i] as number);
            unpack(h, PACKED_HEADER, values);
            if (h.process) {
              unpack(h.process, PACKED_PROCESS, values);
              // The same array as the header's, as the reader made it: parsed (and kept) once.
              if ((h.process.names as unknown) === 0) h.process.names = h.names;
            }
            // Not walked by the interner: its references are the 'r' lines' (interned), its repeated values the 'v'
            // lines' (shared), and what is left is the EPD's own (names, comments; short ones the JSON parser
            // internalises): walking them cost the load of 10,000 bench EPDs 80-100 ms and saved 4 MB.
          }
          // Not interner.outcome: a finding made from a template holds only its template's values (shared) and the file.
          const ff = o.ff === 1 ? e[1] : o.ff;
          const file = ff === undefined ? undefined : interner ? interner.str(ff) : ff;
          delete o.ff;
          const disk = o.findings as unknown as DiskFinding[];
          for (let i = 0; i < disk.length; i++) {
            const d = disk[i]!;
            if (!Array.isArray(d)) {
              unpack(d, PACKED_FINDING, values);
              o.findings[i] = interner ? interner.deep(d) : d;
              continue;
            }
            if (file === undefined) throw new Error('cache: a finding without its file');
            o.findings[i] = fromTemplate(known(templates, d[0]), file, d[1], d[2]);
          }
          doc.inputs.set(e[1], e[2]);
        } else if (e[0] === 'O') {
          // Indexed, no destructuring: 45,000 outputs at 10,000 EPDs, read before V8 optimises this (docs/performance.md,
          // "Loops that run once").
          const os = e[2];
          for (let i = 0; i < os.length; i++) doc.outputs.set(os[i]![0], { key: os[i]![1], size: os[i]![2] });
        } else if (e[0] === 'B') {
          const bs = e[2];
          for (let i = 0; i < bs.length; i++) doc.blobs.set(bs[i]![0], bs[i]![1]);
        } else if (e[0] === 'l') doc.lists[e[1]] = e[2];
        else doc.entryKeys = e[2];
        return true;
      });
      this.prev = doc;
    } catch {
      // No cache, or unreadable: a full build.
    }
    return this;
  }

  /** Inputs are keyed relative to the root, so a checkout elsewhere finds them. */
  private id(file: InputFile): string {
    // The folder's relative path once per folder (path.relative cost 1.5 us a file, 10,000 files a folder).
    const dir = dirname(file.abs);
    let rel = this.relDirs.get(dir);
    if (rel === undefined) this.relDirs.set(dir, (rel = toPosix(relative(this.root, dir))));
    const name = file.abs.slice(dir.length + (dir.endsWith(sep) ? 0 : 1));
    return rel ? `${rel}/${name}` : name;
  }
  /** Folders of inputs, relative to the root (id). */
  private readonly relDirs = new Map<string, string>();

  /**
   * Cached outcomes of unchanged plain inputs (undefined: read it); ZIP entries are always read. On the machine that
   * wrote the cache an unchanged stat is enough; elsewhere (a CI runner's fresh checkout: new paths, mtimes and
   * ctimes) a file is unchanged when the sha256 of its bytes is the one recorded. Hashing is far cheaper than parsing.
   */
  // eslint-disable-next-line @typescript-eslint/require-await -- synchronous reads are the point (OutcomeCache is async)
  async lookupAll(files: readonly InputFile[], readAhead?: Pick<ReadonlySet<string>, 'has'>): Promise<(CachedOutcome | undefined)[]> {
    const sameMachine = this.prev?.root === this.root;
    const h = this.hashAhead;
    // Another machine's cache: nearly every input is hashed, here what the worker has not got to yet, from the end back.
    // Else the stat tells most inputs, and the few others are hashed here (a file the stopped worker was in the middle
    // of would keep digestOf waiting for it).
    if (h && this.prev && !sameMachine) h.hashTheRest();
    else {
      h?.stop();
      this.hashAhead = undefined;
    }
    const out = files.map((f) => this.lookup(f, sameMachine, readAhead?.has(f.abs) ?? false));
    this.hashAhead?.stop();
    this.hashAhead = undefined;
    this.stats.read = out.filter((o) => !o).length;
    return out;
  }

  /** Inputs being hashed in a worker thread since before the load (a fresh runner: src/cache/hash-ahead.ts). */
  hashAhead: HashAhead | undefined;

  private lookup(file: InputFile, sameMachine: boolean, readAhead: boolean): CachedOutcome | undefined {
    if (file.entry !== undefined) return undefined;
    const id = this.id(file);
    const e = this.prev?.inputs.get(id);
    if (!e) return undefined;
    const st = this.stat(file);
    if (!st || st.size !== e.size) return undefined;
    if (sameMachine && st.mtimeMs === e.mtimeMs && st.ctimeMs === e.ctimeMs) {
      this.next.inputs.set(id, e);
      this.stats.byStat++;
      return e.outcome;
    }
    // Read ahead: its outcome is the file's whatever the hash would say (100 hashed for nothing in a 1% rebuild).
    if (!e.outcome.digest || readAhead) return undefined;
    // Synchronous, into one reused buffer: 10,000 promise reads on a fresh runner cost twice the time of the hashing.
    const digest = this.hashAhead ? this.hashAhead.digestOf(file.abs) : hashFile(file.abs);
    if (digest === undefined || digest !== e.outcome.digest) return undefined;
    // The stat taken before the read: a change during it shows as a mismatch next time.
    this.next.inputs.set(id, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, outcome: e.outcome });
    this.stats.byContent++;
    return e.outcome;
  }

  /**
   * Call before the file is read: a change during the read then shows as a stat mismatch next time. The stat
   * discovery recorded is one (taken before anything was read).
   */
  stat(file: InputFile): { size: number; mtimeMs: number; ctimeMs: number } | undefined {
    if (file.entry !== undefined) return undefined;
    if (file.stat) return { size: file.size, mtimeMs: file.stat[0], ctimeMs: file.stat[1] };
    const st = statSync(file.abs, { throwIfNoEntry: false });
    return st ? { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : undefined;
  }

  record(file: InputFile, st: { size: number; mtimeMs: number; ctimeMs: number } | undefined, outcome: CachedOutcome): void {
    if (st) this.next.inputs.set(this.id(file), { ...st, outcome });
  }

  /**
   * Where an unchanged output can be hard-linked from: the previous site's file at `path` when it was emitted with
   * the same content key (only if that site is the one this cache describes: same output folder), else the copy
   * kept in the blob folder (ZIP exports).
   */
  reusable(path: string, key: string): { path: string; size: number; blob: boolean }[] {
    const found: { path: string; size: number; blob: boolean }[] = [];
    const o = this.prev?.out === this.out ? this.prev.outputs.get(path) : undefined;
    if (o && o.key === key) found.push({ path: join(this.out, path), size: o.size, blob: false });
    const b = this.prev?.blobs.get(key);
    if (b !== undefined) found.push({ path: this.blobPath(key), size: b, blob: true });
    return found;
  }

  /** Does this cache know the previous site's files (their keys and, from the build manifest, their stats)? */
  get knowsPreviousSite(): boolean {
    return !!this.site && this.prev?.out === this.out;
  }

  /** What the spare, renamed to `dir`, is known to hold in each folder (manifest.ts spareListing). */
  spareListing(dir: string): FolderListing | undefined {
    return this.knowsPreviousSite ? spareListing(dir, this.site!) : undefined;
  }

  /**
   * The previous site's file at `path` when it was emitted with this key and is still as the build manifest recorded
   * it after that build verified it (same inode, size, mtime and mode): its bytes are those of the key. `abs`: where to
   * look for that inode (default: in the previous site; the spare holds hard links to the same inodes).
   */
  verifiedPrevious(path: string, key: string, abs = join(this.out, path)): { path: string; size: number; ino: number } | undefined {
    const o = this.prev?.out === this.out ? this.prev.outputs.get(path) : undefined;
    const rec = o?.key === key ? this.site?.get(path) : undefined;
    if (!rec || rec[1] !== 1 || rec[2] !== o!.size) return undefined;
    let st: Stats | undefined;
    try {
      st = lstatSync(abs, { throwIfNoEntry: false });
    } catch {
      // ENOTDIR: a file where a folder of the path should be (in the spare).
    }
    if (!st || st.size !== rec[2] || st.mtimeMs !== rec[3] || st.ino !== rec[4] || st.mode !== rec[5]) return undefined;
    this.verifiedRecords.set(key, rec);
    return { path: abs, size: o!.size, ino: st.ino };
  }

  /**
   * The manifest entry of an output linked from a verified previous-site file (any path linked to it): the stat of
   * that inode as it was checked before the link, so the new manifest needs no lstat of it. Should the file change
   * after that check, the entry is older than the file and the next build sees a mismatch (never a false no-op).
   */
  linkedEntry(path: string): TreeEntry | undefined {
    const key = this.verified.get(path);
    const rec = key === undefined ? undefined : this.verifiedRecords.get(key);
    return rec ? [path, 1, rec[2], rec[3], rec[4], rec[5]] : undefined;
  }

  emitted(path: string, key: string, size: number, from?: 'site' | 'blob', verified = false): void {
    this.next.outputs.set(path, { key, size });
    if (verified) this.verified.set(path, key);
    if (!from) return;
    if (from === 'site') this.stats.fromSite++;
    else this.stats.fromBlobs++;
    // A reused output keeps its kept copy.
    const b = this.prev?.blobs.get(key);
    if (b !== undefined) this.next.blobs.set(key, b);
  }

  /**
   * Keep a copy of an output that is expensive to make (a ZIP export) beside the cache: a hard link when the cache
   * folder is on the site's file system, else a copy (unless `copy` is false). A failure only costs the next build's
   * time.
   */
  keep(file: string, key: string, size: number, copy = true): void {
    const blob = this.blobFor(key);
    // One link per kept file in the usual case (a build keeps one per EPD page): the folder is made once.
    if (keepBlob(file, blob.to, size, blob.size === size, this.blobDirMade, copy)) this.kept(key, size);
    this.blobDirMade = true;
  }

  /**
   * Where the file of `key` is kept, and the size of the one the previous build kept there: a file made in another
   * thread is kept there by that thread (keepBlob), then recorded here (kept).
   */
  blobFor(key: string): { to: string; size?: number } {
    const size = this.prev?.blobs.get(key);
    return { to: this.blobPath(key), ...(size !== undefined ? { size } : {}) };
  }

  /**
   * A whole list just written (`written` recorded where its entries are): kept beside the cache too, so a runner
   * without the previous site takes its unchanged entries from it (previous) instead of rendering all of them again
   * (30,000 at 10,000 EPDs, about 1.1 s). Only as a hard link: every build writes the whole lists anew (40 MB at 10,000
   * EPDs), too much to copy into a cache folder on another file system each time.
   */
  keepList(file: string, path: string, key: string, size: number): void {
    if (this.next.lists[path]?.key === key) this.keep(file, key, size, false);
  }

  /** The file of `key` is kept (keepBlob): the next build may link it. */
  kept(key: string, size: number): void {
    this.next.blobs.set(key, size);
  }

  /** The blob the previous build kept for `key`, when it is still of the size recorded: the trust any blob gets. */
  private keptBlob(key: string): { path: string; size: number; ino: number } | undefined {
    const size = this.prev?.blobs.get(key);
    if (size === undefined) return undefined;
    const path = this.blobPath(key);
    try {
      const st = lstatSync(path, { throwIfNoEntry: false });
      return st?.isFile() && st.size === size ? { path, size, ino: st.ino } : undefined;
    } catch {
      return undefined;
    }
  }

  private blobPath(key: string): string {
    return join(this.blobDir, createHash('sha256').update(key).digest('hex').slice(0, 32));
  }

  /**
   * The previous build's whole list at `path`, when the build manifest shows its file as that build wrote it (same
   * inode, size, mtime: verifiedPrevious, and the file opened is that inode), else its copy kept beside the cache
   * (keepList; a fresh runner): its entries by entry key, read from the live site (which this build does not touch
   * before its swap) or the blob through a window of ENTRY_WINDOW bytes, in the order they are asked for (the lists'
   * order, mostly the previous list's): memory stays bounded whatever the list's size.
   */
  previous(path: string): { get(entryKey: string): Uint8Array | undefined; close(): void } | undefined {
    const rec = this.prev?.lists[path];
    const keys = this.prev?.entryKeys;
    if (!rec || !keys || rec.spans.length !== 2 * keys.length) return undefined;
    // The previous site's file, else (a runner without it) the copy kept beside the cache (keepList).
    const file = this.verifiedPrevious(path, rec.key) ?? this.keptBlob(rec.key);
    if (!file) return undefined;
    let fd: number;
    try {
      fd = openSync(file.path, 'r');
    } catch {
      return undefined;
    }
    const st = fstatSync(fd);
    if (st.ino !== file.ino || st.size !== file.size) {
      closeSync(fd);
      return undefined;
    }
    const at = (this.entryIndex ??= new Map(keys.map((k, i) => [k, i])));
    const { spans } = rec;
    let win = Buffer.allocUnsafe(ENTRY_WINDOW);
    let [from, to] = [0, 0];
    return {
      get: (entryKey) => {
        const i = at.get(entryKey);
        if (i === undefined) return undefined;
        const start = spans[2 * i]!;
        const end = start + spans[2 * i + 1]!;
        if (end > file.size) return undefined;
        if (start < from || end > to) {
          if (end - start > win.length) win = Buffer.allocUnsafe(end - start);
          from = start;
          to = start + readSync(fd, win, 0, Math.min(win.length, file.size - start), start);
          if (end > to) return undefined;
        }
        return win.subarray(start - from, end - from);
      },
      close: () => closeSync(fd),
    };
  }

  written(path: string, key: string, entryKeys: readonly string[], spans: readonly number[]): void {
    this.next.lists[path] = { key, spans };
    this.next.entryKeys = entryKeys;
  }

  /**
   * Lists written by this build, and those it kept unchanged (same content key: the same entries, so the entry keys
   * of the lists written now, or of the last build when none was).
   */
  private listsToSave(): Pick<CacheDoc, 'lists' | 'entryKeys'> {
    const lists = { ...this.next.lists };
    for (const [path, rec] of Object.entries(this.prev?.lists ?? {})) {
      if (!lists[path] && this.next.outputs.get(path)?.key === rec.key) lists[path] = rec;
    }
    const entryKeys = this.next.entryKeys ?? this.prev?.entryKeys;
    return Object.keys(lists).length && entryKeys ? { lists, entryKeys } : { lists: {} };
  }

  /** Every input a cache hit by stat and every output the same key and size as last time. */
  private unchanged(): boolean {
    const prev = this.prev;
    if (!prev || prev.root !== this.root || prev.out !== this.out) return false;
    return (
      sameEntries(this.next.inputs, prev.inputs, (e, p) => e === p) &&
      sameEntries(this.next.outputs, prev.outputs, (o, p) => p?.key === o.key && p.size === o.size) &&
      sameEntries(this.next.blobs, prev.blobs, (size, p) => size === p)
    );
  }

  /** After the site was swapped in; atomically. A failure to write it costs only the next build's time. */
  save(): void {
    // A no-op rebuild leaves the cache as it was: no need to write it again.
    if (this.unchanged()) return;
    // Unique per save: builds of the same output in one process must not write into each other's file.
    const tmp = `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    let fd: number | undefined;
    try {
      mkdirSync(join(this.file, '..'), { recursive: true });
      // Not compressed: gunzip took a 1% rebuild of 10,000 EPDs 0.3 s of the 0.9 s the load took (30 MB of JSON,
      // 3.6 MB gzipped). Synchronous writes: the thread pool may be deleting the tree this build replaced, and a
      // stream's writes waited behind that (1.4 s idle after a 1% rebuild's result).
      fd = openSync(tmp, 'w');
      // Lines are joined into chunks of about 256 kB: one write per line cost more than the JSON itself.
      let chunk = '';
      const flush = () => {
        writeFileSync(fd!, chunk);
        chunk = '';
      };
      const write = (line: string) => {
        chunk += `${line}\n`;
        if (chunk.length >= 1 << 18) flush();
      };
      const { format, key, root, out } = this.next;
      write(JSON.stringify({ format, key, root, out }));
      // Each distinct reference once ('r' line), then by number: EPDs share most of theirs (flows, methods).
      const refIds = new Map<Ref, number>();
      const valueIds = new Map<string, number>();
      const templateIds = new Map<string, number>();
      // Findings of one outcome share its file: by template when they do (DiskFinding).
      // `own`: the input's path, the line's key: most findings are of the file itself, whose file is then written as 1.
      const byTemplate = (list: readonly Finding[], own: string): { findings: DiskFinding[]; ff?: string | 1 } => {
        const ff = list[0]?.file;
        const findings = list.map((f): DiskFinding => {
          if (ff === undefined || f.file !== ff) return pack(f, PACKED_FINDING);
          const t: Record<string, unknown> = {};
          for (const k in f) {
            const v = f[k as keyof Finding];
            if (v !== undefined) t[k] = PLACED.has(k) ? null : v;
          }
          const j = JSON.stringify(t);
          let id = templateIds.get(j);
          if (id === undefined) {
            templateIds.set(j, (id = templateIds.size));
            write(`["t",${id},${j}]`);
          }
          return [id, f.line ?? 0, f.col ?? 0];
        });
        return ff === undefined ? { findings } : { findings, ff: ff === own ? 1 : ff };
      };
      const pack = <T extends object>(o: T, keys: readonly (keyof T & string)[]): T => {
        const out = { ...o } as Record<string, unknown>;
        for (const k of keys) {
          if (o[k] === undefined) continue;
          const j = JSON.stringify(o[k]);
          if (j.length < PACK_MIN) continue;
          let id = valueIds.get(j);
          if (id === undefined) {
            valueIds.set(j, (id = valueIds.size));
            write(`["v",${id},${j}]`);
          }
          out[k] = id;
        }
        return out as T;
      };
      for (const [k, v] of this.next.inputs) {
        const h = v.outcome.header;
        const found = byTemplate(v.outcome.findings, k);
        const digest = v.outcome.digest !== undefined && v.outcome.digest === v.outcome.sha256 ? { digest: 1 } : {};
        if (!h) {
          write(JSON.stringify(['i', k, { ...v, outcome: { ...v.outcome, ...found, ...digest } }]));
          continue;
        }
        const ids: number[] = [];
        for (const r of h.references) {
          let id = refIds.get(r);
          if (id === undefined) {
            refIds.set(r, (id = refIds.size));
            write(JSON.stringify(['r', id, r]));
          }
          ids.push(id);
        }
        const header = pack({ ...h, references: ids as unknown as Ref[] }, PACKED_HEADER);
        if (h.process) {
          header.process = pack(h.process, PACKED_PROCESS);
          if (h.process.names === h.names) (header.process as { names: unknown }).names = 0;
        }
        write(JSON.stringify(['i', k, { ...v, outcome: { ...v.outcome, ...found, ...digest, header } }]));
      }
      // Many to a line: one JSON.parse each of 33,000 small lines cost three times one per thousand.
      for (const rows of batches(this.next.outputs, ([path, o]) => [path, o.key, o.size])) write(JSON.stringify(['O', 0, rows]));
      for (const rows of batches(this.next.blobs, (b) => b)) write(JSON.stringify(['B', 0, rows]));
      const { lists, entryKeys } = this.listsToSave();
      if (entryKeys) write(JSON.stringify(['e', 0, entryKeys]));
      for (const [k, v] of Object.entries(lists)) write(JSON.stringify(['l', k, v]));
      flush();
      closeSync(fd);
      fd = undefined;
      renameSync(tmp, this.file);
      // An older po-node's gzipped cache of the same output is stale now.
      rmSync(this.file.replace(/\.ndjson$/, '.ndjson.gz'), { force: true });
      this.pruneBlobs();
    } catch {
      // Read-only home or cache folder: builds stay correct, just not incremental.
      if (fd !== undefined) closeSync(fd);
      rmSync(tmp, { force: true });
    }
  }

  /** Copies no longer in the site go, so the blob folder holds only what the site does (pages, exports, whole lists). */
  private pruneBlobs(): void {
    if (!existsSync(this.blobDir)) return;
    const keep = new Set([...this.next.blobs.keys()].map((k) => this.blobPath(k)));
    for (const name of readdirSync(this.blobDir)) {
      const p = join(this.blobDir, name);
      if (!keep.has(p)) rmSync(p, { force: true });
    }
  }
}

/** A template ('t' line) ready to make findings from. */
function template(t: Finding): Template {
  return { keys: Object.keys(t), values: Object.values(t) };
}

/** A finding from its template, in the template's key order (the order it was made in). */
function fromTemplate(t: Template, file: string, line: number, col: number): Finding {
  const f: Record<string, unknown> = {};
  const { keys, values } = t;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    f[k] = k === 'file' ? file : k === 'line' ? line : k === 'col' ? col : values[i];
  }
  return f as unknown as Finding;
}

/** Put back the packed values of `o`'s `keys` (numbers on disk: indexes of the 'v' lines before it). */
function unpack<T extends object>(o: T, keys: readonly (keyof T & string)[], values: readonly unknown[]): void {
  const r = o as Record<string, unknown>;
  for (const k of keys) if (typeof r[k] === 'number') r[k] = known(values, r[k]);
}

/** Entry `k` of the lines read so far; a cache that names one it does not hold is unreadable (a full build). */
function known<T>(list: readonly T[], k: number): T {
  // Nothing a line holds is undefined (JSON has none): undefined is a line not there. No `in`: 600,000 calls a load.
  const v = list[k];
  if (v === undefined) throw new Error(`cache: no line ${k}`);
  return v;
}

/** Rows of `items`, mapped, in lines of at most LINE_ROWS. */
function* batches<T, R>(items: Iterable<T>, row: (item: T) => R): Generator<R[]> {
  let rows: R[] = [];
  for (const item of items) {
    rows.push(row(item));
    if (rows.length === LINE_ROWS) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length) yield rows;
}
const LINE_ROWS = 1000;
