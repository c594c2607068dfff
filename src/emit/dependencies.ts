import { createHash } from 'node:crypto';
import type { Dataset } from '../catalog/build.js';
import type { ReferenceReport, SourceDocument } from '../catalog/references.js';
import { typeInfo } from '../parse/ilcd.js';
import type { InputFile } from '../read/inputs.js';
import { inputBytes, readInput } from '../read/zip.js';
import { documentContentType, safeUuid as safe, SUB } from '../site/routes.js';
import { inputSource, type PlannedFile } from './files.js';
import { named, zipEntry, zipParts, type FileEntries, type ZipEntry } from './zip-writer.js';

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
  const cache: EntryCache = new Map();
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
        source: {
          make: () => zipExport(epd, closure.datasets, closure.documents, cache),
          // Made in the page thread when every entry is a plain file (none inside an input ZIP).
          ...(plain(epd.file) && closure.datasets.every((d) => plain(d.file)) && closure.documents.every((sd) => plain(sd.file))
            ? { files: () => exportFiles(epd, closure.datasets, closure.documents) }
            : {}),
        },
        key: `zip:${h.digest('hex')}`,
      });
    }
  }
  return files;
}

/** One entry of an export: its name, the input it holds, whether it is deflated, whether other exports share it. */
interface ExportEntry {
  name: string;
  file: InputFile;
  compress: boolean;
  shared: boolean;
}

/**
 * Dependencies' entries made once per build, per input file and method (the same bytes whichever export makes them
 * first, so the exports do not depend on which thread made which).
 */
export type EntryCache = Map<InputFile, (Promise<ZipEntry> | undefined)[]>;

/** An ILCD ZIP's entries as soda4LCA exports it: `ILCD/<folder>/<uuid>_<version>.xml` and `ILCD/external_docs/<name>`, sorted. */
function exportEntries(epd: Dataset, datasets: readonly Dataset[], documents: readonly SourceDocument[]): ExportEntry[] {
  const entries = new Map<string, InputFile>();
  for (const d of [epd, ...datasets])
    entries.set(`ILCD/${typeInfo(d.header.type).folder}/${safe(d.header.uuid)}_${d.header.version}.xml`, d.file);
  // Two sources may name different files alike: the first (by source UUID) wins, as in one export folder.
  for (const sd of documents) if (!entries.has(`ILCD/external_docs/${sd.name}`)) entries.set(`ILCD/external_docs/${sd.name}`, sd.file);
  return [...entries.keys()].sort().map((name) => {
    const file = entries.get(name)!;
    // The EPD itself is used once; its dependencies are shared.
    return { name, file, compress: /\.(xml|txt|svg)$/i.test(name), shared: file !== epd.file };
  });
}

/** An ILCD ZIP as soda4LCA exports it, as buffers to write in order (zipParts). */
export async function zipExport(
  epd: Dataset,
  datasets: readonly Dataset[],
  documents: readonly SourceDocument[],
  cache?: EntryCache,
): Promise<Uint8Array[]> {
  const make = async (e: ExportEntry) => zipEntry(e.name, await readInput(e.file), e.compress);
  const entry = async (e: ExportEntry): Promise<ZipEntry> => {
    if (!cache || !e.shared) return make(e);
    let slot = cache.get(e.file);
    if (!slot) cache.set(e.file, (slot = []));
    return named(await (slot[+e.compress] ??= make(e)), e.name);
  };
  return zipParts(await Promise.all(exportEntries(epd, datasets, documents).map(entry)));
}

const plain = (f: InputFile) => !f.zip;

/** An export's entries for the page thread (zipFromFiles); every one a plain file. */
function exportFiles(epd: Dataset, datasets: readonly Dataset[], documents: readonly SourceDocument[]): FileEntries {
  return exportEntries(epd, datasets, documents).map(({ name, file, compress, shared }) => ({ name, path: file.abs, compress, shared }));
}
