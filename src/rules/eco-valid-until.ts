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
    if (v === undefined) return [{ element: 'time', xpath: XPATH, message: 'No validity: add common:dataSetValidUntil (the year the EPD expires, e.g. 2030) to processInformation/time.' }];
    if (!/^\d{4}$/.test(v)) {
      return [{ severity: 'error', element: 'dataSetValidUntil', xpath: XPATH, message: `dataSetValidUntil "${v}" is not a year; write the four-digit year the EPD expires (e.g. 2030), as the portal filters on it.` }];
    }
    if (Number(v) < now.getUTCFullYear()) {
      return [{ element: 'dataSetValidUntil', xpath: XPATH, message: `The EPD expired in ${v}; it is still published, but replace it with a current version or remove it.` }];
    }
    return [];
  },
};
