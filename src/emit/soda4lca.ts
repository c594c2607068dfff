import type { Dataset } from '../catalog/build.js';
import type { ResolvedConfig } from '../config/load.js';
import { pickText, type LangText, type Ref } from '../parse/extract.js';
import { KNOWN_COMPLIANCE } from '../parse/ilcd.js';
import { renderEntry } from './list-entries.js';
import { jsonWithTexts, type Part } from './stream.js';
import { datasetUrl, nodeUrl, PROCESSES } from '../site/routes.js';
import { attrString, el } from './xml-writer.js';

/**
 * soda4LCA Service API shapes. Sources: soda4LCA Doc/src/Service_API (Service_API_Response_DatasetList.md,
 * Service_API_NodeInfo.md), its JSONDatasetListSerializer, and the JAXB bindings openLCA reads them with.
 */
export const SAPI = {
  serviceApi: 'http://www.ilcd-network.org/ILCD/ServiceAPI',
  process: 'http://www.ilcd-network.org/ILCD/ServiceAPI/Process',
  nodeInfo: 'http://www.ilcd-network.org/ILCD/ServiceAPI/NodeInfo',
  contact: 'http://www.ilcd-network.org/ILCD/ServiceAPI/Contact',
  epd: 'http://www.iai.kit.edu/EPD/2013',
  xlink: 'http://www.w3.org/1999/xlink',
} as const;

/** The `baseURL` of nodeinfo; soda4LCA builds every href as baseURL + "/processes/" + uuid. */
export function serviceBaseUrl(cfg: Pick<ResolvedConfig, 'baseUrl'>): string {
  return nodeUrl(cfg, 'resource');
}

/** One page of a list: entries startIndex .. startIndex + pageSize - 1 of the whole list. */
export interface ListPage {
  startIndex: number;
  pageSize: number;
}

/** The page a list document holds: by default the whole list (totalSize = pageSize = N). */
function pageOf(epds: readonly Dataset[], page: ListPage | undefined) {
  const n = epds.length;
  const { startIndex, pageSize } = page ?? { startIndex: 0, pageSize: n };
  return { n, startIndex, pageSize, entries: page ? epds.slice(startIndex, startIndex + pageSize) : epds };
}

/**
 * The whole list in one page: where the host cannot page, totalSize = pageSize = N, and openLCA stops after one request
 * (its pageSize differs, or startIndex + pageSize >= totalSize). With `page`, one page of it (the pre-paged lists).
 */
export function* processListXml(epds: readonly Dataset[], cfg: ResolvedConfig, page?: ListPage, entry = renderEntry): Generator<Part> {
  const { n, startIndex, pageSize, entries } = pageOf(epds, page);
  yield '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  yield (
    `<serviceapi:dataSetList xmlns:serviceapi="${SAPI.serviceApi}" xmlns:xlink="${SAPI.xlink}" xmlns:process="${SAPI.process}" xmlns:epd="${SAPI.epd}"` +
    ` serviceapi:totalSize="${n}" serviceapi:startIndex="${startIndex}" serviceapi:pageSize="${pageSize}">\n`
  );
  // Indexed: runs once per list, mostly before V8 optimises it (docs/performance.md, "Loops that run once").
  for (let k = 0; k < entries.length; k++) {
    const d = entries[k]!;
    yield entry(startIndex + k, () => rendered(cfg, 'xml', d, processEntryXml));
  }
  yield '</serviceapi:dataSetList>\n';
}

// Indentation of a list entry's children and grandchildren (entries themselves sit at 4).
const I1 = '        ';
const I2 = '            ';

