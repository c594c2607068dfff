import { relative } from 'node:path';
import { buildCatalog, type Catalog } from './catalog/build.js';
import { Interner } from './catalog/intern.js';
import { checkReferences, type ReferenceReport } from './catalog/references.js';
import { loadConfig, type ConfigOverrides, type ResolvedConfig } from './config/load.js';
import { BuildCache, cacheFile, cacheKey } from './emit/cache.js';
import { healthFiles, verifyAndDescribe, type HealthDoc } from './emit/health.js';
import { planSite } from './emit/plan.js';
import { checkOutputFolder, writeSite } from './emit/write.js';
import { emitHosts } from './hosts/index.js';
import { countFindings, sortFindings, type Finding } from './findings.js';
import { discoverInputs, toPosix } from './read/inputs.js';
import { expandZips } from './read/zip.js';
import { append } from './append.js';

export interface BuildOptions extends ConfigOverrides {
  /** Replace an output folder po-node did not create, and ignore the incremental-build cache (full rebuild). */
  clean?: boolean;
  /** Do not write the site when any dataset was rejected (errors). */
  strict?: boolean;
  /** Override the build time (else SOURCE_DATE_EPOCH, else now). */
  now?: Date;
  /** Folder of the incremental-build cache (default: PO_NODE_CACHE_DIR, else $XDG_CACHE_HOME/po-node or ~/.cache/po-node). */
  cacheDir?: string;
  /** Worker threads for reading and validating (default: the cores available, PO_NODE_THREADS; 1 = none). */
  threads?: number;
  /** Documents per XSD batch and per worker chunk (default 200). */
  xsdBatchSize?: number;
  /** Called as phases progress, for progress bars and CI log lines. */
  onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
  | { phase: 'discover'; files: number }
  | { phase: 'read'; done: number; total: number }
  | { phase: 'write'; files: number }
  | { phase: 'verify' };

export interface BuildSummary {
  files: number;
  datasets: number;
  epds: number;
  rejected: number;
  skipped: number;
  superseded: number;
  errors: number;
  warnings: number;
}

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
}

/** Build time for reproducible output: SOURCE_DATE_EPOCH (seconds) when set, else now. */
export function buildTime(env: NodeJS.ProcessEnv = process.env): Date {
  const sde = env.SOURCE_DATE_EPOCH;
  if (sde !== undefined && /^\d+$/.test(sde.trim())) return new Date(Number(sde.trim()) * 1000);
  return new Date();
}

/** read → parse/check → index → plan → write → verify/health. Never throws for bad datasets. */
export async function build(opts: BuildOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const cwd = opts.cwd ?? process.cwd();
  const cfg = loadConfig(opts);
  const builtAt = opts.now ?? buildTime();
  // Fail on an unsafe --out before spending time on reading.
  checkOutputFolder({ out: cfg.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false });
  if (cfg.hosts?.length) checkOutputFolder({ out: cfg.deploy.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false });

  const found = await discoverInputs(cfg.inputs, cwd);
  const unzipped = await expandZips(found.files, cfg.limits.zip);
  const discovery = { files: unzipped.files, findings: [...found.findings, ...unzipped.findings] };
  opts.onProgress?.({ phase: 'discover', files: discovery.files.length });
  const configFindings: Finding[] = [];
  if (!cfg.baseUrl) {
    configFindings.push({
      ruleId: 'config-base-url',
      severity: 'warning',
      message: 'No base URL set: links in the lists and nodeinfo are root-relative (/resource/...). Set --base-url or "baseUrl" to the public URL before registering the node with ECO Platform.',
    });
  }
  // Incremental builds: unchanged inputs and outputs are reused (src/emit/cache.ts, docs/performance.md).
  const interner = new Interner();
  const cache = await new BuildCache(cfg.out, cacheKey(cfg, builtAt, cwd), opts.clean ?? false, opts.cacheDir ? cacheFile(cfg.out, opts.cacheDir) : undefined).load(interner);
  const catalog = await buildCatalog(discovery.files, [...configFindings, ...discovery.findings], {
    cache,
    interner,
    maxFileSize: cfg.limits.maxFileSize,
    shape: cfg.limits.shape,
    xsdTimeoutSeconds: cfg.limits.xsdTimeoutSeconds,
    validation: cfg.validation,
    now: builtAt,
    ...(opts.threads ? { threads: opts.threads } : {}),
    ...(opts.xsdBatchSize ? { xsdBatchSize: opts.xsdBatchSize } : {}),
    onProgress: (done, total) => opts.onProgress?.({ phase: 'read', done, total }),
  });
  const refs = checkReferences(catalog, { require: cfg.requireDependencies, closures: cfg.zipExport });
  append(catalog.findings, refs.findings);
  const references = refs.report;
  const findings = sortFindings(catalog.findings);
  const counts = countFindings(findings);
  const summary: BuildSummary = {
    files: catalog.stats.filesSeen,
    datasets: Object.values(catalog.byType).reduce((s, l) => s + l.length, 0),
    epds: catalog.epds.length,
    rejected: catalog.stats.rejectedFiles,
    skipped: catalog.stats.skippedFiles,
    superseded: catalog.stats.supersededDatasets,
    errors: counts.error,
    warnings: counts.warning,
  };
  const base = {
    out: cfg.out,
    outDisplay: toPosix(relative(cwd, cfg.out)) || '.',
    builtAt: builtAt.toISOString(),
    summary,
    findings,
    config: cfg,
    catalog,
    references,
  };
  if (opts.strict && counts.error > 0) {
    return { ...base, ok: false, written: false, status: 'not-written', durationMs: performance.now() - started };
  }

  const files = planSite({ catalog, cfg, builtAt, references });
  opts.onProgress?.({ phase: 'write', files: files.length });
  let health: HealthDoc | undefined;
  await writeSite(files, { out: cfg.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false, cache, ...(process.env.SOURCE_DATE_EPOCH ? { mtime: builtAt } : {}) }, async (dir) => {
    opts.onProgress?.({ phase: 'verify' });
    health = await verifyAndDescribe(dir, catalog, cfg, builtAt, findings, references);
    return healthFiles(health, cfg);
  });
  await cache.save();
  // Host configs outside the tree (nginx, Apache vhost, S3 script): their own folder, swapped in the same way.
  const deploy = emitHosts(cfg.hosts ?? [], { cfg, site: files }).deploy;
  if (deploy.length) await writeSite(deploy, { out: cfg.deploy.out, inputs: cfg.inputs, cwd, allowReplace: opts.clean ?? false }, async () => []);
  const deployDisplay = deploy.length ? toPosix(relative(cwd, cfg.deploy.out)) || '.' : undefined;
  return { ...base, ...(deployDisplay ? { deployDisplay } : {}), ok: health!.status !== 'fail', written: true, status: health!.status, health: health!, durationMs: performance.now() - started };
}
