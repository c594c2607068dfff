import type { Finding } from '../findings.js';
import type { Palette } from '../util/color.js';
import { formatFindings } from '../report/text.js';

/** How build and validate print findings; loaded by their actions only (it pulls in the report formatters). */

/** --quiet keeps only errors. */
export function shownFindings(findings: readonly Finding[], o: { quiet?: boolean }): readonly Finding[] {
  return o.quiet ? findings.filter((f) => f.severity === 'error') : findings;
}

/** Findings grouped by file, followed by a blank line; empty when there is nothing to show. */
export function findingsText(findings: readonly Finding[], o: { quiet?: boolean; verbose?: boolean }, c: Palette): string {
  const text = formatFindings(shownFindings(findings, o), c, { showInfo: o.verbose ?? false });
  return text ? `${text}\n` : '';
}
