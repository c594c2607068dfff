import { buildCatalog, readAhead, type Catalog, type CatalogOptions, type OutcomeCache, type ReadAhead } from '../catalog/build.js';
import { Interner } from '../catalog/intern.js';
import { defaultThreads, startReadWorker } from '../catalog/pool.js';
import { checkReferences, type ReferenceReport } from '../catalog/references.js';
import { loadConfig, type ConfigOverrides, type ResolvedConfig } from '../config/load.js';
import { countFindings, sortFindings, type Finding } from '../findings.js';
import { finding } from '../messages/finding.js';
import { discoverInputs, isPlainXml, type Discovery, type InputFile } from '../read/inputs.js';
import { expandZips } from '../read/zip.js';
import { xsdEngine } from '../validate/xsd.js';
import { append } from '../util/append.js';
import type { Worker } from 'node:worker_threads';

/**
 * The read stage every command that looks at inputs shares (`build`, `validate`):
 * inputs (folders, files, ZIPs) → datasets (read, parsed, validated) → catalog (newest version per UUID) →
 * references. `build` continues with plan → write → verify (src/build.ts); `validate` stops here, so the
 * two report the same findings by construction.
 */
export interface ReadStageOptions extends ConfigOverrides {
  /** Reference time for date rules (valid-until); else SOURCE_DATE_EPOCH, else now. */
  now?: Date;
  /** Worker threads for reading and validating (default: the cores available, PO_NODE_THREADS; 1 = none). */
  threads?: number;
  /** Documents per XSD batch and per worker chunk (default 200). */
  xsdBatchSize?: number;
  /** Called as phases progress, for progress bars and CI log lines. */
  onProgress?: (event: ProgressEvent) => void;
  /** Builds: the readers also make each EPD's LCIA table for its page (Catalog.spool; the caller closes it). */
  pageTables?: boolean;
}

export interface ReadStageHooks {
  /** Runs once the configuration is known, before any input is read (build refuses an unsafe --out here). */
  configured?: (cfg: ResolvedConfig) => void;
  /** Incremental builds: outcomes of unchanged inputs come from, and new ones go to, this cache. None: read everything. */
  openCache?: (cfg: ResolvedConfig, interner: Interner, now: Date) => OutcomeCache;
  /** Inputs already being read (startReadAhead): their outcomes are taken where the cache has none. */
  ahead?: ReadAhead;
}

export type ProgressEvent =
  | { phase: 'discover'; files: number }
  /**
   * `cached`: of `done`, the inputs whose outcome came from the incremental-build cache (not read). `xsd`, on the last
   * event: which xmllint validated the inputs read against the schemas (absent: none read, or XSD off).
   */
  | { phase: 'read'; done: number; total: number; cached: number; xsd?: 'native' | 'wasm' }
  | { phase: 'write'; files: number }
  | { phase: 'verify' };

export interface ReadSummary {
  files: number;
  datasets: number;
  epds: number;
  rejected: number;
  skipped: number;
  superseded: number;
  errors: number;
  warnings: number;
}

export interface ReadStageResult {
  cfg: ResolvedConfig;
  /** The reference time the date rules used; a build writes it as its build time. */
  now: Date;
  /** Every input file, ZIP entries expanded. */
  discovery: { files: InputFile[]; findings: Finding[] };
  catalog: Catalog;
  /** Dependencies of the published EPDs: resolved and missing references (src/catalog/references.ts). */
  references: ReferenceReport;
  /** Every finding of the stage (configuration, discovery, datasets, references), sorted. */
  findings: Finding[];
  summary: ReadSummary;
}

/** Build time for reproducible output: SOURCE_DATE_EPOCH (seconds) when set, else now. */
export function buildTime(env: NodeJS.ProcessEnv = process.env): Date {
  const sde = env.SOURCE_DATE_EPOCH;
  if (sde !== undefined && /^\d+$/.test(sde.trim())) return new Date(Number(sde.trim()) * 1000);
  return new Date();
}

/** The configuration and the input files found, before anything is read (a build may stop here: nothing changed). */
export interface Prepared {
  cfg: ResolvedConfig;
  now: Date;
  /** Inputs as found (ZIP archives not yet opened). */
  found: Discovery;
}

