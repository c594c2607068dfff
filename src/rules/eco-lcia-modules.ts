import type { Rule, RuleHit } from './types.js';

/** Binding module codes (InData Technical Details guide). */
export const MODULES = ['A1', 'A2', 'A3', 'A1-A3', 'A4', 'A5', 'B1', 'B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'C1', 'C2', 'C3', 'C4', 'D'];
const XPATH = '/processDataSet/LCIAResults/LCIAResult/common:other/epd:amount';

export const ecoLciaModules: Rule<'eco-lcia-modules'> = {
  id: 'eco-lcia-modules',
  level: 4,
  severity: 'warning',
  description: 'LCIA results carry per-module values (epd:amount with a valid epd:module).',
  source: 'product.md level 4 (module results present); DDR v2 draft F.1.1; ilcd-epd-format.md §4 (module codes)',
  // Read from the body facts: the index-only read scans them without parsing the LCIA results (src/parse/body.ts).
  check({ body }) {
    const results = body.lciaResults;
    const amounts = body.amountModules;
    if (amounts.length === 0) {
      return [{ element: results ? 'LCIAResults' : 'exchanges', xpath: XPATH, params: { case: results ? 'no-amounts' : 'no-results' } }];
    }
    const hits: RuleHit<'eco-lcia-modules'>[] = [];
    const bad = new Set<string>();
    for (const m of amounts) {
      if (m === undefined || m === '') bad.add('(missing)');
      else if (!MODULES.includes(m)) bad.add(m);
    }
    if (bad.size) {
      hits.push({
        element: 'LCIAResults',
        xpath: `${XPATH}/@epd:module`,
        params: { case: 'unknown-modules', modules: [...bad], allowed: MODULES },
      });
    }
    return hits;
  },
};
