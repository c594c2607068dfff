import type { Rule } from './types.js';

const XPATH = '/processDataSet/processInformation/time/common:other/epd2:publicationDateOfEPD';

export const ecoPublicationDate: Rule<'eco-publication-date'> = {
  id: 'eco-publication-date',
  level: 4,
  severity: 'warning',
  description: 'epd2:publicationDateOfEPD is present and an ISO 8601 date (YYYY-MM-DD).',
  source: 'DDR v2 draft B.10.5 (publication date, ISO 8601, required); ILCD+EPD v1.2 EPD_Extensions_2019.xsd (xs:date)',
  check({ process }) {
    const d = process.publicationDate;
    if (d === undefined) {
      return [{ element: 'time', xpath: XPATH, params: { case: 'missing' } }];
    }
    if (!/^\d{4}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$/.test(d) || Number.isNaN(Date.parse(d.slice(0, 10)))) {
      return [{ severity: 'error', element: 'publicationDateOfEPD', xpath: XPATH, params: { case: 'invalid', value: d } }];
    }
    return [];
  },
};
