import type { Catalog } from '../catalog/build.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { ResolvedConfig } from '../config/load.js';
import type { InputFile } from '../read/inputs.js';
import { readInput } from '../read/zip.js';

/** One file of the site: where it goes, what it is, and where its bytes come from. */
export interface PlannedFile {
  /** Relative to the output folder, `/` separators. */
  path: string;
  contentType: string;
  /** `parts`: generated while written (the lists; bounded memory), called once per write. */
  source:
    { copy: string } | { text: string } | { bytes: Uint8Array } | { make: () => Promise<Uint8Array> } | { parts: () => Iterable<string> };
  /** Content key (same key, same bytes): lets an incremental build reuse the previous site's file. */
  key?: string;
}

export interface PlanContext {
  catalog: Catalog;
  cfg: ResolvedConfig;
  builtAt: Date;
  /** Dependencies of the EPDs: source documents, EPD PDFs, ZIP exports (absent: none planned). */
  references?: ReferenceReport;
}

/** Copy a file from disk, or emit the bytes of a ZIP entry, inflated as it is written. */
export function inputSource(f: InputFile): PlannedFile['source'] {
  return f.zip ? { make: () => readInput(f) } : { copy: f.abs };
}

export function assertUniquePaths(files: readonly PlannedFile[]): void {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`internal: two outputs for ${f.path}`);
    seen.add(f.path);
  }
}

/** Whether the site publishes an EPD's PDF and ZIP export (soda4LCA sub-resources): the pages link only those. */
export function publishedDocuments(
  uuid: string,
  cfg: Pick<ResolvedConfig, 'pathSets' | 'zipExport'>,
  references?: ReferenceReport,
): { pdf: boolean; zip: boolean } {
  return {
    pdf: !!references?.epdPdf.has(uuid) && cfg.pathSets.default,
    zip: !!references?.closures.has(uuid) && cfg.zipExport && cfg.pathSets.default,
  };
}
