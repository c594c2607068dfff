import { open } from 'node:fs/promises';
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
  /**
   * `parts`: generated while written (the lists; bounded memory), called once per write. `make`: made when written;
   * several buffers (a ZIP export: shared entries, then its central directory) are written in order with one writev.
   */
  source:
    | { copy: string }
    | { text: string }
    | { bytes: Uint8Array }
    | { make: () => Promise<Uint8Array | readonly Uint8Array[]> }
    | { parts: () => Iterable<string> };
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

/** Write what a `make` source made: one buffer, or several with one writev (never copied into one). */
export async function writeMade(path: string, made: Uint8Array | readonly Uint8Array[]): Promise<void> {
  // Empty buffers (an empty stored entry) are left out: a writev that writes nothing then means an error.
  const bufs = (made instanceof Uint8Array ? [made] : [...made]).filter((b) => b.length);
  const fh = await open(path, 'w');
  try {
    // A full disk ends a writev short, without an error: the rest is written again, and that write fails (ENOSPC).
    while (bufs.length) {
      let { bytesWritten: n } = await fh.writev(bufs);
      if (n === 0) throw new Error(`internal: nothing written to ${path}`);
      while (bufs.length && n >= bufs[0]!.length) n -= bufs.shift()!.length;
      if (n) bufs[0] = bufs[0]!.subarray(n);
    }
  } finally {
    await fh.close();
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
