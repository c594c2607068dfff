import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib, { constants as Z } from 'node:zlib';
import { HEALTH_FILES, isDatasetPath, isDocumentPath, siteContentType } from '../site/routes.js';
import type { Encoding, PrecompressConfig } from '../config/load.js';
import type { PlannedFile } from './files.js';
import { pool } from '../util/pool.js';
import { readFileExact } from '../read/zip.js';

/**
 * Precompressed siblings (`<file>.gz`, `<file>.br`) of the generated documents, for hosts that serve them in place of
 * the file when the client accepts the encoding (nginx gzip_static/brotli_static, Apache rewrites, `po-node serve`).
 * docs/hosting.md#precompressed-documents says which hosts use them and why the others get none.
 */
export type { Encoding } from '../config/load.js';
/** The file name suffix of each encoding, as nginx and Apache look for it. */
export const ENCODING_EXT: Readonly<Record<Encoding, string>> = { gzip: '.gz', br: '.br' };
/**
 * Levels, measured (docs/hosting.md, "Why these levels"): on the documents of a 10,000-EPD site (132 MB: the lists,
 * their pages, the catalogue) gzip 8 is as small as 9 (+0.07%) in 6-14% less time, and brotli 5 as small as 6 (+0.5%)
 * in 10-20% less; a 1% rebuild compresses the whole lists again (52 MB). gzip 7 is 6% larger; brotli 4 was 36% larger
 * on those 52 MB.
 */
const GZIP_LEVEL = 8;
const BROTLI_QUALITY = 5;

/** Content types worth compressing; everything else a host serves (PDF, ZIP, images) is compressed already. */
const COMPRESSIBLE = /^(application\/(xml|json|javascript)|text\/(html|css|javascript|plain|csv)|image\/svg\+xml)\b/;
const HEALTH = new Set<string>(Object.values(HEALTH_FILES));
const EPD_PAGE = /^epd\/[^/]+\/index\.html$/;

/**
 * Whether a planned file gets siblings: a generated document a host route serves with a compressible type. Never the
 * datasets and their documents (published byte-for-byte; siblings would double the site), nor hidden host files, nor
 * health (written after this step, from a check of the tree, and small).
 */
export function precompressible(path: string): boolean {
  if (isDatasetPath(path) || isDocumentPath(path) || HEALTH.has(path)) return false;
  // Nor the page per EPD: compressing 10,000 of them twice cost more than a fifth of a 10k build (1.6-2 ms per EPD),
  // and each is a small page a person opens now and then (servers with gzip on compress it on the fly).
  if (EPD_PAGE.test(path)) return false;
  if (path.split('/').some((s) => s.startsWith('.'))) return false;
  const type = siteContentType(path);
  return type !== undefined && COMPRESSIBLE.test(type);
}

/** A precompressed sibling po-node writes (`<document>.gz` / `.br`): its document and encoding, else undefined. */
export function siblingOf(rel: string): { doc: string; encoding: Encoding } | undefined {
  const m = /^(.+)\.(gz|br)$/.exec(rel);
  if (!m || isDocumentPath(rel) || !precompressible(m[1]!)) return undefined;
  return { doc: m[1]!, encoding: m[2] === 'gz' ? 'gzip' : 'br' };
}

export function isPrecompressedSibling(rel: string): boolean {
  return siblingOf(rel) !== undefined;
}

/**
 * The documents of a written site above `above` bytes that have siblings, as `{"/<path>": [".br", ".gz"]}` (brotli
 * first): what the CloudFront Function may select by Accept-Encoding (CloudFront compresses the smaller ones itself).
 */
export async function largeCompressedDocuments(
  out: string,
  files: readonly PlannedFile[],
  above: number,
): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const f of files) {
    if (!precompressible(f.path)) continue;
    const st = await stat(join(out, f.path)).catch(() => undefined);
    if (!st || st.size <= above) continue;
    const exts: string[] = [];
    for (const e of ['br', 'gzip'] as const) {
      if (await stat(join(out, f.path + ENCODING_EXT[e])).catch(() => undefined)) exts.push(ENCODING_EXT[e]);
    }
    if (exts.length) found[`/${f.path}`] = exts;
  }
  return found;
}

/** The encodings a client accepts (RFC 9110 §12.5.3: q=0 refuses; `*` stands for any other), best first. */
export function acceptedEncodings(header: string | undefined, offered: readonly Encoding[]): Encoding[] {
  if (!header) return [];
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q.set(name.trim(), qp === undefined ? 1 : Number(qp));
  }
  const weight = (e: Encoding) => q.get(e) ?? (e === 'gzip' ? q.get('x-gzip') : undefined) ?? q.get('*') ?? 0;
  // Equal weights: brotli first (smaller), as nginx and CloudFront prefer it.
  return offered.filter((e) => weight(e) > 0).sort((a, b) => weight(b) - weight(a) || (a === 'br' ? -1 : b === 'br' ? 1 : 0));
}

