import type { Worker } from 'node:worker_threads';
import type { Finding } from '../findings.js';
import type { ShapeLimits } from '../parse/wellformed.js';
import { cmp } from '../findings.js';
import { finding } from '../messages/finding.js';
import type { LciaSpan } from '../parse/body.js';
import type { DatasetHeader } from '../parse/extract.js';
import { compareVersions, DATASET_TYPES, type DatasetType } from '../parse/ilcd.js';
import { findingAt, inputLabel, type InputFile } from '../read/inputs.js';
import { Interner } from './intern.js';
import { readAll } from './pool.js';
import type { ReadOutcome } from './read.js';
import { append } from '../util/append.js';
import { Spool, type SpoolSpan } from '../util/spool.js';

export interface DeclaredUnit {
  /** Reference flow (product) name and UUID. */
  name?: string;
  uuid: string;
  /** Reference unit of the unit group, e.g. `m2`; from the reference's short description when the unit group is absent. */
  unit?: string;
  /** The reference exchange's meanAmount (usually 1). */
  meanValue?: number;
}

/** A dataset accepted for publication. Bytes are not kept: the writer copies the input file. */
export interface Dataset {
  header: DatasetHeader;
  file: InputFile;
  sha256: string;
  /** EPDs: declared unit via reference flow → flow property → unit group (src/catalog/references.ts). */
  declaredUnit?: DeclaredUnit;
  /** EPDs: where their page finds the LCIA results in the file, if the reader recorded it (ReadOutcome.lcia). */
  lcia?: LciaSpan;
  /** EPDs read in this build with CatalogOptions.pages: their page's LCIA results table, in Catalog.spool. */
  table?: SpoolSpan;
}

export interface Catalog {
  /** Newest version per UUID, per type, sorted by UUID. */
  byType: Record<DatasetType, Dataset[]>;
  /** Process datasets that are EPDs (typeOfDataSet EPD): the list documents. */
  epds: Dataset[];
  /** External documents (ILCD `external_docs/`). */
  documents: InputFile[];
  findings: Finding[];
  stats: CatalogStats;
  /** With CatalogOptions.pages: the LCIA tables of Dataset.table. The caller closes it once the pages are written. */
  spool?: Spool;
}

export interface CatalogStats {
  filesSeen: number;
  xmlFiles: number;
  datasetsRead: number;
  rejectedFiles: number;
  skippedFiles: number;
  supersededDatasets: number;
}

export interface CatalogOptions {
  maxFileSize: number;
  shape?: ShapeLimits;
  /** Base time limit of an XSD batch (validateXsd). */
  xsdTimeoutSeconds?: number;
  /** Levels 3 and 4; all on when absent. */
  validation?: { xsd: boolean; rules: boolean; disabledRules: readonly string[] };
  /** Build time, for date rules (valid-until). */
  now?: Date;
  /** Documents per XSD batch (xmllint call). */
  xsdBatchSize?: number;
  /** Shared with the cache loader, so cached and fresh outcomes share their strings. */
  interner?: Interner;
  /** Worker threads for reading (default: the cores available; 1 = none). */
  threads?: number;
  /** `cached`: of `done`, the outcomes taken from the cache. */
  onProgress?: (done: number, total: number, cached: number) => void;
  /** Incremental builds: unchanged inputs reuse their earlier outcome (src/cache/build-cache.ts implements it). */
  cache?: OutcomeCache;
  /** Inputs read ahead (readAhead): their outcomes are taken where the cache has none. */
  ahead?: ReadAhead;
  /** The EPDs' LCIA tables made by the reader, for their pages (ReadOptions.pages; Catalog.spool holds them). */
  pages?: boolean;
}

/** Inputs being read in worker threads while the build does something else (the cache loads). */
export interface ReadAhead {
  files: readonly InputFile[];
  /** Each file's outcome, in `files` order; undefined where the read failed (it is read again). */
  outcomes: Promise<(ReadOutcome | undefined)[]>;
}

/**
 * Start reading `files` in worker threads now (the main thread stays free for its own work): the inputs an incremental
 * build will find changed, known from the build manifest before the cache is loaded. Below the number of files for
 * which readAll starts workers itself, the main thread would read them after the load, cold (docs/performance.md).
 */
export function readAhead(files: readonly InputFile[], opts: CatalogOptions, warm?: Worker): ReadAhead {
  const outcomes: (ReadOutcome | undefined)[] = new Array<undefined>(files.length);
  const done = readAll(
    files,
    { ...readOptions(opts), workers: AHEAD_WORKERS, ...(warm ? { warm } : {}) },
    (k, o) => (outcomes[k] = o),
  ).then(
    () => outcomes,
    () => new Array<undefined>(files.length),
  );
  return { files, outcomes: done };
}

