import { posix } from 'node:path';
import type { Finding } from '../findings.js';
import { append } from '../util/append.js';
import { cmp } from '../findings.js';
import { finding } from '../messages/finding.js';
import type { Ref } from '../parse/extract.js';
import { DATASET_TYPES, typeInfo, type DatasetType } from '../parse/ilcd.js';
import { findingAt, inputLabel, isSafeDocumentName, type InputFile } from '../read/inputs.js';
import type { Catalog, Dataset, DeclaredUnit } from './build.js';

// How far references are followed from an EPD: its own references (depth 1) and theirs (depth 2), as soda4LCA's ZIP
// export does (checkReferences: each dataset at depth 1 with its references). The declared-unit chain (flow → flow
// property → unit group) and the digital files of every source reached are always followed to the end.

/** The declared unit of an EPD, as soda4LCA's JSON list shows it in `referenceFlows`. */
export type { DeclaredUnit } from './build.js';

/** A document file a source points to, resolved to an input in `external_docs/`. */
export interface SourceDocument {
  source: Dataset;
  /** File name as served: `/resource/sources/<uuid>/<name>`. */
  name: string;
  file: InputFile;
}

export interface ReferenceReport {
  /** Distinct references followed (referencing dataset + XPath + target), resolved and missing. */
  total: number;
  resolved: number;
  /** Missing references (each is a `reference-missing` finding, with file and XPath). */
  missing: number;
  /** References to web URLs (digital files): counted, not fetched. */
  external: number;
  /** Per EPD UUID: every dataset and document it depends on (for the ZIP export), sorted. */
  closures: Map<string, { datasets: Dataset[]; documents: SourceDocument[] }>;
  /** Every resolved source document, once per (source, name). */
  documents: SourceDocument[];
  /** Per EPD UUID: the PDF of the EPD, when one of its sources resolves to a .pdf. */
  epdPdf: Map<string, SourceDocument>;
}

const TYPE_BY_LABEL = new Map<string, DatasetType>(DATASET_TYPES.map((t) => [t.label.toLowerCase(), t.type]));

/**
 * Follow the references of every published EPD, resolve declared units and source documents, and
 * report what the input lacks: warnings, or errors that unlist the EPD when `require` is set.
 */
