import type { Rule } from './types.js';

// The DDR exempts generic and representative data (and templates are not real declarations).
const EXEMPT = ['generic dataset', 'representative dataset', 'template dataset'];

export const ecoRegistrationNumber: Rule<'eco-registration-number'> = {
  id: 'eco-registration-number',
  level: 4,
  severity: 'warning',
  description: 'common:registrationNumber is present, unless the EPD is generic, representative or a template.',
  source: 'DDR v2 draft D.4.6 (registration number, required except generic/representative)',
  check({ process }) {
    if (process.registrationNumber !== undefined || (process.subType && EXEMPT.includes(process.subType))) return [];
    return [
      {
        element: 'publicationAndOwnership',
        xpath: '/processDataSet/administrativeInformation/publicationAndOwnership/common:registrationNumber',
        params: {},
      },
    ];
  },
};
