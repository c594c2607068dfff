import { append } from './util/append.js';

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
  // By file first, as groups: most findings share their file with others (the missing references of an EPD), and
  // comparing long paths with long common prefixes was most of the sort (138,000 findings at 10,000 EPDs). The same
  // order as one stable sort by all the keys: a group keeps its findings' order, then is sorted by the rest.
  const byFile = new Map<string, Finding[]>();
  // Indexed: these loops run once per build, mostly before V8 optimises them (docs/performance.md, "Loops that run once").
  for (let i = 0; i < findings.length; i++) {
    const f = findings[i]!;
    const k = f.file ?? '';
    const g = byFile.get(k);
    if (g) g.push(f);
    else byFile.set(k, [f]);
  }
  const out: Finding[] = [];
  const files = [...byFile.keys()].sort(cmp);
  for (let i = 0; i < files.length; i++) {
    const g = byFile.get(files[i]!)!;
    if (g.length > 1) g.sort(inFile);
    append(out, g);
  }
  return out;
}

/** The order of findings of one file. */
function inFile(a: Finding, b: Finding): number {
  return (
    cmp(a.entry ?? '', b.entry ?? '') ||
    (a.line ?? 0) - (b.line ?? 0) ||
    severityRank[a.severity] - severityRank[b.severity] ||
    cmp(a.ruleId, b.ruleId) ||
    cmp(a.message, b.message)
  );
}

export function countFindings(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (let i = 0; i < findings.length; i++) counts[findings[i]!.severity]++;
  return counts;
}

/** Code-point comparison: locale-independent, so output is the same on every machine. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
