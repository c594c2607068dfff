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
import { renderCatalogueIndex, renderIndexHtml } from './html.js';
import { planEpdPages } from './epd-page.js';
import { nodeInfoXml, processListJson, processListXml } from './soda4lca.js';
import { append } from '../util/append.js';

export { assertUniquePaths, inputSource, type PlanContext, type PlannedFile } from './files.js';

/**
 * Every data file of the site: datasets, documents, lists, nodeinfo, index.html (paths from src/site/routes.ts).
 * Host files (src/hosts) are added by the build; the health documents are written from a check of the written tree.
 */
export function planSite({ catalog, cfg, builtAt, references }: PlanContext): PlannedFile[] {
  const files: PlannedFile[] = [];
  const add = (path: string, contentType: string, source: PlannedFile['source'], key?: string) =>
    files.push({ path, contentType, source, ...(key ? { key } : {}) });
  if (cfg.pathSets.default) {
    for (const t of DATASET_TYPES) {
      for (const d of catalog.byType[t.type]) {
        add(datasetFile(t.folder, d.header.uuid), LIST_XML_TYPE, inputSource(d.file), `sha256:${d.sha256}`);
      }
    }
    if (references) append(files, planDependencyFiles(catalog.epds, references, { zipExport: cfg.zipExport }));
    append(files, planTypeLists(catalog, cfg));
    add(listFile(PROCESSES, 'xml'), LIST_XML_TYPE, { parts: () => processListXml(catalog.epds, cfg) });
    add(listFile(PROCESSES, 'json'), LIST_JSON_TYPE, { parts: () => processListJson(catalog.epds, cfg) });
    for (const pageSize of cfg.paging.pageSizes) {
      for (const startIndex of pageStarts(catalog.epds.length, pageSize)) {
        const page = { startIndex, pageSize };
        add(pageFile(pageSize, startIndex, 'xml'), LIST_XML_TYPE, { parts: () => processListXml(catalog.epds, cfg, page) });
        add(pageFile(pageSize, startIndex, 'json'), LIST_JSON_TYPE, { parts: () => processListJson(catalog.epds, cfg, page) });
      }
    }
    const nodeinfo = nodeInfoXml(cfg);
    for (const f of NODEINFO_FILES) add(f, LIST_XML_TYPE, { text: nodeinfo });
  }
  if (cfg.pathSets.v1) {
    for (const d of catalog.epds) add(v1EpdFile(d.header.uuid), LIST_XML_TYPE, inputSource(d.file), `sha256:${d.sha256}`);
    add(V1_LIST, LIST_JSON_TYPE, { parts: () => v1ListJson(catalog.epds, cfg) });
  }
  append(files, planEpdPages(catalog.epds, cfg, references));
  const ctx = { catalog, cfg, builtAt, ...(references ? { references } : {}) };
  add(CATALOGUE_INDEX, LIST_JSON_TYPE, { text: renderCatalogueIndex(ctx) });
  add(INDEX_HTML, HTML_TYPE, { text: renderIndexHtml(ctx) });
  return files;
}
