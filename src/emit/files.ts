import type { Hash } from 'node:crypto';
import { closeSync, fchmodSync, fstatSync, futimesSync, openSync, readSync, rmSync, writeSync, writevSync } from 'node:fs';
import type { Catalog, Dataset } from '../catalog/build.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { ResolvedConfig } from '../config/load.js';
import type { InputFile } from '../read/inputs.js';
import { readInput } from '../read/zip.js';
import type { ListEntryStore } from './list-entries.js';
import { encodeParts, type Part } from './stream.js';
import type { Spool } from '../util/spool.js';
import type { FileEntries } from './zip-writer.js';

/** One file of the site: where it goes, what it is, and where its bytes come from. */
export interface PlannedFile {
  /** Relative to the output folder, `/` separators. */
  path: string;
  contentType: string;
  /**
   * `parts`: generated while written (the lists; bounded memory), called once per write. `make`: made when written;
   * several buffers (a ZIP export: shared entries, then its central directory) are written in order with one writev;
   * `files`: a ZIP export's entries as plain files, when the page thread may make it instead (zipFromFiles).
   */
  source:
    | { copy: string; stat?: CopyStat }
    | { text: string }
    | { bytes: Uint8Array }
    | { make: () => Promise<string | Uint8Array | readonly Uint8Array[]>; files?: () => FileEntries }
    | { parts: () => Iterable<Part> };
  /** Content key (same key, same bytes): lets an incremental build reuse the previous site's file. */
  key?: string;
  /** An EPD's page: what its `make` makes it from, so the writer may make it in its page thread instead (src/emit/page-writer.ts). */
  page?: PagePlan;
}

/** What an EPD page is made from (src/emit/epd-page.ts): the EPD, what the page links to, where its LCIA table waits. */
export interface PagePlan {
  d: Dataset;
  ctx: { cfg: Pick<ResolvedConfig, 'baseUrl' | 'pathSets' | 'node'>; pdf: boolean; zip: boolean };
  spool?: Spool;
}

export interface PlanContext {
  catalog: Catalog;
  cfg: ResolvedConfig;
  builtAt: Date;
  /** Dependencies of the EPDs: source documents, EPD PDFs, ZIP exports (absent: none planned). */
  references?: ReferenceReport;
  /** The whole lists' entries of the last build (incremental builds). */
  lists?: ListEntryStore;
}

/** Copy a file from disk, or emit the bytes of a ZIP entry, inflated as it is written. */
export function inputSource(f: InputFile): PlannedFile['source'] {
  if (f.zip) return { make: () => readInput(f) };
  return f.stat ? { copy: f.abs, stat: [f.size, ...f.stat] } : { copy: f.abs };
}

export function assertUniquePaths(files: readonly PlannedFile[]): void {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`internal: two outputs for ${f.path}`);
    seen.add(f.path);
  }
}

/** How a new file of the site is created (src/emit/write.ts): its mode, whether the umask forces a chmod, its mtime. */
export interface NewFile {
  mode: number;
  /** The umask (or a default ACL) takes bits away from `mode`: set it again on the open file. */
  fixMode: boolean;
  mtime?: Date;
}

/**
 * Create a file and let `fill` write it through its descriptor; returns what `fill` returns (the size). Opened with its
 * final mode, so no chmod (unless the umask forbids it) and no stat: a few system calls per file, all synchronous.
 * Never opened when it exists: in a reused tree (the spare, src/emit/write.ts) a file there may be a hard link to the
 * live site's, which writing in place would change; it is unlinked and made anew.
 */
