import { chmodSync, existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Catalog } from './catalog/build.js';
import type { ReferenceReport } from './catalog/references.js';
import type { ResolvedConfig } from './config/load.js';
import { BuildCache, cacheFile, cacheKey, defaultCacheDir, type CacheStats } from './cache/build-cache.js';
import { startHashAhead } from './cache/hash-ahead.js';
import { defaultThreads } from './catalog/pool.js';
import {
  BuildManifest,
  describeTree,
  type FolderListing,
  statInputs,
  type StampedFile,
  type LoadedResult,
  type TreeEntry,
  type TreeRecord,
} from './cache/manifest.js';
import { healthFiles, verifyAndDescribe, type HealthDoc } from './emit/health.js';
import { assertUniquePaths } from './emit/files.js';
import { planSite } from './emit/plan.js';
import {
  compressWritten,
  EarlyCompressor,
  ENCODING_EXT,
  isPrecompressedSibling,
  planPrecompressed,
  precompressible,
} from './emit/precompress.js';
import { checkOutputFolder, SITE_MODES, writeSite, type WriteOptions } from './emit/write.js';
import { removeStaleTemps, tempPrefix } from './emit/output-dir.js';
import type { PlannedFile } from './emit/files.js';
import { emitHosts } from './hosts/index.js';
import { HOST_LIMITS, hostLimitFindings, measureSite, type SiteMeasure } from './hosts/limits.js';
import { append } from './util/append.js';
import type { Finding } from './findings.js';
import {
  buildTime,
  prepareRead,
  readStage,
  startReadAhead,
  warmReadWorker,
  type Prepared,
  type ProgressEvent,
  type ReadStageOptions,
  type ReadSummary,
} from './pipeline/read.js';
import { toPosix } from './util/paths.js';
import { startSpawner } from './util/spawner.js';
import { PAGES_DIR } from './site/routes.js';

export interface BuildOptions extends ReadStageOptions {
  /** Replace an output folder po-node did not create, and ignore the incremental-build cache (full rebuild). */
  clean?: boolean;
  /** Do not write the site when any dataset was rejected (errors). */
  strict?: boolean;
}

export type { ProgressEvent };
/** The counts of a build's read stage. */
export type BuildSummary = ReadSummary;
export { buildTime };

export interface BuildResult {
  /** False when --strict refused to write or nothing could be published. */
  ok: boolean;
  written: boolean;
  out: string;
  /** Output folder relative to the working directory, for messages. */
  outDisplay: string;
  builtAt: string;
  durationMs: number;
  summary: BuildSummary;
  status: HealthDoc['status'] | 'not-written';
  findings: Finding[];
  health?: HealthDoc;
  config: ResolvedConfig;
  /**
   * True when the build manifest showed that nothing changed since the last build of this output folder (inputs,
   * configuration, po-node, the written site): the site was kept, only the files that carry the build time were
   * rewritten, and the result is the last build's (docs/performance.md, "No-op rebuilds").
   */
  upToDate: boolean;
  /** The catalog and the reference report: absent when `upToDate` (nothing was read; counts are in `health`). */
  catalog?: Catalog;
  /** Folder the host configs outside the site went to (only when there were any). */
  deployDisplay?: string;
  /** Dependencies of the published EPDs: resolved and missing references (src/catalog/references.ts). */
  references?: ReferenceReport;
  /**
   * Settles (never rejects) once the work left after the result is done, off the critical path: the trees this build
   * replaced deleted, the incremental-build cache and the build manifest saved. Await it before looking at the output
   * folder's parent or exiting (a build of the same output in this process waits for it by itself).
   */
  settled: Promise<void>;
  /** What the incremental-build cache saved: inputs not read again, outputs linked instead of written. */
  cache: CacheStats;
  /** The pre-paged lists written (files of both formats) and the bytes they add to the site. */
  paging?: { pageSizes: number[]; files: number; bytes: number };
  /** The precompressed siblings written (`.gz`, `.br`) and the bytes they add to the site. */
  precompressed?: { encodings: string[]; files: number; bytes: number };
}

/** Saves of the cache and manifest still running, by cache file: a build of the same output waits for them. */
const pending = new Map<string, Promise<void>>();
/** Above this many changed inputs no read ahead: the read itself starts workers on every core (src/catalog/pool.ts). */
const READ_AHEAD_MAX = 400;

/** Run `fn` after the current result is returned; never rejects (a failed save costs only the next build's time). */
function after(file: string, fn: () => void): Promise<void> {
  const p = new Promise<void>((ok) => setImmediate(ok))
    .then(fn)
    .catch(() => undefined)
    .finally(() => {
      if (pending.get(file) === p) pending.delete(file);
    });
  pending.set(file, p);
  return p;
}

