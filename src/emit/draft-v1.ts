import type { Dataset } from '../catalog/build.js';
import type { ResolvedConfig } from '../config/load.js';
import { pickText, type Ref } from '../parse/extract.js';
import { complianceName } from './soda4lca.js';
import { renderEntry } from './list-entries.js';
import { jsonItemText, jsonWithTexts, type Part } from './stream.js';
import { EPD_DIRS, nodeUrl } from '../site/routes.js';

/**
 * One entry of `/v1/epds`: po-node's own design for the draft path set (no published shape
 * exists yet), documented by schemas/v1-epds.schema.json. Keys are absent when the dataset has no value.
 */
export interface V1Epd {
  uuid: string;
  version: string;
  name?: string;
  names: { lang: string; value: string }[];
  classifications: { system?: string; classes: { level: number; classId?: string; name: string }[] }[];
  referenceYear?: number;
  validUntil?: number;
  location?: string;
  publicationDate?: string;
  subType?: string;
  compliance: { uuid?: string; name?: string }[];
  owner?: { uuid?: string; name?: string };
  registrationNumber?: string;
  formatVersion: string;
  url: string;
}

export const V1_API_VERSION = 'po-node-v1-draft';

export function* v1ListJson(epds: readonly Dataset[], cfg: ResolvedConfig, entry = renderEntry): Generator<Part> {
  const n = epds.length;
  yield* jsonWithTexts(
    { apiVersion: V1_API_VERSION, nodeId: cfg.node.id, totalCount: n, startIndex: 0, pageSize: n, data: [] },
    'data',
    (function* () {
      for (let i = 0; i < epds.length; i++) {
        const d = epds[i]!;
        yield entry(i, () => jsonItemText(JSON.stringify(v1Item(d, cfg), null, 1), 1));
      }
    })(),
    1,
  );
  yield '\n';
}

function v1Item(d: Dataset, cfg: ResolvedConfig): V1Epd {
  const h = d.header;
  const p = h.process!;
  const item: V1Epd = {
    uuid: h.uuid,
    version: h.version,
    names: p.names,
    classifications: p.classifications,
    compliance: p.compliance.map((c) => refOut(c, complianceName(c))),
    formatVersion: p.formatVersion,
    url: nodeUrl(cfg, `${EPD_DIRS.v1}/${h.uuid}`),
  };
  const name = pickText(p.names);
  if (name) item.name = name;
  if (p.referenceYear && /^\d{4}$/.test(p.referenceYear)) item.referenceYear = Number(p.referenceYear);
  if (p.validUntil && /^\d{4}$/.test(p.validUntil)) item.validUntil = Number(p.validUntil);
  if (p.location) item.location = p.location;
  if (p.publicationDate) item.publicationDate = p.publicationDate;
  if (p.subType) item.subType = p.subType;
  if (p.owner) item.owner = refOut(p.owner, pickText(p.owner.descriptions));
  if (p.registrationNumber) item.registrationNumber = p.registrationNumber;
  // Stable key order regardless of which optional fields were set.
  const order: (keyof V1Epd)[] = [
    'uuid',
    'version',
    'name',
    'names',
    'classifications',
    'referenceYear',
    'validUntil',
    'location',
    'publicationDate',
    'subType',
    'compliance',
    'owner',
    'registrationNumber',
    'formatVersion',
    'url',
  ];
  return Object.fromEntries(order.filter((k) => item[k] !== undefined).map((k) => [k, item[k]])) as unknown as V1Epd;
}

function refOut(r: Ref, name: string | undefined): { uuid?: string; name?: string } {
  const o: { uuid?: string; name?: string } = {};
  if (r.uuid) o.uuid = r.uuid;
  if (name) o.name = name;
  return o;
}
