/** ILCD namespaces and dataset types: the one table every stage reads. */
export const NS = {
  process: 'http://lca.jrc.it/ILCD/Process',
  common: 'http://lca.jrc.it/ILCD/Common',
  flow: 'http://lca.jrc.it/ILCD/Flow',
  flowProperty: 'http://lca.jrc.it/ILCD/FlowProperty',
  unitGroup: 'http://lca.jrc.it/ILCD/UnitGroup',
  contact: 'http://lca.jrc.it/ILCD/Contact',
  source: 'http://lca.jrc.it/ILCD/Source',
  lciaMethod: 'http://lca.jrc.it/ILCD/LCIAMethod',
  categories: 'http://lca.jrc.it/ILCD/Categories',
  epd: 'http://www.iai.kit.edu/EPD/2013',
  epd2: 'http://www.indata.network/EPD/2019',
  okworxProfile: 'http://www.okworx.com/ILCD/Extensions/2018/Profile',
} as const;

export type DatasetType = 'process' | 'flow' | 'flowproperty' | 'unitgroup' | 'contact' | 'source' | 'lciamethod';

export interface DatasetTypeInfo {
  type: DatasetType;
  /** Root element local name. */
  root: string;
  ns: string;
  /** First child of the root holding dataSetInformation. */
  info: string;
  /** soda4LCA resource folder: `/resource/<folder>/<uuid>`. */
  folder: string;
  /** Label as soda4LCA writes it in `@type` of references. */
  label: string;
}

export const DATASET_TYPES: readonly DatasetTypeInfo[] = [
  { type: 'process', root: 'processDataSet', ns: NS.process, info: 'processInformation', folder: 'processes', label: 'process data set' },
  { type: 'flow', root: 'flowDataSet', ns: NS.flow, info: 'flowInformation', folder: 'flows', label: 'flow data set' },
  {
    type: 'flowproperty',
    root: 'flowPropertyDataSet',
    ns: NS.flowProperty,
    info: 'flowPropertiesInformation',
    folder: 'flowproperties',
    label: 'flow property data set',
  },
  {
    type: 'unitgroup',
    root: 'unitGroupDataSet',
    ns: NS.unitGroup,
    info: 'unitGroupInformation',
    folder: 'unitgroups',
    label: 'unit group data set',
  },
  { type: 'contact', root: 'contactDataSet', ns: NS.contact, info: 'contactInformation', folder: 'contacts', label: 'contact data set' },
  { type: 'source', root: 'sourceDataSet', ns: NS.source, info: 'sourceInformation', folder: 'sources', label: 'source data set' },
  {
    type: 'lciamethod',
    root: 'LCIAMethodDataSet',
    ns: NS.lciaMethod,
    info: 'LCIAMethodInformation',
    folder: 'lciamethods',
    label: 'LCIA method data set',
  },
];

export function typeInfo(type: DatasetType): DatasetTypeInfo {
  return DATASET_TYPES.find((t) => t.type === type)!;
}

/** RFC 4122 textual form; checked before a UUID from a file is ever used in a path. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ILCD dataSetVersion: `NN.NN[.NNN]` (ILCD_Common_DataTypes.xsd, type Version). */
export const VERSION_RE = /^\d{2}\.\d{2}(\.\d{3})?$/;

/** Compare two ILCD versions numerically, part by part. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

/** Names of well-known compliance systems by source UUID (InData doc/identifiers/Common_references.csv). */
export const KNOWN_COMPLIANCE: Readonly<Record<string, string>> = {
  'b00f9ec0-7874-11e3-981f-0800200c9a66': 'EN 15804+A1',
  'c0016b33-8cf7-415c-ac6e-deba0d21440d': 'EN 15804+A2',
  'd4aa3ec7-b1d7-4a4a-a6cb-37af88dcc902': 'EN 15804+A2 (EF 3.1)',
  '4f2eb655-6e44-4874-a95a-e28f5442cd4d': 'ISO 14025',
  '9c1e8451-2321-4498-b459-b6568b6b6547': 'ISO 21930',
};
