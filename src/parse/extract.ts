import type { Finding } from '../findings.js';
import { finding } from '../messages/finding.js';
import { DATASET_TYPES, NS, UUID_RE, VERSION_RE, type DatasetType } from './ilcd.js';
import { extractLinks, type DatasetLinks } from './links.js';
import { ref, texts, type LangText, type Ref } from './ref.js';
import { at, attr, child, childrenOf, type XNode } from './xml.js';

export { ref, refOf, type LangText, type Ref } from './ref.js';

export interface ClassificationInfo {
  /** `@name` of common:classification, e.g. `OEKOBAU.DAT`. */
  system?: string;
  /** Ordered by level (0 = top). */
  classes: { level: number; classId?: string; name: string }[];
}

/** The index fields of an EPD process (ilcd-epd-format.md §3); raw strings, checked by the rules. */
export interface ProcessIndex {
  names: LangText[];
  /**
   * The general comment in English, else the first language's (pickText): the EPD page's description, its only use.
   * Not every language: they were a quarter of the incremental-build cache (7.6 of 28.7 MB at 10,000 bench EPDs).
   * Absent when the EPD has none.
   */
  description?: string;
  classifications: ClassificationInfo[];
  location?: string;
  referenceYear?: string;
  validUntil?: string;
  publicationDate?: string;
  typeOfDataSet?: string;
  subType?: string;
  /** Compliance declarations: the referenced system and its common:approvalOfOverallCompliance. */
  compliance: (Ref & { overallCompliance?: string })[];
  owner?: Ref;
  licenseType?: string;
  publishers: Ref[];
  registrationAuthority?: Ref;
  registrationNumber?: string;
  /** `@epd2:epd-version`; `1.1` when absent (InData migration guide). */
  formatVersion: string;
  /** soda4LCA's okworx `@profile`, e.g. `EN_15804_A2`. */
  profile?: string;
}

export interface DatasetHeader {
  type: DatasetType;
  uuid: string;
  version: string;
  /** Display names per language (process baseName, or common:name / shortName of other types). */
  names: LangText[];
  /** Every GlobalReference in the dataset, for dependency resolution. */
  references: Ref[];
  /** Declared-unit chain and digital files (src/parse/links.ts). */
  links: DatasetLinks;
  process?: ProcessIndex;
}

export type ExtractResult = { ok: true; dataset: DatasetHeader } | { ok: false; findings: Omit<Finding, 'file'>[] };

const C = NS.common;

/** Read the dataset type, identity and index fields from a parsed ILCD document. */
export function extractDataset(root: XNode): ExtractResult {
  const info = DATASET_TYPES.find((t) => t.root === root.name && t.ns === root.ns);
  if (!info) {
    const where = root.ns ? `{${root.ns}}${root.name}` : root.name;
    const kind = root.ns.startsWith('http://lca.jrc.it/ILCD') ? 'ilcd-other' : 'not-ilcd';
    return { ok: false, findings: [{ ...finding('ilcd-root', { case: kind, root: where }), xpath: `/${root.name}` }] };
  }
  const ns = info.ns;
  const dsi = at(root, [ns, info.info], [ns, 'dataSetInformation']);
  const uuidNode = child(dsi, C, 'UUID');
  const uuidXpath = `/${root.name}/${info.info}/dataSetInformation/common:UUID`;
  const findings: Omit<Finding, 'file'>[] = [];
  const uuid = uuidNode?.text.trim() ?? '';
  if (!uuidNode || uuid === '') {
    findings.push({ ...finding('ilcd-uuid', { case: 'missing' }), xpath: uuidXpath });
  } else if (!UUID_RE.test(uuid)) {
    findings.push({ ...finding('ilcd-uuid', { case: 'invalid', value: clip(uuid) }), xpath: uuidXpath });
  }
  const versionXpath = `/${root.name}/administrativeInformation/publicationAndOwnership/common:dataSetVersion`;
  const version = at(root, [ns, 'administrativeInformation'], [ns, 'publicationAndOwnership'], [C, 'dataSetVersion'])?.text.trim() ?? '';
  if (version === '') {
    findings.push({ ...finding('ilcd-version', { case: 'missing' }), xpath: versionXpath });
  } else if (!VERSION_RE.test(version)) {
    findings.push({ ...finding('ilcd-version', { case: 'invalid', value: clip(version) }), xpath: versionXpath });
  }
  if (findings.length) return { ok: false, findings };

  const header: DatasetHeader = {
    type: info.type,
    uuid: uuid.toLowerCase(),
    version,
    names: info.type === 'process' ? texts(childrenOf(child(dsi, ns, 'name'), ns, 'baseName')) : otherNames(dsi, ns),
    references: collectRefs(root),
    links: extractLinks(info.type, root),
  };
  if (info.type === 'process') header.process = processIndex(root, dsi, header.names);
  return { ok: true, dataset: header };
}

function described(comments: LangText[]): { description?: string } {
  const description = pickText(comments);
  return description === undefined ? {} : { description };
}

