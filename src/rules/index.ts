import type { Finding } from '../findings.js';
import { findingOf } from '../messages/finding.js';
import { locateIn } from '../parse/locate.js';
import { ecoClassification } from './eco-classification.js';
import { ecoCompliance } from './eco-compliance.js';
import { ecoLciaModules } from './eco-lcia-modules.js';
import { ecoLocation } from './eco-location.js';
import { ecoNameEn } from './eco-name-en.js';
import { ecoPublicationDate } from './eco-publication-date.js';
import { ecoReferenceFlow } from './eco-reference-flow.js';
import { ecoRegistrationNumber } from './eco-registration-number.js';
import { ecoSubtype } from './eco-subtype.js';
import { ecoUuid } from './eco-uuid.js';
import { ecoValidUntil } from './eco-valid-until.js';
import { ecoVersion } from './eco-version.js';
import type { Rule, RuleContext } from './types.js';

export type { Rule, RuleContext, RuleHit } from './types.js';

/** Level 4: ECO data-definition rules, in report order. Documented in docs/rules.md. */
export const RULES: readonly Rule[] = [
  ecoUuid,
  ecoVersion,
  ecoPublicationDate,
  ecoValidUntil,
  ecoLocation,
  ecoSubtype,
  ecoRegistrationNumber,
  ecoCompliance,
  ecoReferenceFlow,
  ecoClassification,
  ecoLciaModules,
  ecoNameEn,
];

/** Run the rules on one EPD process; a rule that throws becomes a finding, never a crashed build. */
export function runRules(ctx: RuleContext, rules: readonly Rule[] = RULES): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    let hits;
    try {
      hits = rule.check(ctx);
    } catch (e) {
      out.push(findingOf(rule.id, { case: 'crash', detail: (e as Error).message }, { severity: 'warning', file: ctx.file }));
      continue;
    }
    for (const h of hits) {
      // The element itself, else the nearest enclosing element the rule names (e.g. the parent of a missing field).
      // On the byte view where there is one: decoding a whole EPD for one line number cost more than reading it.
      const src = ctx.view ?? ctx.text;
      const pos = (h.element ? locateIn(src, h.element, h.nth ?? 0) : undefined) ?? (h.near ? locateIn(src, h.near) : undefined);
      const at = pos ? { line: pos.line, col: pos.col } : {};
      out.push(findingOf(rule.id, h.params, { severity: h.severity ?? rule.severity, file: ctx.file, ...at, xpath: h.xpath }));
    }
  }
  return out;
}