type Stored = LoadedResult<BuildSummary, HealthDoc, BuildResult['paging']>;

/** read → parse/validate → index (src/pipeline/read.ts) → plan → write → verify/health. Never throws for bad datasets. */
export async function build(opts: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const cwd = opts.cwd ?? process.cwd();
  let cache!: BuildCache;
  let deployTo!: WriteOptions;
  // The incremental-build cache of this output and the build manifest beside it, known with the configuration.
  let cacheAt!: string;
  let manifest!: BuildManifest;
  // A worker for the read ahead of an incremental build, started while the inputs are discovered; terminated where
  // it is not used (nothing changed, too much changed, a failure).
  let warm: Worker | undefined;
  const unwarm = () => {
    void warm?.terminate();
    warm = undefined;
  };
  let prepared: Prepared;
  try {
    prepared = await prepareRead(opts, {
      // Fail on an unsafe --out before spending time on reading.
      configured: (cfg) => {
        checkOutputFolder({ out: cfg.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false });
        deployTo = { out: cfg.deploy.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false, what: 'the host configuration' };
        if (cfg.hosts?.length) checkOutputFolder(deployTo);
        cacheAt = cacheFile(cfg, cfg.cacheDir ?? defaultCacheDir());
        manifest = new BuildManifest(cacheAt);
        if (!opts.clean && existsSync(manifest.manifestFile)) warm = warmReadWorker(opts);
      },
    });
  } catch (e) {
    unwarm();
    throw e;
  }
  const { cfg: cfg0, now: now0, found } = prepared;
  // Everything that shapes the output: a build with another key never takes the no-op shortcut.
  const sde = process.env.SOURCE_DATE_EPOCH;
  const key = BuildManifest.key(cacheKey(cfg0, now0, cwd), { sde: sde ?? null, out: cfg0.out, deployOut: cfg0.deploy.out });
  await pending.get(cacheAt);
  if (!opts.clean) {
    const stored = manifest.upToDate<BuildSummary, HealthDoc, BuildResult['paging']>(key, found.files, found.findings, found.statAt);
    if (stored) {
      unwarm();
      return keep(stored, opts, prepared, cwd, started);
    }
  }
  // Before the heap grows (not for a no-op, which starts nothing): xmllint and rm are started by a small helper
  // process (src/util/spawner.ts).
  startSpawner();
  // Before any input is read: a change during the build shows as a changed stat next time.
  const inputStats = statInputs(found.files, found.statAt);
  // The inputs changed since the last build (by the manifest's stats) are read in worker threads while the cache loads
  // on this one (docs/performance.md, "Read ahead"); not with --clean, which reads everything with all cores.
  const changed = opts.clean ? undefined : manifest.changedInputs(key, found.files, inputStats.inputs, READ_AHEAD_MAX);
  // A build's readers also make each EPD page's LCIA table (Catalog.spool, closed once the pages are written).
  const readOpts = { ...opts, pageTables: true };
  const ahead = changed && startReadAhead(prepared, changed, readOpts, warm);
  // Taken by the read ahead (which ends it), or not needed.
  if (!ahead) unwarm();
  warm = undefined;
  // No usable record of this site (a CI runner's fresh checkout, or much changed) but a cache: the inputs are hashed in
  // a worker while the cache loads, as the cache knows an unchanged input on another machine only by its sha256.
  const hashAhead =
    !opts.clean && !changed && (opts.threads ?? defaultThreads()) > 1 && existsSync(cacheAt) ? startHashAhead(found.files) : undefined;
  const {
    cfg,
    now: builtAt,
    catalog,
    references,
    findings,
    summary,
  } = await readStage(
    readOpts,
    {
      // Incremental builds: unchanged inputs and outputs are reused (src/cache/build-cache.ts, docs/performance.md).
      ...(ahead ? { ahead } : {}),
      openCache: (cfg, interner, builtAt) => {
        cache = new BuildCache(cfg.out, cfg.baseDir, cacheKey(cfg, builtAt, cwd), opts.clean ?? false, cacheAt).load(interner, manifest);
        cache.hashAhead = hashAhead;
        return cache;
      },
    },
    prepared,
  );
  hashAhead?.stop();
  try {
    const base = {
      out: cfg.out,
      outDisplay: toPosix(relative(cwd, cfg.out)) || '.',
      builtAt: builtAt.toISOString(),
      summary,
      findings,
      config: cfg,
      catalog,
      references,
      cache: cache.stats,
      upToDate: false,
      settled: Promise.resolve(),
    };
    if (opts.strict && summary.errors > 0) {
      return { ...base, ok: false, written: false, status: 'not-written', durationMs: performance.now() - started };
    }

    const files = planSite({ catalog, cfg, builtAt, references, lists: cache });
    // Each host emits once: files in the published tree (.htaccess, _redirects, .nojekyll) and configs outside it.
    const hosts = emitHosts(cfg.hosts ?? [], { cfg, site: files });
    append(files, hosts.site);
    assertUniquePaths(files);
    opts.onProgress?.({ phase: 'write', files: files.length });
    let health: HealthDoc | undefined;
    let late: readonly PlannedFile[] = [];
    let siblings: readonly string[] = [];
    const trees: TreeRecord[] = [];
    // Hosts that refuse a site above their limits (GitHub Pages 1 GB, ...): warned of now, not at the deployment.
    const limited = (cfg.hosts ?? []).filter((h) => HOST_LIMITS[h]);
    let written!: Written;
    // The written trees as the manifest records them, just before each is swapped in.
    const record =
      (root: string, known?: (path: string) => TreeEntry | undefined) =>
      (dir: string, expected?: ReadonlySet<string>, listed?: FolderListing): TreeRecord => {
        const tree = { ...describeTree(dir, known, expected, listed), root: resolve(root) };
        trees.push(tree);
        return tree;
      };
    const early = new EarlyCompressor(cfg.precompress, (path, key) => cache.reusable(path, key));
    const { removed } = await writeSite(
      files,
      {
        early,
        out: cfg.out,
        inputs: cfg.inputs,
        cwd,
        allowReplace: opts.clean ?? false,
        cache,
        ...(process.env.SOURCE_DATE_EPOCH ? { mtime: builtAt } : {}),
        // Measured in the finished folder, before the swap: a concurrent build of the same output may replace the
        // site right after, and the summary reports what this build wrote.
        describe: (dir, expected, listed) => {
          const tree = record(cfg.out, (p) => cache.linkedEntry(p))(dir, expected, listed);
          written = measureWritten(dir, siblings, limited.length > 0);
          return tree;
        },
        // The site the last build replaced, kept beside this one as hard links (docs/performance.md, "The spare tree"):
        // not with SOURCE_DATE_EPOCH, whose file times would be set on inodes the live site shares.
        ...(process.env.SOURCE_DATE_EPOCH ? {} : { spare: opts.clean ? ('renew' as const) : ('reuse' as const) }),
        ...(opts.threads ? { threads: opts.threads } : {}),
      },
      async (dir, known, digests) => {
        // Siblings of the written documents (health, written after them, has none): docs/hosting.md#precompressed-documents.
        const packed = await planPrecompressed(dir, files, cfg.precompress, early);
        siblings = packed.map((f) => f.path);
        opts.onProgress?.({ phase: 'verify' });
        health = await verifyAndDescribe(dir, catalog, cfg, builtAt, findings, references, known, digests);
        late = healthFiles(health, cfg);
        return [...packed, ...late];
      },
    );
    if (written.site) {
      const over = hostLimitFindings(written.site, limited);
      append(findings, over);
      summary.warnings += over.length;
    }
    // Host configs outside the tree (nginx, Apache vhost, S3 script): their own folder, swapped in the same way.
    const deploy = hosts.deploy;
    const deployed = deploy.length
      ? await writeSite(deploy, { ...deployTo, describe: record(cfg.deploy.out) }, () => Promise.resolve([]))
      : undefined;
    const deployDisplay = deploy.length ? toPosix(relative(cwd, cfg.deploy.out)) || '.' : undefined;
    const { paged, packed } = written;
    const paging = paged ? { pageSizes: cfg.paging.pageSizes, files: paged.files, bytes: paged.bytes } : undefined;
    const stored = {
      summary,
      findings,
      health: health!,
      ...(paging ? { paging } : {}),
      ...(deployDisplay ? { deployDisplay } : {}),
      xmlInputs: found.files.filter((f) => f.kind === 'xml').length,
      stamped: stampedFiles([[...files, ...late], deploy], base.builtAt),
    };
    // Saved after the result is returned (they only speed up the next build); the next build of this output in this
    // process waits for them, the CLI before it exits.
    const saved = after(cacheAt, () => {
      cache.save();
      manifest.save<BuildSummary, HealthDoc, BuildResult['paging']>(key, base.builtAt, inputStats, found.findings, trees, stored);
    });
    return {
      ...base,
      ...(paging ? { paging } : {}),
      ...(packed ? { precompressed: { encodings: [...cfg.precompress.encodings], files: siblings.length, bytes: packed } } : {}),
      ...(deployDisplay ? { deployDisplay } : {}),
      ok: health!.status !== 'fail',
      written: true,
      status: health!.status,
      health: health!,
      settled: Promise.all([removed, deployed?.removed, saved]).then(() => undefined),
      durationMs: performance.now() - started,
    };
  } finally {
    catalog.spool?.close();
  }
}

