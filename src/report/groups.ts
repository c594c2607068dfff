import { cmp, type Finding, type Severity } from '../findings.js';
import { inputLabel } from '../read/inputs.js';

/** Findings with the same severity, rule and message (the message names what is wrong, not where). */
export interface FindingGroup {
  severity: Severity;
  ruleId: string;
  message: string;
  /** Every occurrence, in report order (sortFindings). */
  findings: Finding[];
  /** Distinct files (ZIP entries count as files) the occurrences are in. */
  files: number;
  /** The XPath when every occurrence has the same one. */
  xpath?: string;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Where a finding is, as reports name it: `a.zip!ILCD/x.xml`, or `(configuration)`. */
export function findingFile(f: Finding): string {
  return f.file ? inputLabel({ path: f.file, ...(f.entry !== undefined ? { entry: f.entry } : {}) }) : '(configuration)';
}

/**
 * Split findings into those seen in one file only (listed per file, as they are) and groups of one severity,
 * rule and message seen in several files (one entry each). A corpus whose exports all leave out the same
 * LCIA method gets one line per missing dataset, not one per EPD and reference. Input order is kept in both;
 * groups come errors first, then by the number of files.
 */
export function groupFindings(findings: readonly Finding[]): { single: Finding[]; groups: FindingGroup[] } {
  const groups: FindingGroup[] = [];
  const grouped = new Set<Finding>();
  for (const list of sameFindings(findings)) {
    const files = new Set(list.map(findingFile)).size;
    if (files < 2) continue;
    const first = list[0]!;
    const xpath = list.every((f) => f.xpath === first.xpath) ? first.xpath : undefined;
    const { severity, ruleId, message } = first;
    groups.push({ severity, ruleId, message, findings: list, files, ...(xpath ? { xpath } : {}) });
    for (const f of list) grouped.add(f);
  }
  groups.sort(
    (a, b) =>
      severityRank[a.severity] - severityRank[b.severity] || b.files - a.files || cmp(a.ruleId, b.ruleId) || cmp(a.message, b.message),
  );
  return { single: findings.filter((f) => !grouped.has(f)), groups };
}

/** Findings of the same severity, rule and message, each list in input order; lists in order of first occurrence. */
export function sameFindings(findings: readonly Finding[]): Finding[][] {
  const byKey = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = `${f.severity}\0${f.ruleId}\0${f.message}`;
    const g = byKey.get(key);
    if (g) g.push(f);
    else byKey.set(key, [f]);
  }
  return [...byKey.values()];
}
