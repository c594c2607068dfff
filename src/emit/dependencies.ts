import { createHash } from 'node:crypto';
import type { Dataset } from '../catalog/build.js';
import type { ReferenceReport, SourceDocument } from '../catalog/references.js';
import { typeInfo } from '../parse/ilcd.js';
import type { InputFile } from '../read/inputs.js';
import { inputBytes, readInput } from '../read/zip.js';
import { documentContentType, safeUuid as safe, SUB } from '../site/routes.js';
import { inputSource, type PlannedFile } from './files.js';
import { withName, zipEntry, zipParts, type ZipEntry } from './zip-writer.js';

/** Bump when zipExport's layout changes, so cached exports are not reused. */
const ZIP_FORMAT = 'zipexport/2\n';

/** Source documents, EPD PDFs and per-EPD ZIP exports. */
export function planDependencyFiles(
  epds: readonly Dataset[],
  refs: ReferenceReport,
  opts: { zipExport: boolean } = { zipExport: false },
): PlannedFile[] {
  const files: PlannedFile[] = [];
  // Dependencies recur in many exports: read and compress each once per build (headers included).
  const cache = new Map<InputFile, Promise<ZipEntry>>();
  // Content keys for incremental builds: documents are hashed once (they are few and shared).
  const docKeys = new Map<InputFile, string>();
  const docKey = (f: InputFile) => {
    let k = docKeys.get(f);
    if (!k) docKeys.set(f, (k = createHash('sha256').update(inputBytes(f)).digest('hex')));
    return k;
  };
  for (const sd of refs.documents)
    files.push({
      path: SUB.sourceFile(sd.source.header.uuid, sd.name),
      contentType: documentContentType(sd.name),
      source: inputSource(sd.file),
      key: `sha256:${docKey(sd.file)}`,
    });
  for (const epd of epds) {
    const uuid = epd.header.uuid;
    const pdf = refs.epdPdf.get(uuid);
    if (pdf)
      files.push({
        path: SUB.epdPdf(uuid),
        contentType: documentContentType('epd.pdf'),
        source: inputSource(pdf.file),
        key: `sha256:${docKey(pdf.file)}`,
      });
    const closure = refs.closures.get(uuid);
    if (closure && opts.zipExport) {
      // The export's bytes follow from its entry names and their contents.
      const h = createHash('sha256').update(ZIP_FORMAT);
      for (const d of [epd, ...closure.datasets]) h.update(`${d.header.type}/${d.header.uuid}_${d.header.version}:${d.sha256}\n`);
      for (const sd of closure.documents) h.update(`doc/${sd.name}:${docKey(sd.file)}\n`);
      files.push({
        path: SUB.zipExport(uuid),
        contentType: documentContentType('zipexport.zip'),
        source: { make: () => zipExport(epd, closure.datasets, closure.documents, cache) },
        key: `zip:${h.digest('hex')}`,
      });
    }
  }
  return files;
}

/** An ILCD ZIP as soda4LCA exports it: `ILCD/<folder>/<uuid>_<version>.xml` and `ILCD/external_docs/<name>`, sorted. */
export async function zipExport(
  epd: Dataset,
  datasets: readonly Dataset[],
  documents: readonly SourceDocument[],
  cache?: Map<InputFile, Promise<ZipEntry>>,
): Promise<Uint8Array[]> {
  const entries = new Map<string, InputFile>();
  for (const d of [epd, ...datasets])
    entries.set(`ILCD/${typeInfo(d.header.type).folder}/${safe(d.header.uuid)}_${d.header.version}.xml`, d.file);
  // Two sources may name different files alike: the first (by source UUID) wins, as in one export folder.
  for (const sd of documents) if (!entries.has(`ILCD/external_docs/${sd.name}`)) entries.set(`ILCD/external_docs/${sd.name}`, sd.file);
  const make = async (name: string, f: InputFile) => zipEntry(name, await readInput(f), /\.(xml|txt|svg)$/i.test(name));
  const entry = async (name: string): Promise<ZipEntry> => {
    const f = entries.get(name)!;
    // The EPD itself is used once; its dependencies are shared (same input file gives the same entry name).
    if (!cache || f === epd.file) return make(name, f);
    let p = cache.get(f);
    if (!p) cache.set(f, (p = make(name, f)));
    const e = await p;
    return e.name === name ? e : withName(e, name);
  };
  const out = await Promise.all([...entries.keys()].sort().map(entry));
  return zipParts(out);
}
