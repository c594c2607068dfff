import type { Rule } from './types.js';

const XPATH = '/processDataSet/modellingAndValidation/LCIMethodAndAllocation/common:other/epd:subType';
export const SUBTYPES = ['specific dataset', 'average dataset', 'representative dataset', 'template dataset', 'generic dataset'];

export const ecoSubtype: Rule<'eco-subtype'> = {
  id: 'eco-subtype',
  level: 4,
  severity: 'warning',
  description: 'epd:subType (dataset specificity) is present and one of the ILCD+EPD values.',
  source: 'DDR v2 draft C.1.4 (dataset specificity, required); EPD_Extensions_2013.xsd SubTypeValues',
  check({ process }) {
    const s = process.subType;
    if (s === undefined) return [{ element: 'LCIMethodAndAllocation', xpath: XPATH, params: { case: 'missing', allowed: SUBTYPES } }];
    if (!SUBTYPES.includes(s))
      return [{ severity: 'error', element: 'subType', xpath: XPATH, params: { case: 'invalid', value: s, allowed: SUBTYPES } }];
    return [];
  },
};
