import type { Catalog } from '../catalog/build.js';
import type { ReferenceReport } from '../catalog/references.js';
import { planDependencyFiles } from './dependencies.js';
import { planTypeLists } from './type-lists.js';
import type { ResolvedConfig } from '../config/load.js';
import { emitHosts } from '../hosts/index.js';
import { DATASET_TYPES, UUID_RE } from '../parse/ilcd.js';
import type { InputFile } from '../read/inputs.js';
import { readInput } from '../read/zip.js';
import { v1ListJson } from './draft-v1.js';
import { renderIndexHtml } from './html.js';
import { nodeInfoXml, processListJson, processListXml } from './soda4lca.js';
import { append } from '../util/append.js';

export const CONTENT_TYPES = {
  xml: 'application/xml',
  json: 'application/json',
  html: 'text/html',
} as const;

/** One file of the site: where it goes, what it is, and where its bytes come from. */
export interface PlannedFile {
  /** Relative to the output folder, `/` separators. */
  path: string;
  contentType: string;
  /** `parts`: generated while written (the lists; bounded memory), called once per write. */
  source: { copy: string } | { text: string } | { bytes: Uint8Array } | { make: () => Promise<Uint8Array> } | { parts: () => Iterable<string> };
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

/** Every file of the site except the health documents, which are written from a check of this plan. */
export function planSite({ catalog, cfg, builtAt, references }: PlanContext): PlannedFile[] {
  const files: PlannedFile[] = [];
  const add = (path: string, contentType: string, source: PlannedFile['source'], key?: string) => files.push({ path, contentType, source, ...(key ? { key } : {}) });
  if (cfg.pathSets.default) {
    for (const t of DATASET_TYPES) {
      for (const d of catalog.byType[t.type]) add(`resource/${t.folder}/${safeUuid(d.header.uuid)}`, CONTENT_TYPES.xml, inputSource(d.file), `sha256:${d.sha256}`);
    }
    if (references) append(files, planDependencyFiles(catalog.epds, references, { zipExport: cfg.zipExport }));
    append(files, planTypeLists(catalog, cfg));
    add('resource/processes/index.xml', CONTENT_TYPES.xml, { parts: () => processListXml(catalog.epds, cfg) });
    add('resource/processes/index.json', CONTENT_TYPES.json, { parts: () => processListJson(catalog.epds, cfg) });
    const nodeinfo = nodeInfoXml(cfg);
    add('nodeinfo/index.xml', CONTENT_TYPES.xml, { text: nodeinfo });
    add('resource/nodeinfo/index.xml', CONTENT_TYPES.xml, { text: nodeinfo });
  }
  if (cfg.pathSets.v1) {
    for (const d of catalog.epds) add(`v1/epds/${safeUuid(d.header.uuid)}`, CONTENT_TYPES.xml, inputSource(d.file), `sha256:${d.sha256}`);
    add('v1/epds/index.json', CONTENT_TYPES.json, { parts: () => v1ListJson(catalog.epds, cfg) });
  }
  add('index.html', CONTENT_TYPES.html, { text: renderIndexHtml({ catalog, cfg, builtAt }) });
  // Host files that live in the published tree (.htaccess, _redirects, .nojekyll, ...).
  append(files, emitHosts(cfg.hosts ?? [], { cfg, site: files }).site);
  assertUniquePaths(files);
  return files;
}

/** Copy a file from disk, or emit the bytes of a ZIP entry, inflated as it is written. */
export function inputSource(f: InputFile): PlannedFile['source'] {
  return f.zip ? { make: () => readInput(f) } : { copy: f.abs };
}

/** UUIDs come from files: check again right where they become path segments. */
function safeUuid(uuid: string): string {
  if (!UUID_RE.test(uuid)) throw new Error(`internal: refusing unsafe UUID ${JSON.stringify(uuid)} as a path`);
  return uuid;
}

export function assertUniquePaths(files: readonly PlannedFile[]): void {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`internal: two outputs for ${f.path}`);
    seen.add(f.path);
  }
}