/** One `process:process`, elements in the ServiceAPI sequence (uuid ... ownership), then `other`. */
function processEntryXml(d: Dataset, cfg: ResolvedConfig): string {
  const h = d.header;
  const p = h.process!;
  const lines: string[] = [];
  const add = (s: string) => {
    if (s) lines.push(`${I1}${s}`);
  };
  add(el('serviceapi:uuid', h.uuid));
  add(el('serviceapi:permanentUri', datasetUrl(cfg, PROCESSES, h.uuid)));
  add(el('serviceapi:dataSetVersion', h.version));
  // ilcdlib reads only the first name: English first.
  for (const n of englishFirst(p.names)) add(el('serviceapi:name', n.value, { 'xml:lang': n.lang }));
  for (const c of p.classifications) {
    if (!c.classes.length) continue;
    const classes = c.classes.map((k) => `${I2}${el('serviceapi:class', k.name, { level: k.level, classId: k.classId })}`).join('\n');
    add(`<serviceapi:classification${attrString({ name: c.system })}>\n${classes}\n${I1}</serviceapi:classification>`);
  }
  add(el('process:type', p.typeOfDataSet));
  add(el('process:location', p.location));
  const year = (s: string | undefined) => (s && /^\d{4}$/.test(s) ? s : undefined);
  const time = [el('process:referenceYear', year(p.referenceYear)), el('process:validUntil', year(p.validUntil))].filter(Boolean);
  if (time.length) add(`<process:time>\n${time.map((t) => `${I2}${t}`).join('\n')}\n${I1}</process:time>`);
  for (const c of p.compliance) {
    const inner = [referenceXml('serviceapi:reference', c), el('process:overallCompliance', c.overallCompliance)].filter(Boolean);
    add(
      `<process:complianceSystem${attrString({ name: complianceName(c) })}>\n${inner.map((t) => `${I2}${t}`).join('\n')}\n${I1}</process:complianceSystem>`,
    );
  }
  if (p.licenseType)
    add(`<process:accessInformation>\n${I2}${el('process:licenseType', p.licenseType)}\n${I1}</process:accessInformation>`);
  if (p.owner) add(referenceXml('process:ownership', p.owner));
  if (p.subType) add(`<serviceapi:other>\n${I2}${el('epd:subType', p.subType)}\n${I1}</serviceapi:other>`);
  const attrs = attrString({ 'serviceapi:sourceId': cfg.node.id, 'xlink:href': datasetUrl(cfg, PROCESSES, h.uuid, h.version) });
  return `    <process:process${attrs}>\n${lines.join('\n')}\n    </process:process>\n`;
}

function referenceXml(name: string, r: Ref): string {
  return `<${name}${attrString({ type: r.type ?? '', refObjectId: r.uuid, version: r.version, uri: r.uri })}/>`;
}

/** soda4LCA JSON list item (JSONDatasetListSerializer): keys in emission order, absent when null. */
export interface Soda4lcaJsonItem {
  languages: string[];
  name?: string;
  uuid: string;
  version: string;
  geo?: string;
  classific?: string;
  classificId?: string;
  classificSystem?: string;
  type?: string;
  /** Declared unit (soda4LCA shows it when the node enables reference products; po-node always does when resolvable). */
  referenceFlows?: { name?: string; unit?: string; meanValue?: number; uuid: string }[];
  refYear?: number;
  validUntil?: number;
  compliance: { name?: string; uri?: string; uuid?: string }[];
  owner?: string;
  subType?: string;
  regNo?: string;
  regAuthority?: { uuid?: string; name?: string };
  nodeid: string;
  uri: string;
  dsType: 'Process';
}

/** Compact like Gson (no white space, no trailing newline). */
export function processListJson(epds: readonly Dataset[], cfg: ResolvedConfig, page?: ListPage, entry = renderEntry): Generator<Part> {
  const { n, startIndex, pageSize, entries } = pageOf(epds, page);
  return jsonWithTexts(
    { startIndex, pageSize, totalCount: n, data: [] },
    'data',
    (function* () {
      for (let k = 0; k < entries.length; k++) {
        const d = entries[k]!;
        yield entry(startIndex + k, () => rendered(cfg, 'json', d, (d, cfg) => JSON.stringify(processJsonItem(d, cfg))));
      }
    })(),
  );
}

/**
 * List entries as rendered, by configuration and dataset: the whole list and each of its pages (three page sizes by
 * default) hold the same entries, so each is rendered once per format. Bounded: past ENTRY_BUDGET characters (about
 * 11,000 EPDs), further entries are rendered each time.
 */