/**
 * Worker threads of a read ahead. One: the main thread loads the cache meanwhile, and xmllint validates the same files.
 * A 1% rebuild of 10,000 EPDs, 4 alternating triples: 4.06-4.75 s to the result without a read ahead, 4.00-4.24 s with
 * one worker, 4.16-4.93 s with two (the cache's load on the main thread slowed by the contention).
 */
const AHEAD_WORKERS = 1;

/** The options of readAll a catalog's reads take (those of a read ahead too: the outcomes must be the same). */
function readOptions(opts: CatalogOptions) {
  return {
    maxFileSize: opts.maxFileSize,
    ...(opts.shape ? { shape: opts.shape } : {}),
    ...(opts.xsdTimeoutSeconds ? { xsdTimeoutSeconds: opts.xsdTimeoutSeconds } : {}),
    ...(opts.validation ? { validation: opts.validation } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.xsdBatchSize ? { xsdBatchSize: opts.xsdBatchSize } : {}),
    ...(opts.pages ? { pages: true } : {}),
  };
}

/** Input stat as the cache keeps it: a fast path on the machine that wrote it. */
export interface InputStat {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** What the catalog needs of an incremental-build cache; declared here so the catalog depends on no layer above it. */
export interface OutcomeCache {
  /**
   * The earlier outcome of each file, or undefined where it must be read again. `readAhead`: absolute paths of files
   * being read already: one whose stat changed is not hashed to see whether its bytes did (the read tells).
   */
  lookupAll(files: readonly InputFile[], readAhead?: Pick<ReadonlySet<string>, 'has'>): Promise<(ReadOutcome | undefined)[]>;
  /** The file's stat before it is read, recorded with its outcome. */
  stat(file: InputFile): InputStat | undefined;
  record(file: InputFile, st: InputStat | undefined, outcome: ReadOutcome): void;
}

function newSpool(): Spool | undefined {
  try {
    return new Spool();
  } catch {
    return undefined;
  }
}

/** Read, check and index every input; bad files become findings, never exceptions. */
export async function buildCatalog(
  files: readonly InputFile[],
  discoveryFindings: readonly Finding[],
  opts: CatalogOptions,
): Promise<Catalog> {
  const findings: Finding[] = [...discoveryFindings];
  const stats: CatalogStats = {
    filesSeen: files.length,
    xmlFiles: 0,
    datasetsRead: 0,
    rejectedFiles: 0,
    skippedFiles: 0,
    supersededDatasets: 0,
  };
  const accepted: Dataset[] = [];
  const documents: InputFile[] = [];
  const xml = files.filter((f) => f.kind === 'xml');
  stats.xmlFiles = xml.length;
  stats.skippedFiles = files.filter((f) => f.kind === 'other').length;
  // Files refused during discovery (special files) count as rejected, so health reports them.
  stats.rejectedFiles += discoveryFindings.filter((f) => f.severity === 'error' && f.file).length;
  for (const f of files) if (f.kind === 'document') documents.push(f);

  // Unchanged inputs take their earlier outcome from the cache; the rest are read on every core.
  const cache = opts.cache;
  // Every outcome kept is interned: repeated references and strings are held once.
  const interner = opts.interner ?? new Interner();
  // An outcome's LCIA table goes to the spool as it arrives (to disk, not kept in memory, never into the cache). A
  // spool that cannot be made or written (no temporary folder, a full disk) costs only speed: the pages read their
  // documents again.
  let spool = opts.pages ? newSpool() : undefined;
  const tables = new Map<number, SpoolSpan>();
  const take = (i: number, o: ReadOutcome): ReadOutcome => {
    if (o.table === undefined) return o;
    if (spool) {
      try {
        tables.set(i, spool.put(o.table));
      } catch {
        spool.close();
        spool = undefined;
        tables.clear();
      }
    }
    delete o.table;
    return o;
  };
  // Cached outcomes were interned as the cache was loaded (BuildCache.load with the same interner).
  // Files read ahead, by path: the cache does not hash them, and their outcomes fill what it lacks.
  const ahead = opts.ahead && new Map(opts.ahead.files.map((f, k) => [f.abs, k]));
  const outcomes: (ReadOutcome | undefined)[] = cache ? await cache.lookupAll(xml, ahead) : new Array<undefined>(xml.length);
  const cached = outcomes.reduce((n, o) => (o ? n + 1 : n), 0);
  // A file read ahead the cache has is not taken: the cache's outcome is the same.
  if (opts.ahead && ahead) {
    const got = await opts.ahead.outcomes;
    xml.forEach((f, i) => {
      const k = outcomes[i] || f.entry !== undefined ? undefined : ahead.get(f.abs);
      const o = k === undefined ? undefined : got[k];
      if (!o) return;
      outcomes[i] = interner.outcome(take(i, o));
      cache?.record(f, cache.stat(f), outcomes[i]);
    });
  }
  const missIdx = xml.flatMap((_f, i) => (outcomes[i] ? [] : [i]));
  const stats0 = missIdx.map((i) => cache?.stat(xml[i]!));
  let done = xml.length - missIdx.length;
  opts.onProgress?.(done, xml.length, cached);
  const reading = readAll(
    missIdx.map((i) => xml[i]!),
    {
      ...readOptions(opts),
      ...(opts.threads ? { threads: opts.threads } : {}),
      intern: (r) => interner.ref(r),
      onChunk: (n) => opts.onProgress?.((done += n), xml.length, cached),
    },
    (k, outcome) => {
      const i = missIdx[k]!;
      outcomes[i] = interner.outcome(take(i, outcome));
      cache?.record(xml[i]!, stats0[k], outcomes[i]);
    },
  );
  await reading.catch((e: unknown) => {
    spool?.close();
    throw e;
  });
  // Input order, whatever the scheduling: deterministic findings and winners.
  xml.forEach((file, i) => {
    const o = outcomes[i]!;
    append(findings, o.findings);
    if (o.header && o.sha256) {
      stats.datasetsRead++;
      const table = tables.get(i);
      accepted.push({ header: o.header, file, sha256: o.sha256, ...(o.lcia ? { lcia: o.lcia } : {}), ...(table ? { table } : {}) });
    } else if (o.skipped) stats.skippedFiles++;
    else stats.rejectedFiles++;
  });

  const byType = Object.fromEntries(DATASET_TYPES.map((t) => [t.type, [] as Dataset[]])) as Record<DatasetType, Dataset[]>;
  const groups = new Map<string, Dataset[]>();
  for (const d of accepted) {
    const key = `${d.header.type}/${d.header.uuid}`;
    const g = groups.get(key);
    if (g) g.push(d);
    else groups.set(key, [d]);
  }
  for (const group of groups.values()) {
    // Newest version first; for equal versions the first path in sort order wins (deterministic).
    group.sort((a, b) => compareVersions(b.header.version, a.header.version) || cmp(inputLabel(a.file), inputLabel(b.file)));
    const winner = group[0]!;
    byType[winner.header.type].push(winner);
    for (const loser of group.slice(1)) {
      stats.supersededDatasets++;
      const same = loser.header.version === winner.header.version;
      if (same && loser.sha256 === winner.sha256) {
        const { uuid, version } = winner.header;
        const params = { case: 'identical', published: inputLabel(winner.file), uuid, version } as const;
        findings.push(finding('dataset-duplicate', params, { severity: 'info', ...findingAt(loser.file) }));
      } else {
        // Exports of several EPDs repeat shared dependencies (flows, sources) in different versions:
        // routine for those, worth a warning only for EPDs themselves.
        const published = inputLabel(winner.file);
        const { uuid } = winner.header;
        const params = same
          ? ({ case: 'changed', published, uuid, version: winner.header.version } as const)
          : ({ case: 'superseded', published, uuid, version: loser.header.version, newer: winner.header.version } as const);
        findings.push(
          finding('dataset-duplicate', params, {
            severity: winner.header.type === 'process' ? 'warning' : 'info',
            ...findingAt(loser.file),
          }),
        );
      }
    }
  }
  for (const list of Object.values(byType)) list.sort((a, b) => cmp(a.header.uuid, b.header.uuid));
  const epds = byType.process.filter((d) => d.header.process?.typeOfDataSet === 'EPD');
  for (const d of byType.process) {
    if (d.header.process?.typeOfDataSet !== 'EPD') {
      findings.push(
        finding(
          'process-not-epd',
          { typeOfDataSet: d.header.process?.typeOfDataSet ?? '(missing)', uuid: d.header.uuid },
          {
            ...findingAt(d.file),
            xpath: '/processDataSet/modellingAndValidation/LCIMethodAndAllocation/typeOfDataSet',
          },
        ),
      );
    }
  }
  return { byType, epds, documents, findings, stats, ...(spool ? { spool } : {}) };
}
