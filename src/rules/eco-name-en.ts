import type { Rule } from './types.js';

export const ecoNameEn: Rule<'eco-name-en'> = {
  id: 'eco-name-en',
  level: 4,
  severity: 'warning',
  description: 'At least one name/baseName is in English (xml:lang="en", or no xml:lang, which ILCD reads as English).',
  source: 'ECO Portal is searched in English; DDR v2 draft B.1.2.1 (product name); ILCD default xml:lang "en"',
  check({ process }) {
    if (process.names.length === 0 || process.names.some((n) => n.lang === 'en' || n.lang.startsWith('en-'))) return [];
    return [
      {
        element: 'baseName',
        xpath: '/processDataSet/processInformation/dataSetInformation/name/baseName',
        params: { languages: process.names.map((n) => n.lang) },
      },
    ];
  },
};
