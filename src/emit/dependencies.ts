import { readFile } from 'node:fs/promises';
import { zipSync, type Zippable } from 'fflate';
import type { Dataset } from '../catalog/build.js';
import type { ReferenceReport, SourceDocument } from '../catalog/references.js';
import { typeInfo, UUID_RE } from '../parse/ilcd.js';
import type { InputFile } from '../read/inputs.js';
import { inputSource, type PlannedFile } from './plan.js';

/**
 * Sub-resources of `/resource/<type>/<uuid>` live in `<uuid>_files/` because `<uuid>` is a file;
 * the host rewrites `/resource/<type>/<uuid>/<x>` onto them (docs/dependencies.md).
 */
export const SUB = {
  sourceFile: (uuid: string, name: string) => `resource/sources/${safe(uuid)}_files/${name}`,
  epdPdf: (uuid: string) => `resource/processes/${safe(uuid)}_files/epd.pdf`,
  zipExport: (uuid: string) => `resource/processes/${safe(uuid)}_files/zipexport.zip`,
} as const;

const DOC_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  xml: 'application/xml',
  zip: 'application/zip',
};

export function documentContentType(name: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return (ext && DOC_TYPES[ext]) || 'application/octet-stream';
}

/** ZIP entry times: a constant in local time (fflate writes local DOS time), so bytes never vary. */
const ZIP_MTIME = new Date(2000, 0, 1, 0, 0, 0);

/** Source documents, EPD PDFs and per-EPD ZIP exports. */
export function planDependencyFiles(epds: readonly Dataset[], refs: ReferenceReport): PlannedFile[] {
  const files: PlannedFile[] = [];
  for (const sd of refs.documents) files.push({ path: SUB.sourceFile(sd.source.header.uuid, sd.name), contentType: documentContentType(sd.name), source: inputSource(sd.file) });
  for (const epd of epds) {
    const uuid = epd.header.uuid;
    const pdf = refs.epdPdf.get(uuid);
    if (pdf) files.push({ path: SUB.epdPdf(uuid), contentType: 'application/pdf', source: inputSource(pdf.file) });
    const closure = refs.closures.get(uuid);
    if (closure) files.push({ path: SUB.zipExport(uuid), contentType: 'application/zip', source: { make: () => zipExport(epd, closure.datasets, closure.documents) } });
  }
  return files;
}

/** An ILCD ZIP as soda4LCA exports it: `ILCD/<folder>/<uuid>_<version>.xml` and `ILCD/external_docs/<name>`, sorted. */
export async function zipExport(epd: Dataset, datasets: readonly Dataset[], documents: readonly SourceDocument[]): Promise<Uint8Array> {
  const entries = new Map<string, InputFile>();
  for (const d of [epd, ...datasets]) entries.set(`ILCD/${typeInfo(d.header.type).folder}/${safe(d.header.uuid)}_${d.header.version}.xml`, d.file);
  // Two sources may name different files alike: the first (by source UUID) wins, as in one export folder.
  for (const sd of documents) if (!entries.has(`ILCD/external_docs/${sd.name}`)) entries.set(`ILCD/external_docs/${sd.name}`, sd.file);
  const zip: Zippable = {};
  for (const name of [...entries.keys()].sort()) {
    const f = entries.get(name)!;
    const bytes = f.bytes ?? new Uint8Array(await readFile(f.abs));
    zip[name] = [bytes, { mtime: ZIP_MTIME, level: /\.(xml|txt|svg)$/i.test(name) ? 6 : 0 }];
  }
  return zipSync(zip);
}

function safe(uuid: string): string {
  if (!UUID_RE.test(uuid)) throw new Error(`internal: refusing unsafe UUID ${JSON.stringify(uuid)} as a path`);
  return uuid;
}
