import { KNOWN_COMPLIANCE } from '../parse/ilcd.js';
import type { Rule } from './types.js';

/** EN 15804 compliance-system source UUIDs (InData doc/identifiers/Common_references.csv). */
export const EN15804 = [
  'b00f9ec0-7874-11e3-981f-0800200c9a66',
  'c0016b33-8cf7-415c-ac6e-deba0d21440d',
  'd4aa3ec7-b1d7-4a4a-a6cb-37af88dcc902',
];

export const ecoCompliance: Rule<'eco-compliance'> = {
  id: 'eco-compliance',
  level: 4,
  severity: 'warning',
  description: 'A compliance declaration references EN 15804+A1 or EN 15804+A2 by its InData source UUID.',
  source: 'product.md level 4 (compliance declarations); ilcd-epd-format.md §3 compliance UUIDs; InData Common_references.csv',
  check({ process }) {
    if (process.compliance.some((c) => c.uuid && EN15804.includes(c.uuid))) return [];
    const found = process.compliance.map((c) => (c.uuid && KNOWN_COMPLIANCE[c.uuid]) ?? c.descriptions[0]?.value ?? c.uuid).filter(Boolean);
    return [
      {
        element: found.length ? 'complianceDeclarations' : 'modellingAndValidation',
        xpath: '/processDataSet/modellingAndValidation/complianceDeclarations/compliance/common:referenceToComplianceSystem',
        params: { found: found as string[] },
      },
    ];
  },
};