/** Generated text files that carry the build time (index.html, health), split at it; per tree (site, host configs). */
function stampedFiles(trees: (readonly PlannedFile[])[], builtAt: string): StampedFile[] {
  const out: StampedFile[] = [];
  trees.forEach((files, tree) => {
    for (const f of files) {
      if ('text' in f.source && f.source.text.includes(builtAt)) out.push({ tree, path: f.path, parts: f.source.text.split(builtAt) });
    }
  });
  return out;
}

/**
 * Nothing changed since the last build: keep the site and report that build's result. Only the files that carry the
 * build time are written again (health, so its builtAt says when the node was last built; index.html), each
 * atomically by a rename; nothing at all when the build time is the same (SOURCE_DATE_EPOCH).
 */
async function keep(
  stored: Stored,
  opts: BuildOptions,
  { cfg, now }: Awaited<ReturnType<typeof prepareRead>>,
  cwd: string,
  started: number,
): Promise<BuildResult> {
  const builtAt = now.toISOString();
  const cache: CacheStats = { byStat: stored.xmlInputs, byContent: 0, read: 0, fromSite: 0, fromBlobs: 0 };
  const base = {
    out: cfg.out,
    outDisplay: toPosix(relative(cwd, cfg.out)) || '.',
    builtAt,
    summary: stored.summary,
    findings: stored.findings,
    config: cfg,
    cache,
    upToDate: true,
    // Leftovers of killed builds go as in any build, after the result.
    settled: removeStaleTemps(resolve(cfg.out)).catch(() => undefined),
  };
  if (opts.strict && stored.summary.errors > 0) {
    return { ...base, ok: false, written: false, status: 'not-written', durationMs: performance.now() - started };
  }
  const health = { ...stored.health, builtAt };
  const rewrite = builtAt === stored.health.builtAt ? [] : stored.stamped;
  if (rewrite.length) {
    const roots = [resolve(cfg.out), resolve(cfg.deploy.out)];
    // Made beside the site (a temporary folder the stale cleanup knows), then renamed in.
    const tmp = await mkdtemp(tempPrefix(roots[0]!));
    let made = 0;
    const put = (to: string, bytes: string | Uint8Array) => {
      const file = join(tmp, String(made++));
      writeFileSync(file, bytes);
      chmodSync(file, SITE_MODES.file);
      renameSync(file, to);
    };
    try {
      const stamp = Buffer.from(builtAt);
      const texts = rewrite.map((f) => Buffer.concat(f.parts.flatMap((p, k) => (k ? [stamp, p] : [p]))));
      rewrite.forEach((f, i) => put(join(roots[f.tree]!, f.path), texts[i]!));
      // Their precompressed siblings carry the build time too (index.html, the catalogue index: 7.5 MB at 10,000 EPDs):
      // made again, all at once in the thread pool, from the bytes just written.
      const siblings = rewrite.flatMap((f, i) => {
        const doc = join(roots[0]!, f.path);
        if (f.tree !== 0 || !precompressible(f.path)) return [];
        return cfg.precompress.encodings.filter((e) => existsSync(doc + ENCODING_EXT[e])).map((e) => ({ doc, e, bytes: texts[i]! }));
      });
      const packed = await Promise.all(siblings.map(({ doc, e, bytes }) => compressWritten(doc, e, bytes)));
      siblings.forEach(({ doc, e }, k) => put(doc + ENCODING_EXT[e], packed[k]!));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return { ...base, ok: health.status !== 'fail', written: true, status: health.status, health, durationMs: performance.now() - started };
}

/** What the summary reports of a written site: its page files, its precompressed siblings, the whole (host limits). */
interface Written {
  paged?: SiteMeasure;
  packed?: number;
  site?: SiteMeasure;
}

function measureWritten(dir: string, siblings: readonly string[], whole: boolean): Written {
  const pages = join(dir, PAGES_DIR);
  return {
    // The page files alone: their siblings are counted with the others.
    ...(existsSync(pages) ? { paged: measureSite(pages, (rel) => !isPrecompressedSibling(`${PAGES_DIR}/${rel}`)) } : {}),
    ...(siblings.length ? { packed: siblings.reduce((n, p) => n + statSync(join(dir, p)).size, 0) } : {}),
    ...(whole ? { site: measureSite(dir) } : {}),
  };
}
