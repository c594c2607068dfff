import type { Catalog, Dataset } from '../catalog/build.js';
import type { ResolvedConfig } from '../config/load.js';
import { DATASET_TYPES, type DatasetTypeInfo } from '../parse/ilcd.js';
import { pickText } from '../parse/extract.js';
import { datasetUrl, LIST_JSON_TYPE, LIST_XML_TYPE, listFile } from '../site/routes.js';
import type { PlannedFile } from './files.js';
import { SAPI } from './soda4lca.js';
import { attrString, el } from './xml-writer.js';

/**
 * soda4LCA's list documents for the other dataset types (`/resource/flows`, `/resource/contacts` …),
 * whole list in one page like the process list. Entries carry the common ServiceAPI fields only
 * (uuid, permanentUri, dataSetVersion, names); soda4LCA adds type-specific ones we do not need.
 */
const LIST_SHAPES: Record<string, { prefix: string; ns: string; element: string; dsType: string }> = {
  flow: { prefix: 'flow', ns: `${SAPI.serviceApi}/Flow`, element: 'flow', dsType: 'Flow' },
  flowproperty: { prefix: 'flowproperty', ns: `${SAPI.serviceApi}/FlowProperty`, element: 'flowProperty', dsType: 'FlowProperty' },
  unitgroup: { prefix: 'unitgroup', ns: `${SAPI.serviceApi}/UnitGroup`, element: 'unitGroup', dsType: 'UnitGroup' },
  contact: { prefix: 'contact', ns: SAPI.contact, element: 'contact', dsType: 'Contact' },
  source: { prefix: 'source', ns: `${SAPI.serviceApi}/Source`, element: 'source', dsType: 'Source' },
  lciamethod: { prefix: 'lciamethod', ns: `${SAPI.serviceApi}/LCIAMethod`, element: 'LCIAMethod', dsType: 'LCIAMethod' },
};

export function planTypeLists(catalog: Catalog, cfg: ResolvedConfig): PlannedFile[] {
  const files: PlannedFile[] = [];
  for (const t of DATASET_TYPES) {
    if (t.type === 'process') continue;
    const list = catalog.byType[t.type];
    if (!list.length) continue;
    files.push({ path: listFile(t.folder, 'xml'), contentType: LIST_XML_TYPE, source: { text: typeListXml(t, list, cfg) } });
    files.push({ path: listFile(t.folder, 'json'), contentType: LIST_JSON_TYPE, source: { text: typeListJson(t, list, cfg) } });
  }
  return files;
}

export function typeListXml(t: DatasetTypeInfo, list: readonly Dataset[], cfg: ResolvedConfig): string {
  const s = LIST_SHAPES[t.type]!;
  const n = list.length;
  const parts = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n',
    `<serviceapi:dataSetList xmlns:serviceapi="${SAPI.serviceApi}" xmlns:xlink="${SAPI.xlink}" xmlns:${s.prefix}="${s.ns}" serviceapi:totalSize="${n}" serviceapi:startIndex="0" serviceapi:pageSize="${n}">\n`,
  ];
  for (const d of list) {
    const h = d.header;
    const inner = [
      el('serviceapi:uuid', h.uuid),
      el('serviceapi:permanentUri', datasetUrl(cfg, t.folder, h.uuid)),
      el('serviceapi:dataSetVersion', h.version),
      ...h.names.map((nm) => el('serviceapi:name', nm.value, { 'xml:lang': nm.lang })),
    ];
    const attrs = attrString({ 'serviceapi:sourceId': cfg.node.id, 'xlink:href': datasetUrl(cfg, t.folder, h.uuid, h.version) });
    parts.push(`    <${s.prefix}:${s.element}${attrs}>\n${inner.map((x) => `        ${x}`).join('\n')}\n    </${s.prefix}:${s.element}>\n`);
  }
  parts.push('</serviceapi:dataSetList>\n');
  return parts.join('');
}

export function typeListJson(t: DatasetTypeInfo, list: readonly Dataset[], cfg: ResolvedConfig): string {
  const s = LIST_SHAPES[t.type]!;
  const data = list.map((d) => {
    const h = d.header;
    const name = pickText(h.names);
    return {
      languages: [...new Set(h.names.map((x) => x.lang))],
      ...(name ? { name } : {}),
      uuid: h.uuid,
      version: h.version,
      nodeid: cfg.node.id,
      uri: datasetUrl(cfg, t.folder, h.uuid, h.version),
      dsType: s.dsType,
    };
  });
  return JSON.stringify({ startIndex: 0, pageSize: data.length, totalCount: data.length, data });
}
