import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Catalog } from './catalog/build.js';
import type { ReferenceReport } from './catalog/references.js';
import type { ResolvedConfig } from './config/load.js';
import { BuildCache, cacheFile, cacheKey, defaultCacheDir, type CacheStats } from './cache/build-cache.js';
import { healthFiles, verifyAndDescribe, type HealthDoc } from './emit/health.js';
import { assertUniquePaths } from './emit/files.js';
import { planSite } from './emit/plan.js';
import { isPrecompressedSibling, planPrecompressed } from './emit/precompress.js';
import { checkOutputFolder, pool, writeSite, type WriteOptions } from './emit/write.js';
import { emitHosts } from './hosts/index.js';
import { HOST_LIMITS, hostLimitFindings, measureSite } from './hosts/limits.js';
import { append } from './util/append.js';
import type { Finding } from './findings.js';
import { buildTime, readStage, type ProgressEvent, type ReadStageOptions, type ReadSummary } from './pipeline/read.js';
import { toPosix } from './util/paths.js';
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
  catalog: Catalog;
  /** Folder the host configs outside the site went to (only when there were any). */
  deployDisplay?: string;
  /** Dependencies of the published EPDs: resolved and missing references (src/catalog/references.ts). */
  references: ReferenceReport;
  /** What the incremental-build cache saved: inputs not read again, outputs linked instead of written. */
  cache: CacheStats;
  /** The pre-paged lists written (files of both formats) and the bytes they add to the site. */
  paging?: { pageSizes: number[]; files: number; bytes: number };
  /** The precompressed siblings written (`.gz`, `.br`) and the bytes they add to the site. */
  precompressed?: { encodings: string[]; files: number; bytes: number };
}

/** read → parse/validate → index (src/pipeline/read.ts) → plan → write → verify/health. Never throws for bad datasets. */
export async function build(opts: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const cwd = opts.cwd ?? process.cwd();
  let cache!: BuildCache;
  let deployTo!: WriteOptions;
  const {
    cfg,
    now: builtAt,
    catalog,
    references,
    findings,
    summary,
  } = await readStage(opts, {
    // Fail on an unsafe --out before spending time on reading.
    configured: (cfg) => {
      checkOutputFolder({ out: cfg.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false });
      deployTo = { out: cfg.deploy.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false, what: 'the host configuration' };
      if (cfg.hosts?.length) checkOutputFolder(deployTo);
    },
    // Incremental builds: unchanged inputs and outputs are reused (src/cache/build-cache.ts, docs/performance.md).
    openCache: async (cfg, interner, builtAt) => {
      const file = cacheFile(cfg, cfg.cacheDir ?? defaultCacheDir());
      cache = await new BuildCache(cfg.out, cfg.baseDir, cacheKey(cfg, builtAt, cwd), opts.clean ?? false, file).load(interner);
      return cache;
    },
  });
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
  };
  if (opts.strict && summary.errors > 0) {
    return { ...base, ok: false, written: false, status: 'not-written', durationMs: performance.now() - started };
  }

  const files = planSite({ catalog, cfg, builtAt, references });
  // Each host emits once: files in the published tree (.htaccess, _redirects, .nojekyll) and configs outside it.
  const hosts = emitHosts(cfg.hosts ?? [], { cfg, site: files });
  append(files, hosts.site);
  assertUniquePaths(files);
  opts.onProgress?.({ phase: 'write', files: files.length });
  let health: HealthDoc | undefined;
  let siblings: readonly string[] = [];
  await writeSite(
    files,
    {
      out: cfg.out,
      inputs: cfg.inputs,
      cwd,
      allowReplace: opts.clean ?? false,
      cache,
      ...(process.env.SOURCE_DATE_EPOCH ? { mtime: builtAt } : {}),
    },
    async (dir) => {
      // Siblings of the written documents (health, written after them, has none): docs/hosting.md#precompressed-documents.
      const packed = await planPrecompressed(dir, files, cfg.precompress);
      siblings = packed.map((f) => f.path);
      opts.onProgress?.({ phase: 'verify' });
      health = await verifyAndDescribe(dir, catalog, cfg, builtAt, findings, references);
      return [...packed, ...healthFiles(health, cfg)];
    },
  );
  await cache.save();
  // Hosts that refuse a site above their limits (GitHub Pages 1 GB, ...): warn now, not at the deployment.
  const limited = (cfg.hosts ?? []).filter((h) => HOST_LIMITS[h]);
  if (limited.length) {
    const over = hostLimitFindings(measureSite(cfg.out), limited);
    append(findings, over);
    summary.warnings += over.length;
  }
  // Host configs outside the tree (nginx, Apache vhost, S3 script): their own folder, swapped in the same way.
  const deploy = hosts.deploy;
  if (deploy.length) await writeSite(deploy, deployTo, () => Promise.resolve([]));
  const deployDisplay = deploy.length ? toPosix(relative(cwd, cfg.deploy.out)) || '.' : undefined;
  const pages = join(cfg.out, PAGES_DIR);
  // The page files alone: their siblings are counted with the others.
  const paged = existsSync(pages) ? measureSite(pages, (rel) => !isPrecompressedSibling(`${PAGES_DIR}/${rel}`)) : undefined;
  const packed = siblings.length ? await sizeOf(cfg.out, siblings) : undefined;
  return {
    ...base,
    ...(paged ? { paging: { pageSizes: cfg.paging.pageSizes, files: paged.files, bytes: paged.bytes } } : {}),
    ...(packed ? { precompressed: { encodings: [...cfg.precompress.encodings], files: siblings.length, bytes: packed } } : {}),
    ...(deployDisplay ? { deployDisplay } : {}),
    ok: health!.status !== 'fail',
    written: true,
    status: health!.status,
    health: health!,
    durationMs: performance.now() - started,
  };
}

/**
 * Bytes of the files at these paths below dir, as far as they are there: a concurrent build of the same output may
 * have swapped its own site in meanwhile (the last one wins), and the summary must not fail for that.
 */
async function sizeOf(dir: string, paths: readonly string[]): Promise<number> {
  let bytes = 0;
  await pool(paths, 16, async (p) => {
    const st = await stat(join(dir, p)).catch(() => undefined);
    bytes += st?.size ?? 0;
  });
  return bytes;
}
