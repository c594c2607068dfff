import type { Rule } from './types.js';

export const ecoClassification: Rule<'eco-classification'> = {
  id: 'eco-classification',
  level: 4,
  severity: 'warning',
  description: 'At least one classification with at least one class is present.',
  source:
    'DDR v2 draft (Freeclass classID/class name, required); ECO Platform mandatory classification for ECO EPDs; ECO Portal API search field',
  check({ process }) {
    if (process.classifications.some((c) => c.classes.some((k) => k.name !== ''))) return [];
    return [
      {
        element: 'dataSetInformation',
        xpath: '/processDataSet/processInformation/dataSetInformation/classificationInformation/common:classification',
        params: {},
      },
    ];
  },
};