export function checkReferences(
  catalog: Catalog,
  opts: { require: boolean; closures?: boolean },
): { report: ReferenceReport; findings: Finding[] } {
  // Per type, by UUID: looked up hundreds of times per EPD, so no key strings are built.
  const index = new Map<DatasetType, Map<string, Dataset>>(
    DATASET_TYPES.map((t) => [t.type, new Map(catalog.byType[t.type].map((d) => [d.header.uuid, d]))]),
  );
  const typeOf = new Map<string, DatasetType | undefined>();
  const lookup = (r: Ref | undefined, fallback?: DatasetType): Dataset | undefined => {
    if (!r?.uuid) return undefined;
    let type = r.type === undefined ? undefined : typeOf.get(r.type);
    if (r.type !== undefined && !typeOf.has(r.type)) typeOf.set(r.type, (type = TYPE_BY_LABEL.get(r.type.toLowerCase())));
    type ||= fallback;
    return type ? index.get(type)!.get(r.uuid) : undefined;
  };
  // References are interned (one object per distinct reference, src/catalog/intern.ts) and EPDs share most of theirs:
  // each is looked up once by identity, not by its type and UUID again for every EPD that holds it (726,000 at
  // 10,000 bench EPDs, 261 of them distinct).
  const targetOf = new Map<Ref, Dataset | null>();
  const target = (r: Ref): Dataset | undefined => {
    let t = targetOf.get(r);
    if (t === undefined) targetOf.set(r, (t = lookup(r) ?? null));
    return t ?? undefined;
  };
  const docs = documentIndex(catalog.documents);

  // Distinct edges (referencing file + XPath + target) are counted, but only missing ones and the few from
  // digital files are kept: at 100,000 EPDs the resolved edges alone were millions of keys.
  const seen = new Set<string>();
  let total = 0;
  let resolved = 0;
  const missingOf = new Map<string, Finding>();
  // Findings are made as edges go missing; no second record of them (a million at 100,000 EPDs).
  const missingFindings: Finding[] = [];
  let external = 0;
  const externalSeen = new Set<string>();
  const allDocs = new Map<string, SourceDocument>();
  const closures: ReferenceReport['closures'] = new Map();
  const epdPdf: ReferenceReport['epdPdf'] = new Map();
  const severity = opts.require ? 'error' : 'warning';
  const findings: Finding[] = [];
  const failed = new Set<string>();

  // Datasets whose missing declared-unit edges the chain counted before they were followed.
  const chainCounted = new Set<Dataset>();
  // The shared finding of a missing reference, by the (interned) reference: no key string per missing edge (118,000 at
  // 10,000 bench EPDs; a fresh string's first lookup in a map, to flatten and hash it, took 0.6-3 us here).
  const missingOfRef = new Map<Ref, Finding>();
  const edge = (
    from: Dataset,
    xpath: string,
    ok: boolean,
    what: { type: string; uuid?: string; uri?: string },
    once = false,
    ref?: Ref,
  ) => {
    // A reference followed once per dataset (`once`) is distinct by construction: counted, no key kept (only
    // looked up when missing and the declared-unit chain counted edges of its dataset before it was followed).
    if (!once || (!ok && chainCounted.has(from))) {
      const key = `${inputLabel(from.file)}#${xpath}#${what.uuid ?? what.uri ?? ''}`;
      if (seen.has(key)) return;
      if (!once) seen.add(key);
    }
    total++;
    if (ok) {
      resolved++;
      return;
    }
    // Many EPDs miss the same dataset (an LCIA method not exported): its message and parameters made once, shared.
    let m = ref && missingOfRef.get(ref);
    if (!m) {
      const mk = what.type === 'digital file' ? `f#${what.uri ?? ''}` : `d#${what.type}#${what.uuid ?? ''}`;
      m = missingOf.get(mk);
      if (!m) {
        const params =
          what.type === 'digital file'
            ? ({ case: 'digital-file', uri: what.uri ?? '' } as const)
            : ({ case: 'dataset', type: what.type, uuid: what.uuid ?? '', folder: folderOf(what.type) } as const);
        m = finding('reference-missing', params, { severity });
        missingOf.set(mk, m);
      }
      if (ref) missingOfRef.set(ref, m);
    }
    // As finding() makes it (the same keys in the same order), without rendering the message again: 120,000 of
    // them at 10,000 bench EPDs.
    const { path: file, entry } = from.file;
    missingFindings.push(
      entry !== undefined
        ? { ruleId: m.ruleId, severity, file, entry, xpath, message: m.message, params: m.params! }
        : { ruleId: m.ruleId, severity, file, xpath, message: m.message, params: m.params! },
    );
  };

  // A source's digital files, resolved once (its edges counted then). Sources such as a shared LCA method report
  // are reached from most EPDs.
  const sourceFiles = new Map<Dataset, { missing: boolean; docs: [string, SourceDocument][] }>();
  const filesOf = (d: Dataset) => {
    let s = sourceFiles.get(d);
    if (s) return s;
    s = { missing: false, docs: [] };
    for (const f of d.header.links.digitalFiles ?? []) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(f.uri)) {
        if (!externalSeen.has(`${d.header.uuid}#${f.xpath}`)) external++;
        externalSeen.add(`${d.header.uuid}#${f.xpath}`);
        continue;
      }
      const name = documentName(f.uri);
      const file = name ? pickDocument(docs.get(name), d.file) : undefined;
      edge(d, f.xpath, !!file, { type: 'digital file', uri: f.uri });
      if (!file) s.missing = true;
      if (file && name) {
        const sd = allDocs.get(`${d.header.uuid}/${name}`) ?? { source: d, name, file };
        allDocs.set(`${d.header.uuid}/${name}`, sd);
        s.docs.push([`${d.header.uuid}/${name}`, sd]);
      }
    }
    sourceFiles.set(d, s);
    return s;
  };
  // Each dataset's references with their targets, looked up and counted once (a flow is reached from thousands of
  // EPDs): `missing` when any target is not in the input.
  const follows = new Map<Dataset, { targets: Dataset[]; sources: [Ref, Dataset][]; missing: boolean }>();
  const follow = (d: Dataset) => {
    let f = follows.get(d);
    if (f) return f;
    f = { targets: [], sources: [], missing: false };
    // Indexed, as the loops below: they run once per build, mostly before V8 optimises them (docs/performance.md,
    // "Loops that run once"; 600,000 references at 10,000 EPDs).
    const refs = d.header.references;
    for (let i = 0; i < refs.length; i++) {
      const r = refs[i]!;
      if (!r.uuid) continue;
      const t = target(r);
      if (t) {
        // What edge() does for a resolved reference followed once per dataset, without its arguments' object.
        total++;
        resolved++;
        f.targets.push(t);
        if (t.header.type === 'source') f.sources.push([r, t]);
      } else {
        edge(d, r.xpath, false, { type: r.type ?? '', uuid: r.uuid }, true, r);
        f.missing = true;
      }
    }
    follows.set(d, f);
    return f;
  };
  /** Documents of a source (or of what a reach holds) into an EPD's documents. */
  const addDocs = (documents: Map<string, SourceDocument>, docs: readonly [string, SourceDocument][]) => {
    for (let i = 0; i < docs.length; i++) documents.set(docs[i]![0], docs[i]![1]);
  };
  /** A dataset reached at depth 2 (or on the declared-unit chain) adds itself; a source adds its documents: true when one is missing. */
  const reached = (d: Dataset, into: Set<Dataset> | undefined, documents: Map<string, SourceDocument>): boolean => {
    into?.add(d);
    if (d.header.type !== 'source') return false;
    const s = filesOf(d);
    addDocs(documents, s.docs);
    return s.missing;
  };
  // What a dataset reached at depth 1 adds to every EPD that reaches it: itself and its references (depth 2), their
  // documents, and whether any of its references or documents is missing. Made once per dataset.
  const reaches = new Map<Dataset, { datasets: Dataset[]; docs: [string, SourceDocument][]; missing: boolean }>();
  const reachOf = (d: Dataset) => {
    let r = reaches.get(d);
    if (r) return r;
    const f = follow(d);
    const datasets = [d, ...f.targets];
    const documents = new Map<string, SourceDocument>();
    let missing = f.missing;
    for (const x of datasets) if (reached(x, undefined, documents)) missing = true;
    r = { datasets, docs: [...documents], missing };
    reaches.set(d, r);
    return r;
  };

  for (let e = 0; e < catalog.epds.length; e++) {
    const epd = catalog.epds[e]!;
    const id = epd.header.uuid;
    // Its closure: kept only for the ZIP exports (bounded memory without them).
    const datasets = opts.closures !== false ? new Set<Dataset>() : undefined;
    const documents = new Map<string, SourceDocument>();
    const own = follow(epd);
    let missing = own.missing;
    // Depth 1 and 2. Every dataset at depth 1 is followed, whether or not another path reaches it at depth 2.
    for (let i = 0; i < own.targets.length; i++) {
      const r = reachOf(own.targets[i]!);
      if (r.missing) missing = true;
      if (datasets) for (let j = 0; j < r.datasets.length; j++) datasets.add(r.datasets[j]!);
      addDocs(documents, r.docs);
    }
    // Declared unit chain, followed to the unit group whatever the depth.
    const unit = declaredUnit(
      epd,
      lookup,
      (d) => {
        if (reached(d, datasets, documents)) missing = true;
      },
      (from, r) => {
        missing = true;
        // A dataset whose references were followed has this missing edge counted already.
        if (!follows.has(from)) {
          chainCounted.add(from);
          edge(from, r.xpath, false, { type: r.type ?? '', uuid: r.uuid! }, false, r);
        }
      },
    );
    if (missing) failed.add(id);
    if (unit) epd.declaredUnit = unit;
    datasets?.delete(epd);
    const byPath = (a: Dataset, b: Dataset) => cmp(a.header.type, b.header.type) || cmp(a.header.uuid, b.header.uuid);
    const docList = [...documents.values()].sort((a, b) => cmp(a.source.header.uuid, b.source.header.uuid) || cmp(a.name, b.name));
    if (datasets) closures.set(id, { datasets: [...datasets].sort(byPath), documents: docList });
    const pdf = findEpdPdf(own.sources, docList);
    if (pdf) epdPdf.set(id, pdf);
  }

  // Every published source serves its files, reached from an EPD or not (clients may open any source).
  for (const src of catalog.byType.source) {
    for (const f of src.header.links.digitalFiles ?? []) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(f.uri)) continue;
      const name = documentName(f.uri);
      const file = name ? pickDocument(docs.get(name), src.file) : undefined;
      if (file && name && !allDocs.has(`${src.header.uuid}/${name}`))
        allDocs.set(`${src.header.uuid}/${name}`, { source: src, name, file });
    }
  }
  const used = new Set([...allDocs.values()].map((sd) => sd.file));
  for (const f of catalog.documents) {
    if (!used.has(f)) findings.push(finding('document-unreferenced', {}, findingAt(f)));
  }

  append(findings, missingFindings);
  if (opts.require && failed.size) {
    // Errors reject: EPDs with missing dependencies are not listed (still served for direct links).
    const before = catalog.epds.length;
    catalog.epds = catalog.epds.filter((d) => !failed.has(d.header.uuid));
    catalog.stats.rejectedFiles += before - catalog.epds.length;
  }
  const documents = [...allDocs.values()].sort((a, b) => cmp(a.source.header.uuid, b.source.header.uuid) || cmp(a.name, b.name));
  return { report: { total, resolved, missing: missingFindings.length, external, closures, documents, epdPdf }, findings };
}

