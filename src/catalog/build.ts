import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Finding } from '../findings.js';
import { cmp } from '../findings.js';
import { extractDataset, type DatasetHeader } from '../parse/extract.js';
import { compareVersions, DATASET_TYPES, type DatasetType } from '../parse/ilcd.js';
import { decodeXml } from '../parse/safety.js';
import { parseXml } from '../parse/xml.js';
import { findingAt, inputLabel, type InputFile } from '../read/inputs.js';
import { checkDocument } from '../validate/run.js';
import type { DeclaredUnit } from './references.js';
import { validateXsd, type XsdItem } from '../validate/xsd.js';
import type { BuildCache } from '../emit/cache.js';

/** A dataset accepted for publication. Bytes are not kept: the writer copies the input file. */
export interface Dataset {
  header: DatasetHeader;
  file: InputFile;
  sha256: string;
  /** EPDs: declared unit via reference flow → flow property → unit group (src/catalog/references.ts). */
  declaredUnit?: DeclaredUnit;
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
  /** Levels 3 and 4; all on when absent. */
  validation?: { xsd: boolean; rules: boolean; disabledRules: readonly string[] };
  /** Build time, for date rules (valid-until). */
  now?: Date;
  /** Documents per XSD batch (xmllint call). */
  xsdBatchSize?: number;
  onProgress?: (done: number, total: number) => void;
  /** Incremental builds: unchanged inputs reuse their earlier outcome (src/emit/cache.ts). */
  cache?: BuildCache;
}

/** Read, check and index every input; bad files become findings, never exceptions. */
export async function buildCatalog(files: readonly InputFile[], discoveryFindings: readonly Finding[], opts: CatalogOptions): Promise<Catalog> {
  const findings: Finding[] = [...discoveryFindings];
  const stats: CatalogStats = { filesSeen: files.length, xmlFiles: 0, datasetsRead: 0, rejectedFiles: 0, skippedFiles: 0, supersededDatasets: 0 };
  const accepted: Dataset[] = [];
  const documents: InputFile[] = [];
  const xml = files.filter((f) => f.kind === 'xml');
  stats.xmlFiles = xml.length;
  stats.skippedFiles = files.filter((f) => f.kind === 'other').length;
  // Files refused during discovery (special files) count as rejected, so health reports them.
  stats.rejectedFiles += discoveryFindings.filter((f) => f.severity === 'error' && f.file).length;
  for (const f of files) if (f.kind === 'document') documents.push(f);

  let done = 0;
  // Level 3 runs on batches of parsed datasets so the schemas are compiled once per batch.
  const xsdOn = opts.validation?.xsd ?? true;
  const batchSize = opts.xsdBatchSize ?? 200;
  // dataset is absent when level 2/4 already rejected the file: XSD still runs so the report is complete.
  const cache = opts.cache;
  type Stat = ReturnType<BuildCache['stat']>;
  let pending: { dataset?: Dataset; item: XsdItem; file: InputFile; st: Stat; readFindings: Finding[] }[] = [];
  const flush = async () => {
    const results = await validateXsd(pending.map((p) => p.item), { batchSize });
    pending.forEach((p, i) => {
      const fs = results.get(i) ?? [];
      findings.push(...fs);
      const ok = p.dataset && !fs.some((f) => f.severity === 'error');
      if (!ok) stats.rejectedFiles++;
      else {
        stats.datasetsRead++;
        accepted.push(p.dataset!);
      }
      cache?.record(p.file, p.st, { findings: [...p.readFindings, ...fs], ...(ok ? { header: p.dataset!.header, sha256: p.dataset!.sha256 } : {}) });
    });
    pending = [];
  };
  for (const file of xml) {
    const hit = cache?.lookup(file);
    if (hit) {
      findings.push(...hit.findings);
      if (hit.header && hit.sha256) {
        stats.datasetsRead++;
        accepted.push({ header: hit.header, file, sha256: hit.sha256 });
      } else if (hit.skipped) stats.skippedFiles++;
      else stats.rejectedFiles++;
      opts.onProgress?.(++done, xml.length);
      continue;
    }
    const st = cache?.stat(file);
    const result = await readOne(file, opts);
    findings.push(...result.findings);
    if (xsdOn && result.text !== undefined && result.header) {
      pending.push({ ...(result.dataset ? { dataset: result.dataset } : {}), item: { file: file.path, text: result.text, header: result.header }, file, st, readFindings: result.findings });
      if (pending.length >= batchSize) await flush();
    } else {
      if (result.dataset) {
        stats.datasetsRead++;
        accepted.push(result.dataset);
      } else if (result.skipped) {
        stats.skippedFiles++;
      } else {
        stats.rejectedFiles++;
      }
      cache?.record(file, st, { findings: result.findings, ...(result.dataset ? { header: result.dataset.header, sha256: result.dataset.sha256 } : {}), ...(result.skipped ? { skipped: true } : {}) });
    }
    opts.onProgress?.(++done, xml.length);
  }
  if (pending.length) await flush();

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
        findings.push({ ruleId: 'dataset-duplicate', severity: 'info', ...findingAt(loser.file), message: `Identical copy of ${inputLabel(winner.file)} (UUID ${winner.header.uuid}, version ${winner.header.version}); published once.` });
      } else {
        // Exports of several EPDs repeat shared dependencies (flows, sources) in different versions:
        // routine for those, worth a warning only for EPDs themselves.
        findings.push({
          ruleId: 'dataset-duplicate',
          severity: winner.header.type === 'process' ? 'warning' : 'info',
          ...findingAt(loser.file),
          message: same
            ? `Same UUID ${winner.header.uuid} and version ${winner.header.version} as ${inputLabel(winner.file)} but different content; ${inputLabel(winner.file)} is published. Raise the dataSetVersion of the changed file.`
            : `UUID ${winner.header.uuid} version ${loser.header.version} is superseded by version ${winner.header.version} in ${inputLabel(winner.file)}, which is published.`,
        });
      }
    }
  }
  for (const list of Object.values(byType)) list.sort((a, b) => cmp(a.header.uuid, b.header.uuid));
  const epds = byType.process.filter((d) => d.header.process?.typeOfDataSet === 'EPD');
  for (const d of byType.process) {
    if (d.header.process?.typeOfDataSet !== 'EPD') {
      findings.push({
        ruleId: 'process-not-epd',
        severity: 'warning',
        ...findingAt(d.file),
        xpath: '/processDataSet/modellingAndValidation/LCIMethodAndAllocation/typeOfDataSet',
        message: `Not listed: typeOfDataSet is "${d.header.process?.typeOfDataSet ?? '(missing)'}", not "EPD". The dataset is still served at resource/processes/${d.header.uuid} for clients that reference it.`,
      });
    }
  }
  return { byType, epds, documents, findings, stats };
}

