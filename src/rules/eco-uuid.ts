import { NS } from '../parse/ilcd.js';
import { at } from '../parse/xml.js';
import type { Rule } from './types.js';

/** Malformed UUIDs are already rejected at level 2 (ilcd-uuid); this adds the canonical form. */
export const ecoUuid: Rule<'eco-uuid'> = {
  id: 'eco-uuid',
  level: 4,
  severity: 'warning',
  description: 'common:UUID is written in canonical lower-case form.',
  source: 'DDR v2 draft B.1.1 (UUID required); RFC 4122 text form; format checked at level 2 by ilcd-uuid',
  check({ dataset, root }) {
    const raw = at(root, [NS.process, 'processInformation'], [NS.process, 'dataSetInformation'], [NS.common, 'UUID'])?.text.trim() ?? '';
    if (raw && raw !== raw.toLowerCase()) {
      return [
        {
          element: 'UUID',
          xpath: '/processDataSet/processInformation/dataSetInformation/common:UUID',
          params: { value: raw, uuid: dataset.uuid },
        },
      ];
    }
    return [];
  },
};
