import type { Rule } from './types.js';

const XPATH = '/processDataSet/processInformation/geography/locationOfOperationSupplyOrProduction/@location';
// ILCD location codes: ISO 3166-1 alpha-2 (optionally with a subdivision), and the ILCDLocations.xml regions.
const CODE = /^(?:[A-Z]{2}(?:-[A-Z0-9]{1,3})?|GLO|RoW|RER|RNA|RLA|RAS|RAF|RME|WEU|OCE|EU-\d{2}(?:\+\d)?|EFTA|UN-[A-Z]+)$/;

export const ecoLocation: Rule<'eco-location'> = {
  id: 'eco-location',
  level: 4,
  severity: 'warning',
  description:
    'The location of operation/supply/production is given as an ILCD location code (ISO 3166 country such as DE, or a region such as RER, GLO).',
  source: 'DDR v2 draft B.11.1.1 (region, ISO 3166 / UN M49, required); ILCD ILCDLocations.xml; ECO Portal API search field "location"',
  check({ process }) {
    const loc = process.location;
    if (loc === undefined) return [{ element: 'geography', near: 'processInformation', xpath: XPATH, params: { case: 'missing' } }];
    if (!CODE.test(loc))
      return [
        {
          element: 'locationOfOperationSupplyOrProduction',
          xpath: XPATH,
          params: { case: 'invalid', value: loc.length > 40 ? `${loc.slice(0, 37)}...` : loc },
        },
      ];
    return [];
  },
};