/**
 * Documents up to this size are read whole, once for both encodings, and compressed in one call each (the same bytes
 * as streamed: zlib and brotli output does not depend on how the input is cut); larger ones (the lists of a large
 * node) are streamed.
 */
const WHOLE_MAX = 8 << 20;

/**
 * The key of a sibling: its encoding, level and its document's content key (a list page's, which stands for its
 * bytes), else the document's SHA-256. A list page linked from the previous site then needs no read to find its
 * siblings there (at 10,000 EPDs, 85 MB of pages read and hashed in every incremental build).
 */
function siblingKey(e: Encoding, doc: { key?: string | undefined; digest?: string | undefined }): string {
  return `${e}-${e === 'gzip' ? GZIP_LEVEL : BROTLI_QUALITY}:${doc.key ?? `sha256:${doc.digest}`}`;
}

/** Compressions run at once: each holds its document in memory (lists of a large node are hundreds of MB). */
const EARLY_SLOTS = 2;

/**
 * Compresses each document as soon as the writer has written it, on the thread pool while the main thread goes on
 * writing (the EPD pages come after the lists), instead of all at the end. The writer hashes the document as it writes
 * it; a sibling the incremental-build cache can link from the previous site (same key) is not compressed.
 */
export class EarlyCompressor {
  private readonly seen = new Map<string, { digest: string; made: Map<Encoding, Promise<Uint8Array>> }>();
  private readonly slots: Promise<unknown>[] = Array.from({ length: EARLY_SLOTS }, () => Promise.resolve());
  /**
   * Each slot reads its documents into one buffer of its own, reused: its jobs run one after the other. A fresh buffer
   * per document cost a page fault per 4 kB read (the lists and their pages: about 130 MB at 10,000 EPDs).
   */
  private readonly buffers: (Buffer | undefined)[] = [];
  private next = 0;

  constructor(
    private readonly o: PrecompressConfig,
    private readonly reusable?: (path: string, key: string) => readonly unknown[],
  ) {}

  /** Should the writer hash this document and report it? */
  wants(path: string): boolean {
    return this.o.encodings.length > 0 && precompressible(path);
  }

  /** A document is written (`abs`, its size, SHA-256 and content key): its siblings are queued. */
  written(path: string, abs: string, size: number, digest: string, key?: string): void {
    const made = new Map<Encoding, Promise<Uint8Array>>();
    this.seen.set(path, { digest, made });
    const todo = this.o.encodings.filter((e) => !this.reusable?.(`${path}${ENCODING_EXT[e]}`, siblingKey(e, { key, digest })).length);
    if (size < this.o.minBytes || !todo.length) return;
    const i = this.next++ % EARLY_SLOTS;
    const job = this.slots[i]!.then(() => {
      const buf = (this.buffers[i] ??= Buffer.allocUnsafeSlow(WHOLE_MAX + 1));
      if (size <= WHOLE_MAX) {
        const bytes = readFileExact(abs, buf);
        return todo.map((e) => compressFile(abs, e, bytes));
      }
      // A larger one (the full lists: 9-19 MB each at 10,000 EPDs) is read once for both encodings, through the
      // same buffer.
      const all = compressChunks(abs, todo, buf);
      return todo.map((_e, k) => all.then((bs) => bs[k]!));
    });
    // The slot is free once its compressions are done; a failure is reported by the sibling's make.
    this.slots[i] = job.then((ps) => Promise.allSettled(ps)).catch(() => undefined);
    todo.forEach((e, k) => {
      const p = job.then((ps) => ps[k]!);
      p.catch(() => undefined);
      made.set(e, p);
    });
  }

  /** What the writer reported of a document: its SHA-256 and the compressions started. */
  of(path: string): { digest: string; made: ReadonlyMap<Encoding, Promise<Uint8Array>> } | undefined {
    return this.seen.get(path);
  }
}

/**
 * The siblings of the written files (`dir` is the site being written): one per encoding for each precompressible file
 * of at least minBytes. Each is keyed by its encoding, level and the SHA-256 of the file, so an incremental build links
 * an unchanged file's sibling from the previous site instead of compressing again. Documents the `early` compressor
 * saw written are not read again.
 */