/**
 * The PDF of the EPD (`sources`: its references to sources, in document order): the source at
 * `epd2:referenceToOriginalEPD` (format v1.2), else a source the EPD references whose short description or file name
 * says "EPD" (ÖKOBAUDAT puts it among the LCA method details, next to the PCRs); its first PDF file in document order.
 */
function findEpdPdf(sources: readonly [Ref, Dataset][], docs: readonly SourceDocument[]): SourceDocument | undefined {
  const pdfOf = (src: Dataset | undefined) => docs.find((sd) => sd.source === src && /\.pdf$/i.test(sd.name));
  for (const [r, src] of sources) if (r.xpath.endsWith('/epd2:referenceToOriginalEPD')) return pdfOf(src);
  for (const [r, src] of sources) {
    const pdf = pdfOf(src);
    const says = (t: string | undefined) => !!t && /\bEPD\b/i.test(t) && !/\bPCR\b|Produktkategorie/i.test(t);
    if (pdf && (r.descriptions.some((d) => says(d.value)) || says(pdf.name))) return pdf;
  }
  return undefined;
}

function folderOf(label: string): string {
  const t = TYPE_BY_LABEL.get(label.toLowerCase());
  return t ? typeInfo(t).folder : '<type>';
}

function declaredUnit(
  epd: Dataset,
  lookup: (r: Ref | undefined, fallback?: DatasetType) => Dataset | undefined,
  visit: (d: Dataset) => void,
  lost: (from: Dataset, r: Ref) => void,
): DeclaredUnit | undefined {
  const rf = epd.header.links.referenceFlow;
  if (!rf?.ref.uuid) return undefined;
  const out: DeclaredUnit = { uuid: rf.ref.uuid };
  const mean = Number(rf.meanAmount);
  if (rf.meanAmount !== undefined && Number.isFinite(mean)) out.meanValue = mean;
  const flow = lookup(rf.ref, 'flow');
  out.name = pick(flow?.header.names) ?? pick(rf.ref.descriptions);
  if (!flow) return out;
  visit(flow);
  const fp = flow.header.links.referenceFlowProperty;
  const prop = lookup(fp?.ref, 'flowproperty');
  if (fp && !prop && fp.ref.uuid) lost(flow, fp.ref);
  if (!prop) return out;
  visit(prop);
  const ugRef = prop.header.links.referenceUnitGroup;
  const ug = lookup(ugRef, 'unitgroup');
  if (ugRef && !ug && ugRef.uuid) lost(prop, ugRef);
  if (ug) visit(ug);
  out.unit = ug?.header.links.referenceUnit ?? (ugRef ? pick(ugRef.descriptions) : undefined);
  return out;
}

