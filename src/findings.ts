/** Findings are data: checks create them, reporters render them. */
export type Severity = 'error' | 'warning' | 'info';

/** A finding's parameters (JSON-safe): what its message says, as data (src/messages/catalog.ts renders them). */
export type ParamValue = string | number | boolean | readonly string[];
export type Params = Readonly<Record<string, ParamValue | undefined>>;

export interface Finding {
  /** The finding's code: a stable kebab-case id, e.g. `xml-doctype`; catalogued in src/messages/catalog.ts, documented in docs/rules.md. */
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
  /** The values the message is rendered from (`case` names the code's wording); see src/messages/catalog.ts. */
  params?: Params;
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