interface ReadResult {
  dataset?: Dataset;
  /** Decoded text and header of a parsed dataset (accepted or rejected by checks), for XSD validation. */
  text?: string;
  header?: DatasetHeader;
  skipped?: boolean;
  findings: Finding[];
}

async function readOne(file: InputFile, opts: CatalogOptions): Promise<ReadResult> {
  const at = (f: Omit<Finding, 'file'>): Finding => ({ ...findingAt(file), ...f });
  if (file.size > opts.maxFileSize) {
    return {
      findings: [at({ ruleId: 'input-too-large', severity: 'error', message: `The file is ${mb(file.size)} MB, over the ${mb(opts.maxFileSize)} MB limit; it was not read. Raise limits.maxFileSizeMB in the config (or --max-file-size) if it is genuine.` })],
    };
  }
  let bytes: Buffer;
  try {
    bytes = file.bytes ? Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength) : await readFile(file.abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return { findings: [at({ ruleId: 'input-unreadable', severity: 'error', message: `The file cannot be read (${code}); check its permissions.` })] };
  }
  if (bytes.length > opts.maxFileSize) {
    return { findings: [at({ ruleId: 'input-too-large', severity: 'error', message: `The file is ${mb(bytes.length)} MB, over the ${mb(opts.maxFileSize)} MB limit.` })] };
  }
  const decoded = decodeXml(bytes);
  if (!decoded.ok) return { findings: [at(decoded.finding)] };
  const parsed = parseXml(decoded.text);
  if (!parsed.ok) {
    return {
      findings: [at({ ruleId: 'xml-malformed', severity: 'error', message: `The XML is not well-formed: ${parsed.message}`, ...(parsed.line ? { line: parsed.line } : {}), ...(parsed.col ? { col: parsed.col } : {}) })],
    };
  }
  const extracted = extractDataset(parsed.root);
  if (!extracted.ok) {
    // Category systems and other ILCD side files are not datasets: note them, do not reject.
    if (extracted.findings[0]?.ruleId === 'ilcd-root' && parsed.root.name === 'CategorySystem') {
      return { skipped: true, findings: [at({ ruleId: 'input-not-dataset', severity: 'info', message: 'Skipped: an ILCD category system, not a dataset.' })] };
    }
    return { findings: extracted.findings.map(at) };
  }
  const v = opts.validation;
  // Checks see the entry name (file-name rules), findings get archive + entry.
  const findings = checkDocument(
    { file: file.entry ?? file.path, text: decoded.text, root: parsed.root, dataset: extracted.dataset },
    { rules: v?.rules ?? true, disabledRules: v?.disabledRules ?? [], ...(opts.now ? { now: opts.now } : {}) },
  ).map((f) => ({ ...f, ...findingAt(file) }));
  if (findings.some((f) => f.severity === 'error')) return { findings, text: decoded.text, header: extracted.dataset };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { dataset: { header: extracted.dataset, file, sha256 }, text: decoded.text, header: extracted.dataset, findings };
}

function mb(n: number): string {
  return (n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1);
}