export async function planPrecompressed(
  dir: string,
  files: readonly PlannedFile[],
  o: PrecompressConfig,
  early?: EarlyCompressor,
): Promise<PlannedFile[]> {
  if (!o.encodings.length) return [];
  const out: PlannedFile[][] = [];
  const todo = files.filter((f) => precompressible(f.path)).map((f, i) => ({ f, i }));
  await pool(todo, 8, async ({ f, i }) => {
    const abs = join(dir, f.path);
    const size = statSync(abs).size;
    if (size < o.minBytes) return;
    const whole = size <= WHOLE_MAX;
    const seen = early?.of(f.path);
    let digest = seen?.digest;
    // A document with a content key needs no hash: its siblings are keyed by it.
    if (!digest && !f.key) {
      const sha = createHash('sha256');
      if (whole) sha.update(readFileSync(abs));
      else await pipeline(createReadStream(abs), sha);
      digest = sha.digest('hex');
    }
    const bytes = whole ? readOnce(abs, o.encodings.length) : undefined;
    out[i] = o.encodings.map((e) => ({
      path: `${f.path}${ENCODING_EXT[e]}`,
      contentType: f.contentType,
      key: siblingKey(e, { key: f.key, digest }),
      source: { make: () => seen?.made.get(e) ?? compressFile(abs, e, bytes?.()) },
    }));
  });
  return out.flat().filter(Boolean);
}

/** The bytes of a file for its `users` encodings: read by the first that asks, let go once the last has them. */
function readOnce(abs: string, users: number): () => Buffer {
  let held: Buffer | undefined;
  return () => {
    const b = (held ??= readFileSync(abs));
    if (--users === 0) held = undefined;
    return b;
  };
}

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** The bytes of a file in one encoding, streamed (a list of 100,000 EPDs is hundreds of MB) unless given. Deterministic. */
/**
 * A sibling of a document written from `bytes`, made as a build makes it (from the bytes up to WHOLE_MAX, else read
 * back as a stream), so a no-op rebuild's siblings are those a clean build would write.
 */
export function compressWritten(abs: string, e: Encoding, bytes: Uint8Array): Promise<Uint8Array> {
  return compressFile(abs, e, bytes.length <= WHOLE_MAX ? bytes : undefined);
}

export async function compressFile(abs: string, e: Encoding, given?: Uint8Array): Promise<Uint8Array> {
  if (!given) return (await compressChunks(abs, [e], Buffer.allocUnsafe(WHOLE_MAX)))[0]!;
  return fixed(e, e === 'gzip' ? await gzip(given, GZIP_OPTIONS) : await brotli(given, brotliOptions(given.length)));
}

const GZIP_OPTIONS = { level: GZIP_LEVEL };
const brotliOptions = (size: number) => ({
  params: { [Z.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [Z.BROTLI_PARAM_MODE]: Z.BROTLI_MODE_TEXT, [Z.BROTLI_PARAM_SIZE_HINT]: size },
});

/** zlib writes no name and mtime 0; the OS byte is where the zlib build differs (3 Unix, 10 Windows): fixed to Unix. */
function fixed(e: Encoding, bytes: Buffer): Buffer {
  if (e === 'gzip') bytes[9] = 3;
  return bytes;
}

/**
 * A file in several encodings, streamed: read in chunks of `buf`'s size into `buf` (reused: a fresh buffer per chunk
 * cost a page fault per 4 kB on this machine), each chunk given to every compressor and the next read once all have
 * consumed it. Chunks of WHOLE_MAX in, 1 MB out: each is a round trip through the main thread, which is busy writing
 * pages meanwhile; in 64 kB chunks a list of 10,000 EPDs (19 MB) took 300 of them, and a 1% rebuild waited 0.5 s.
 */
async function compressChunks(abs: string, es: readonly Encoding[], buf: Buffer): Promise<Buffer[]> {
  const size = statSync(abs).size;
  const streams = es.map((e) => {
    const z =
      e === 'gzip'
        ? zlib.createGzip({ ...GZIP_OPTIONS, chunkSize: 1 << 20 })
        : zlib.createBrotliCompress({ ...brotliOptions(size), chunkSize: 1 << 20 });
    const chunks: Buffer[] = [];
    z.on('data', (c: Buffer) => chunks.push(c));
    const ended = once(z, 'end');
    // A compressor's error rejects this too: awaited only when every write went through, so never left unhandled.
    ended.catch(() => undefined);
    return { z, chunks, ended };
  });
  try {
    const fd = openSync(abs, 'r');
    try {
      for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
        const chunk = buf.subarray(0, n);
        await Promise.all(streams.map(({ z }) => new Promise<void>((ok, ko) => z.write(chunk, (err) => (err ? ko(err) : ok())))));
      }
    } finally {
      closeSync(fd);
    }
    for (const { z } of streams) z.end();
    await Promise.all(streams.map((s) => s.ended));
  } catch (e) {
    for (const { z } of streams) z.destroy();
    throw e;
  }
  return streams.map((s, k) => fixed(es[k]!, Buffer.concat(s.chunks)));
}
