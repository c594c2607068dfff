import { NS } from '../parse/ilcd.js';
import { at, attr, child, childrenOf } from '../parse/xml.js';
import type { Rule, RuleHit } from './types.js';

const P = NS.process;
const QREF = '/processDataSet/processInformation/quantitativeReference/referenceToReferenceFlow';

export const ecoReferenceFlow: Rule<'eco-reference-flow'> = {
  id: 'eco-reference-flow',
  level: 4,
  severity: 'error',
  description: 'The quantitative reference names an exchange that exists, references the product flow (declared unit) and has an amount.',
  source: 'DDR v2 draft B.9.2 (declared unit, required); product.md level 4 (reference to the declared unit); ilcd-epd-format.md §5',
  check({ root }) {
    const qref = at(root, [P, 'processInformation'], [P, 'quantitativeReference']);
    const ids = childrenOf(qref, P, 'referenceToReferenceFlow')
      .map((n) => n.text.trim())
      .filter(Boolean);
    if (ids.length === 0) {
      return [{ element: qref ? 'quantitativeReference' : 'processInformation', xpath: QREF, params: { case: 'missing' } }];
    }
    const exchanges = childrenOf(child(root, P, 'exchanges'), P, 'exchange');
    const hits: RuleHit<'eco-reference-flow'>[] = [];
    for (const id of ids) {
      const k = exchanges.findIndex((e) => attr(e, 'dataSetInternalID')?.trim() === id);
      const ex = exchanges[k];
      if (!ex) {
        hits.push({ element: 'referenceToReferenceFlow', xpath: QREF, params: { case: 'dangling', id } });
        continue;
      }
      const xp = `/processDataSet/exchanges/exchange[@dataSetInternalID='${id}']`;
      const flowRef = child(ex, P, 'referenceToFlowDataSet');
      if (!flowRef || !attr(flowRef, 'refObjectId')) {
        hits.push({ element: 'exchange', nth: k, xpath: `${xp}/referenceToFlowDataSet`, params: { case: 'no-flow', id } });
      }
      const amount = (child(ex, P, 'meanAmount') ?? child(ex, P, 'resultingAmount'))?.text.trim();
      if (!amount || Number.isNaN(Number(amount))) {
        hits.push({
          severity: 'warning' as const,
          element: 'exchange',
          nth: k,
          xpath: `${xp}/meanAmount`,
          params: { case: 'no-amount', id },
        });
      }
    }
    return hits;
  },
};