export function createFile(path: string, o: NewFile, fill: (fd: number) => number): number {
  let fd: number;
  try {
    fd = openSync(path, 'wx', o.mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    rmSync(path, { recursive: true, force: true });
    fd = openSync(path, 'wx', o.mode);
  }
  try {
    const size = fill(fd);
    if (o.fixMode) fchmodSync(fd, o.mode);
    if (o.mtime) futimesSync(fd, o.mtime, o.mtime);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** Write buffers whole, with writev (never copied into one); returns the bytes written. `hash` sees them too. */
export function writeAll(fd: number, made: Uint8Array | readonly Uint8Array[], hash?: Hash): number {
  // Empty buffers (an empty stored entry) are left out: a writev that writes nothing then means an error.
  const bufs = (made instanceof Uint8Array ? [made] : [...made]).filter((b) => b.length);
  let size = 0;
  for (const b of bufs) {
    size += b.length;
    hash?.update(b);
  }
  // A full disk ends a writev short, without an error: the rest is written again, and that write fails (ENOSPC).
  while (bufs.length) {
    let n = bufs.length === 1 ? writeSync(fd, bufs[0]!) : writevSync(fd, bufs);
    if (n === 0) throw new Error('internal: nothing written');
    while (bufs.length && n >= bufs[0]!.length) n -= bufs.shift()!.length;
    if (n) bufs[0] = bufs[0]!.subarray(n);
  }
  return size;
}

/** A generated document (text, or pieces of text and bytes) in writes of up to 256 KB, encoded as written; returns its size in bytes. */
export function writeParts(fd: number, parts: Iterable<Part>, hash?: Hash): number {
  let size = 0;
  encodeParts(parts, (bytes) => (size += writeAll(fd, bytes, hash)));
  return size;
}

/** What a `make` source made: a text encoded as it is written, bytes as they are; returns its size in bytes. */
export function writeMade(fd: number, made: string | Uint8Array | readonly Uint8Array[], hash?: Hash): number {
  return typeof made === 'string' ? writeParts(fd, [made], hash) : writeAll(fd, made, hash);
}

/** One buffer for all copies: the writer is synchronous, and most inputs fit in one read. */
let copyBuf: Buffer | undefined;

/**
 * An input's stat when it was discovered, before it was read: [size, mtimeMs, ctimeMs, ino]. A file still so holds the
 * bytes that were read and hashed then (the incremental-build cache trusts the same).
 */
export type CopyStat = readonly [number, number, number, number];

/**
 * Copy a file into an open one through one buffer (read, write): fewer calls than copyFile + chmod + stat. `hash` sees
 * the bytes, unless the file is still as `stat` recorded it (sha256 of 790 MB: about half a second of a 10,000-EPD
 * build). `asRecorded`: it was, and the bytes copied are the ones its stat stands for; `hashed`: `hash` saw them all.
 */
export function copyInto(from: string, fd: number, hash?: Hash, stat?: CopyStat): { size: number; asRecorded: boolean; hashed: boolean } {
  copyBuf ??= Buffer.allocUnsafe(1 << 18);
  const src = openSync(from, 'r');
  try {
    const asStat = () => {
      const st = fstatSync(src);
      return st.size === stat![0] && st.mtimeMs === stat![1] && st.ctimeMs === stat![2] && st.ino === stat![3];
    };
    const same = !!stat && asStat();
    const h = same ? undefined : hash;
    let size = 0;
    for (let n; (n = readSync(src, copyBuf, 0, copyBuf.length, null)) > 0;) size += writeAll(fd, copyBuf.subarray(0, n), h);
    // Written to while copied (its ctime moves on any write): not the recorded bytes, and not hashed: health reads it back.
    return { size, asRecorded: same && size === stat[0] && asStat(), hashed: !!h };
  } finally {
    closeSync(src);
  }
}

/** Whether the site publishes an EPD's PDF and ZIP export (soda4LCA sub-resources): the pages link only those. */
export function publishedDocuments(
  uuid: string,
  cfg: Pick<ResolvedConfig, 'pathSets' | 'zipExport'>,
  references?: ReferenceReport,
): { pdf: boolean; zip: boolean } {
  return {
    pdf: !!references?.epdPdf.has(uuid) && cfg.pathSets.default,
    zip: !!references?.closures.has(uuid) && cfg.zipExport && cfg.pathSets.default,
  };
}