function processIndex(root: XNode, dsi: XNode | undefined, names: LangText[]): ProcessIndex {
  const P = NS.process;
  const pi = child(root, P, 'processInformation');
  const time = child(pi, P, 'time');
  const mv = child(root, P, 'modellingAndValidation');
  const lci = child(mv, P, 'LCIMethodAndAllocation');
  const pao = at(root, [P, 'administrativeInformation'], [P, 'publicationAndOwnership']);
  const base = `/processDataSet`;
  const index: ProcessIndex = {
    names,
    ...described(texts(childrenOf(dsi, C, 'generalComment'))),
    classifications: childrenOf(child(dsi, P, 'classificationInformation'), C, 'classification').map((c) => {
      const system = attr(c, 'name')?.trim();
      const classes = childrenOf(c, C, 'class')
        .map((k) => {
          const classId = attr(k, 'classId')?.trim();
          return { level: Number(attr(k, 'level') ?? 0), ...(classId ? { classId } : {}), name: k.text.trim() };
        })
        .sort((a, b) => a.level - b.level);
      return { ...(system ? { system } : {}), classes };
    }),
    compliance: childrenOf(child(mv, P, 'complianceDeclarations'), P, 'compliance').flatMap((c) => {
      const r = child(c, C, 'referenceToComplianceSystem');
      if (!r) return [];
      const overall = child(c, C, 'approvalOfOverallCompliance')?.text.trim();
      const out: Ref & { overallCompliance?: string } = ref(
        r,
        `${base}/modellingAndValidation/complianceDeclarations/compliance/common:referenceToComplianceSystem`,
      );
      if (overall) out.overallCompliance = overall;
      return [out];
    }),
    publishers: childrenOf(child(pao, C, 'other'), NS.epd2, 'referenceToPublisher').map((r) =>
      ref(r, `${base}/administrativeInformation/publicationAndOwnership/common:other/epd2:referenceToPublisher`),
    ),
    formatVersion: attr(root, 'epd-version', NS.epd2)?.trim() || '1.1',
  };
  const set = <K extends keyof ProcessIndex>(k: K, v: ProcessIndex[K] | undefined) => {
    if (v !== undefined && v !== '') index[k] = v;
  };
  set('location', attr(at(pi, [P, 'geography'], [P, 'locationOfOperationSupplyOrProduction']), 'location')?.trim());
  set('referenceYear', child(time, C, 'referenceYear')?.text.trim());
  set('validUntil', child(time, C, 'dataSetValidUntil')?.text.trim());
  set('publicationDate', child(child(time, C, 'other'), NS.epd2, 'publicationDateOfEPD')?.text.trim());
  set('typeOfDataSet', child(lci, P, 'typeOfDataSet')?.text.trim());
  set('subType', child(child(lci, C, 'other'), NS.epd, 'subType')?.text.trim());
  set('registrationNumber', child(pao, C, 'registrationNumber')?.text.trim());
  set('licenseType', child(pao, C, 'licenseType')?.text.trim());
  const owner = child(pao, C, 'referenceToOwnershipOfDataSet');
  if (owner) index.owner = ref(owner, `${base}/administrativeInformation/publicationAndOwnership/common:referenceToOwnershipOfDataSet`);
  const authority = child(pao, C, 'referenceToRegistrationAuthority');
  if (authority)
    index.registrationAuthority = ref(
      authority,
      `${base}/administrativeInformation/publicationAndOwnership/common:referenceToRegistrationAuthority`,
    );
  set('profile', attr(root, 'profile', NS.okworxProfile)?.trim());
  return index;
}

/** Names of non-process datasets: flows use name/baseName, the others common:name or common:shortName. */
function otherNames(dsi: XNode | undefined, ns: string): LangText[] {
  const flowNames = childrenOf(child(dsi, ns, 'name'), ns, 'baseName');
  if (flowNames.length) return texts(flowNames);
  const names = childrenOf(dsi, C, 'name');
  return texts(names.length ? names : childrenOf(dsi, C, 'shortName'));
}

/** Every element carrying `@refObjectId` and `@type`: the dataset's outgoing references. */
function collectRefs(root: XNode): Ref[] {
  const out: Ref[] = [];
  const walk = (n: XNode, path: string) => {
    for (const c of n.children) {
      // Position among same-named siblings when there are several, so the XPath names one element.
      const same = n.children.filter((x) => x.name === c.name && x.ns === c.ns);
      const p = `${path}/${prefixFor(c.ns)}${c.name}${same.length > 1 ? `[${same.indexOf(c) + 1}]` : ''}`;
      if (c.attrs['refObjectId'] !== undefined && c.attrs['type'] !== undefined) {
        const r = ref(c, p);
        // Short descriptions are read only on references to sources (finding the EPD's PDF); dropping the
        // others keeps the index small: an EPD has hundreds of flow references (bounded memory, cache size).
        if (r.type?.toLowerCase() !== 'source data set') r.descriptions = [];
        out.push(r);
      }
      if (c.children.length) walk(c, p);
    }
  };
  walk(root, `/${root.name}`);
  return out;
}

const PREFIX: Record<string, string> = { [NS.common]: 'common:', [NS.epd]: 'epd:', [NS.epd2]: 'epd2:' };
function prefixFor(ns: string): string {
  return PREFIX[ns] ?? '';
}

/** A best display text: English first, then the first language given. */
export function pickText(texts: readonly LangText[], lang = 'en'): string | undefined {
  return (texts.find((t) => t.lang === lang) ?? texts.find((t) => t.lang.startsWith(lang)) ?? texts[0])?.value;
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
