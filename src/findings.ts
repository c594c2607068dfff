/** Findings are data: checks create them, reporters render them. */
export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  /** Stable kebab-case id, e.g. `xml-doctype`; documented in docs/rules.md. */
  ruleId: string;
  severity: Severity;
  /** Input path as the user gave it (relative to the working directory, `/` separators). */
  file?: string;
  /** Entry inside an archive, when the file is a ZIP. */
  entry?: string;
  line?: number;
  col?: number;
  xpath?: string;
  /** One sentence for the person fixing the file: what is wrong, what was found, what to do. */
  message: string;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Stable order for every report: file, line, rule id, then message. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      cmp(a.file ?? '', b.file ?? '') ||
      cmp(a.entry ?? '', b.entry ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      severityRank[a.severity] - severityRank[b.severity] ||
      cmp(a.ruleId, b.ruleId) ||
      cmp(a.message, b.message),
  );
}

export function countFindings(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** Code-point comparison: locale-independent, so output is the same on every machine. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
