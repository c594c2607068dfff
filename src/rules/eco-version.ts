import type { Rule } from './types.js';

export const ecoVersion: Rule<'eco-version'> = {
  id: 'eco-version',
  level: 4,
  severity: 'warning',
  description: 'common:dataSetVersion has the full NN.NN.NNN form.',
  source: 'DDR v2 draft C.3.2 (version required); ILCD Version type; soda4LCA writes NN.NN.NNN; pattern checked at level 2 by ilcd-version',
  check({ dataset }) {
    if (/^\d{2}\.\d{2}$/.test(dataset.version)) {
      return [
        {
          element: 'dataSetVersion',
          xpath: '/processDataSet/administrativeInformation/publicationAndOwnership/common:dataSetVersion',
          params: { version: dataset.version },
        },
      ];
    }
    return [];
  },
};
