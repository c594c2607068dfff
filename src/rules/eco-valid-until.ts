import type { Rule } from './types.js';

const XPATH = '/processDataSet/processInformation/time/common:dataSetValidUntil';

export const ecoValidUntil: Rule = {
  id: 'eco-valid-until',
  level: 4,
  severity: 'warning',
  description: 'common:dataSetValidUntil is present, a four-digit year, and not in the past.',
  source: 'DDR v2 draft B.10.2 (valid until, required); ILCD Common_DataTypes (xs:gYear); ECO Portal API search field "valid until"',
  check({ process, now }) {
    const v = process.validUntil;
    if (v === undefined) return [{ element: 'time', xpath: XPATH, params: { case: 'missing' } }];
    if (!/^\d{4}$/.test(v)) {
      return [{ severity: 'error', element: 'dataSetValidUntil', xpath: XPATH, params: { case: 'invalid', value: v } }];
    }
    if (Number(v) < now.getUTCFullYear()) {
      return [{ element: 'dataSetValidUntil', xpath: XPATH, params: { case: 'expired', year: v } }];
    }
    return [];
  },
};