function pick(texts: { lang: string; value: string }[] | undefined): string | undefined {
  if (!texts?.length) return undefined;
  return (texts.find((t) => t.lang === 'en') ?? texts[0])!.value;
}

/** The file name of a digital-file @uri: `name.pdf`, `../external_docs/name.pdf`; undefined when unsafe. */
export function documentName(uri: string): string | undefined {
  let u = uri.replace(/\\/g, '/');
  try {
    u = decodeURIComponent(u);
  } catch {
    // keep as written
  }
  const name = posix.basename(u).normalize('NFC');
  return isSafeDocumentName(name) ? name : undefined;
}

function documentIndex(files: readonly InputFile[]): Map<string, InputFile[]> {
  const m = new Map<string, InputFile[]>();
  for (const f of files) {
    const name = posix.basename(f.entry ?? f.path).normalize('NFC');
    const list = m.get(name) ?? [];
    list.push(f);
    m.set(name, list);
  }
  return m;
}

/** Same name in several exports: prefer the file from the source's own export (ILCD folder). */
function pickDocument(candidates: InputFile[] | undefined, from: InputFile): InputFile | undefined {
  if (!candidates?.length) return undefined;
  const root = (f: InputFile) => posix.dirname(posix.dirname(inputLabel(f)));
  return candidates.find((c) => root(c) === root(from)) ?? [...candidates].sort((a, b) => cmp(inputLabel(a), inputLabel(b)))[0];
}