const rendering = new WeakMap<ResolvedConfig, { xml: WeakMap<Dataset, string>; json: WeakMap<Dataset, string>; chars: number }>();
const ENTRY_BUDGET = 32 << 20;

function rendered(cfg: ResolvedConfig, kind: 'xml' | 'json', d: Dataset, render: (d: Dataset, cfg: ResolvedConfig) => string): string {
  let r = rendering.get(cfg);
  if (!r) rendering.set(cfg, (r = { xml: new WeakMap(), json: new WeakMap(), chars: 0 }));
  let text = r[kind].get(d);
  if (text === undefined) {
    text = render(d, cfg);
    if (r.chars + text.length <= ENTRY_BUDGET) {
      r[kind].set(d, text);
      r.chars += text.length;
    }
  }
  return text;
}

export function processJsonItem(d: Dataset, cfg: ResolvedConfig): Soda4lcaJsonItem {
  const h = d.header;
  const p = h.process!;
  const cls = p.classifications.find((c) => c.classes.length);
  const deepest = cls?.classes[cls.classes.length - 1];
  const regAuthority = p.registrationAuthority
    ? compact({ uuid: p.registrationAuthority.uuid, name: pickText(p.registrationAuthority.descriptions) })
    : undefined;
  return compact({
    languages: [...new Set(englishFirst(p.names).map((n) => n.lang))],
    name: pickText(p.names),
    uuid: h.uuid,
    version: h.version,
    geo: p.location,
    classific: cls?.classes.map((c) => c.name).join(' / '),
    classificId: deepest?.classId,
    classificSystem: cls?.system,
    type: p.typeOfDataSet,
    referenceFlows: d.declaredUnit
      ? [compact({ name: d.declaredUnit.name, unit: d.declaredUnit.unit, meanValue: d.declaredUnit.meanValue, uuid: d.declaredUnit.uuid })]
      : undefined,
    refYear: intYear(p.referenceYear),
    validUntil: intYear(p.validUntil),
    compliance: p.compliance.map((c) => compact({ name: complianceName(c), uri: c.uri, uuid: c.uuid })),
    owner: p.owner ? pickText(p.owner.descriptions) : undefined,
    subType: p.subType,
    regNo: p.registrationNumber,
    regAuthority,
    nodeid: cfg.node.id,
    uri: datasetUrl(cfg, PROCESSES, h.uuid, h.version),
    dsType: 'Process' as const,
  });
}

/** The name a compliance reference shows: its own short description, else the known system name. */
export function complianceName(c: Ref): string | undefined {
  return pickText(c.descriptions) ?? (c.uuid ? KNOWN_COMPLIANCE[c.uuid] : undefined);
}

/** soda4LCA NodeInfo XML (NodeInfoResource, XML only), identical at /nodeinfo and /resource/nodeinfo. */
export function nodeInfoXml(cfg: ResolvedConfig): string {
  const n = cfg.node;
  const contact = [
    el('contact:centralContactPoint', n.contact.name),
    el('contact:email', n.contact.email),
    el('contact:phone', n.contact.phone),
    el('contact:www', n.contact.www),
  ].filter(Boolean);
  const lines = [
    el('nodeID', n.id),
    el('name', n.name),
    el('operator', n.operator),
    ...Object.entries(n.description).map(([lang, text]) => el('description', text, { 'xml:lang': lang })),
    el('baseURL', serviceBaseUrl(cfg)),
    contact.length ? `<administrativeContact>\n${contact.map((c) => `        ${c}`).join('\n')}\n    </administrativeContact>` : '',
  ].filter(Boolean);
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<nodeInfo xmlns="${SAPI.nodeInfo}" xmlns:contact="${SAPI.contact}">\n${lines.map((l) => `    ${l}`).join('\n')}\n</nodeInfo>\n`
  );
}

function englishFirst(names: readonly LangText[]): LangText[] {
  return [...names.filter((n) => n.lang === 'en'), ...names.filter((n) => n.lang !== 'en')];
}

function intYear(s: string | undefined): number | undefined {
  return s && /^\d{4}$/.test(s) ? Number(s) : undefined;
}

/** Drop undefined and empty-string values, keeping key order (Gson leaves nulls out). */
function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as T;
}
