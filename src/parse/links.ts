import type { DatasetType } from './ilcd.js';
import { NS } from './ilcd.js';
import { type Ref, ref } from './ref.js';
import { at, attr, child, childrenOf, type XNode } from './xml.js';

/** The links needed to resolve an EPD's declared unit and its documents (ilcd-epd-format.md §1, §5). */
export interface DatasetLinks {
  /** Process: the reference exchange's flow and amount. */
  referenceFlow?: { ref: Ref; meanAmount?: string };
  /** Flow: the reference flow property and the flow's amount of it. */
  referenceFlowProperty?: { ref: Ref; meanValue?: string };
  /** Flow property: its unit group. */
  referenceUnitGroup?: Ref;
  /** Unit group: the name of its reference unit (the declared unit, e.g. m2). */
  referenceUnit?: string;
  /** Source: `referenceToDigitalFile/@uri`, as written (bare name, relative path or URL). */
  digitalFiles?: { uri: string; xpath: string }[];
}

const byInternalId = (nodes: XNode[], id: string | undefined) =>
  id === undefined ? undefined : nodes.find((n) => attr(n, 'dataSetInternalID')?.trim() === id);
const text = (n: XNode | undefined) => n?.text.trim() || undefined;

export function extractLinks(type: DatasetType, root: XNode): DatasetLinks {
  const out: DatasetLinks = {};
  if (type === 'process') {
    const P = NS.process;
    const id = text(at(root, [P, 'processInformation'], [P, 'quantitativeReference'], [P, 'referenceToReferenceFlow']));
    const ex = byInternalId(childrenOf(child(root, P, 'exchanges'), P, 'exchange'), id);
    const flow = child(ex, P, 'referenceToFlowDataSet');
    if (flow && id !== undefined) {
      const r = ref(flow, `/processDataSet/exchanges/exchange[@dataSetInternalID='${id}']/referenceToFlowDataSet`);
      out.referenceFlow = { ref: r, ...(text(child(ex, P, 'meanAmount')) ? { meanAmount: text(child(ex, P, 'meanAmount'))! } : {}) };
    }
  } else if (type === 'flow') {
    const F = NS.flow;
    const id = text(at(root, [F, 'flowInformation'], [F, 'quantitativeReference'], [F, 'referenceToReferenceFlowProperty']));
    const fp = byInternalId(childrenOf(child(root, F, 'flowProperties'), F, 'flowProperty'), id);
    const r = child(fp, F, 'referenceToFlowPropertyDataSet');
    if (r && id !== undefined) {
      const mean = text(child(fp, F, 'meanValue'));
      out.referenceFlowProperty = {
        ref: ref(r, `/flowDataSet/flowProperties/flowProperty[@dataSetInternalID='${id}']/referenceToFlowPropertyDataSet`),
        ...(mean ? { meanValue: mean } : {}),
      };
    }
  } else if (type === 'flowproperty') {
    const F = NS.flowProperty;
    const r = at(root, [F, 'flowPropertiesInformation'], [F, 'quantitativeReference'], [F, 'referenceToReferenceUnitGroup']);
    if (r)
      out.referenceUnitGroup = ref(r, '/flowPropertyDataSet/flowPropertiesInformation/quantitativeReference/referenceToReferenceUnitGroup');
  } else if (type === 'unitgroup') {
    const U = NS.unitGroup;
    const id = text(at(root, [U, 'unitGroupInformation'], [U, 'quantitativeReference'], [U, 'referenceToReferenceUnit']));
    const unit = byInternalId(childrenOf(child(root, U, 'units'), U, 'unit'), id);
    const name = text(child(unit, U, 'name'));
    if (name) out.referenceUnit = name;
  } else if (type === 'source') {
    const S = NS.source;
    const dsi = at(root, [S, 'sourceInformation'], [S, 'dataSetInformation']);
    const files = childrenOf(dsi, S, 'referenceToDigitalFile')
      .map((n, i) => ({
        uri: attr(n, 'uri')?.trim() ?? '',
        xpath: `/sourceDataSet/sourceInformation/dataSetInformation/referenceToDigitalFile[${i + 1}]/@uri`,
      }))
      .filter((f) => f.uri !== '');
    if (files.length) out.digitalFiles = files;
  }
  return out;
}