/** Load the configuration and find the inputs. */
export async function prepareRead(opts: ReadStageOptions = {}, hooks: Pick<ReadStageHooks, 'configured'> = {}): Promise<Prepared> {
  const cfg = loadConfig(opts);
  const now = opts.now ?? buildTime();
  hooks.configured?.(cfg);
  return { cfg, now, found: await discoverInputs(cfg.inputs, opts.cwd ?? process.cwd()) };
}

/** How the inputs are read and checked, by the configuration. */
function catalogOptions(cfg: ResolvedConfig, now: Date, opts: ReadStageOptions): CatalogOptions {
  return {
    maxFileSize: cfg.limits.maxFileSize,
    shape: cfg.limits.shape,
    xsdTimeoutSeconds: cfg.limits.xsdTimeoutSeconds,
    validation: cfg.validation,
    now,
    ...(opts.xsdBatchSize ? { xsdBatchSize: opts.xsdBatchSize } : {}),
    ...(opts.pageTables ? { pages: true } : {}),
  };
}

/**
 * Start reading plain XML inputs of `files` in a worker thread, as readStage would read them (readAhead); not where the
 * user asked for no worker threads (`threads` or PO_NODE_THREADS 1). `warm` (warmReadWorker) is taken by the read
 * ahead, which ends it; where none starts (undefined), it stays the caller's to end.
 */
export function startReadAhead(
  prepared: Prepared,
  files: readonly InputFile[],
  opts: ReadStageOptions = {},
  warm?: Worker,
): ReadAhead | undefined {
  if ((opts.threads ?? defaultThreads()) <= 1) return undefined;
  const plain = files.filter(isPlainXml);
  return plain.length ? readAhead(plain, catalogOptions(prepared.cfg, prepared.now, opts), warm) : undefined;
}

/**
 * A worker for a read ahead, started before the inputs are discovered: its modules load while the main thread walks
 * the inputs and reads the build manifest (docs/performance.md, "Read ahead"). Undefined where no read ahead can run.
 * Give it to startReadAhead, or terminate it.
 */
export function warmReadWorker(opts: ReadStageOptions = {}): Worker | undefined {
  return (opts.threads ?? defaultThreads()) > 1 ? startReadWorker() : undefined;
}

/** Read, parse, validate and index every input and follow the EPDs' references. Never throws for bad datasets. */
export async function readStage(opts: ReadStageOptions = {}, hooks: ReadStageHooks = {}, prepared?: Prepared): Promise<ReadStageResult> {
  const { cfg, now, found } = prepared ?? (await prepareRead(opts, hooks));
  const unzipped = await expandZips(found.files, cfg.limits.zip);
  const discovery = { files: unzipped.files, findings: [...found.findings, ...unzipped.findings] };
  opts.onProgress?.({ phase: 'discover', files: discovery.files.length });
  const configFindings: Finding[] = [];
  if (!cfg.baseUrl) {
    configFindings.push(finding('config-base-url', {}));
  }
  const interner = new Interner();
  const cache = hooks.openCache?.(cfg, interner, now);
  const catalog = await buildCatalog(discovery.files, [...configFindings, ...discovery.findings], {
    ...catalogOptions(cfg, now, opts),
    ...(cache ? { cache } : {}),
    ...(hooks.ahead ? { ahead: hooks.ahead } : {}),
    interner,
    ...(opts.threads ? { threads: opts.threads } : {}),
    onProgress: (done, total, cached) =>
      opts.onProgress?.({
        phase: 'read',
        done,
        total,
        cached,
        ...(done === total && total > cached && cfg.validation.xsd ? { xsd: xsdEngine() } : {}),
      }),
  });
  const refs = checkReferences(catalog, { require: cfg.requireDependencies, closures: cfg.zipExport });
  append(catalog.findings, refs.findings);
  const findings = sortFindings(catalog.findings);
  const counts = countFindings(findings);
  const summary: ReadSummary = {
    files: catalog.stats.filesSeen,
    datasets: Object.values(catalog.byType).reduce((s, l) => s + l.length, 0),
    epds: catalog.epds.length,
    rejected: catalog.stats.rejectedFiles,
    skipped: catalog.stats.skippedFiles,
    superseded: catalog.stats.supersededDatasets,
    errors: counts.error,
    warnings: counts.warning,
  };
  return { cfg, now, discovery, catalog, references: refs.report, findings, summary };
}
