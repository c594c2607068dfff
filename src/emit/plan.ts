import { createHash } from 'node:crypto';
import type { Dataset } from '../catalog/build.js';
import type { ResolvedConfig } from '../config/load.js';
import { planDependencyFiles } from './dependencies.js';
import { planTypeLists } from './type-lists.js';
import { DATASET_TYPES } from '../parse/ilcd.js';
import {
  CATALOGUE_INDEX,
  datasetFile,
  HTML_TYPE,
  INDEX_HTML,
  LIST_JSON_TYPE,
  LIST_XML_TYPE,
  listFile,
  NODEINFO_FILES,
  PROCESSES,
} from '../site/routes.js';
import { pageFile, pageStarts, V1_LIST, v1EpdFile } from '../site/routes.js';
import { v1ListJson } from './draft-v1.js';
import { inputSource, type PlanContext, type PlannedFile } from './files.js';
import { splicedList, type Entry } from './list-entries.js';
import type { Part } from './stream.js';
import { catalogueRows, renderCatalogueIndex, renderIndexHtml } from './html.js';
import { planEpdPages } from './epd-page.js';
import { nodeInfoXml, processListJson, processListXml } from './soda4lca.js';
import { append } from '../util/append.js';
import { updateTexts } from '../util/hash-text.js';
import { GENERATOR_VERSION } from '../version.js';

export { assertUniquePaths, inputSource, type PlanContext, type PlannedFile } from './files.js';

/**
 * Every data file of the site: datasets, documents, lists, nodeinfo, index.html (paths from src/site/routes.ts).
 * Host files (src/hosts) are added by the build; the health documents are written from a check of the written tree.
 */
export function planSite({ catalog, cfg, builtAt, references, lists }: PlanContext): PlannedFile[] {
  const files: PlannedFile[] = [];
  const listKey = listKeys(catalog.epds, cfg);
  const add = (path: string, contentType: string, source: PlannedFile['source'], key?: string) =>
    files.push({ path, contentType, source, ...(key ? { key } : {}) });
  // A whole list and its pages: entries kept from the last build's whole list where they are unchanged.
  const whole = (path: string, contentType: string, key: string, make: (entry: Entry) => Iterable<Part>) =>
    add(path, contentType, { parts: () => splicedList(path, listKey.entries(), lists, make, { key }) }, key);
  const page = (path: string, from: string, contentType: string, key: string, make: (entry: Entry) => Iterable<Part>) =>
    add(path, contentType, { parts: () => splicedList(from, listKey.entries(), lists, make) }, key);
  if (cfg.pathSets.default) {
    for (const t of DATASET_TYPES) {
      for (const d of catalog.byType[t.type]) {
        add(datasetFile(t.folder, d.header.uuid), LIST_XML_TYPE, inputSource(d.file), `sha256:${d.sha256}`);
      }
    }
    if (references) append(files, planDependencyFiles(catalog.epds, references, { zipExport: cfg.zipExport }));
    append(files, planTypeLists(catalog, cfg));
    const all = listKey('whole');
    const [xmlList, jsonList] = [listFile(PROCESSES, 'xml'), listFile(PROCESSES, 'json')];
    whole(xmlList, LIST_XML_TYPE, all('xml'), (entry) => processListXml(catalog.epds, cfg, undefined, entry));
    whole(jsonList, LIST_JSON_TYPE, all('json'), (entry) => processListJson(catalog.epds, cfg, undefined, entry));
    for (const pageSize of cfg.paging.pageSizes) {
      for (const startIndex of pageStarts(catalog.epds.length, pageSize)) {
        const at = { startIndex, pageSize };
        const key = listKey('page', startIndex, pageSize);
        page(pageFile(pageSize, startIndex, 'xml'), xmlList, LIST_XML_TYPE, key('xml'), (e) => processListXml(catalog.epds, cfg, at, e));
        page(pageFile(pageSize, startIndex, 'json'), jsonList, LIST_JSON_TYPE, key('json'), (e) =>
          processListJson(catalog.epds, cfg, at, e),
        );
      }
    }
    const nodeinfo = nodeInfoXml(cfg);
    for (const f of NODEINFO_FILES) add(f, LIST_XML_TYPE, { text: nodeinfo });
  }
  if (cfg.pathSets.v1) {
    for (const d of catalog.epds) add(v1EpdFile(d.header.uuid), LIST_XML_TYPE, inputSource(d.file), `sha256:${d.sha256}`);
    whole(V1_LIST, LIST_JSON_TYPE, listKey('v1')('json'), (entry) => v1ListJson(catalog.epds, cfg, entry));
  }
  append(files, planEpdPages(catalog.epds, cfg, references, catalog.spool));
  const ctx = { catalog, cfg, builtAt, ...(references ? { references } : {}) };
  const rows = catalogueRows(ctx);
  add(CATALOGUE_INDEX, LIST_JSON_TYPE, { text: renderCatalogueIndex(ctx, rows) });
  add(INDEX_HTML, HTML_TYPE, { text: renderIndexHtml(ctx, rows) });
  return files;
}

/** Bump when the EPD lists change their content for the same EPDs and configuration. */
const LIST_FORMAT = 1;

/**
 * Content keys of the EPD lists and their pages, so an incremental build links an unchanged page from the previous
 * site instead of rendering it again. An entry shows the EPD's index (a function of its bytes, so its sha256) and its
 * declared unit (resolved from other datasets); a document also shows the list's frame (which part, how many EPDs),
 * the node and the base URL. `keys(what, start, size)(format)`: the key of one document of that part.
 */
export function listKeys(epds: readonly Dataset[], cfg: Pick<ResolvedConfig, 'baseUrl' | 'node'>) {
  let entries: string[] | undefined;
  const frame = JSON.stringify({ v: GENERATOR_VERSION, f: LIST_FORMAT, base: cfg.baseUrl ?? null, node: cfg.node, n: epds.length });
  /** Each EPD's entry key: what its entry in any list shows, besides the configuration. */
  const entryKeys = () => (entries ??= epds.map((d) => `${d.sha256} ${JSON.stringify(d.declaredUnit ?? null)}\n`));
  const keys = (what: string, start = 0, size = epds.length) => {
    const all = entryKeys();
    const h = createHash('sha256').update(`${frame}\n${what} ${start} ${size}\n`);
    const digest = updateTexts(h, all.slice(start, start + size), (k) => k).digest('hex');
    return (format: string) => `list:${format}:${digest}`;
  };
  return Object.assign(keys, { entries: entryKeys });
}
