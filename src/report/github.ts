import type { Finding, Severity } from '../findings.js';
import { sameFindings } from './groups.js';

type Kind = 'error' | 'warning' | 'notice';

/**
 * Annotations GitHub shows per step and kind: 10 errors, 10 warnings, 10 notices (and 50 per job); later ones are
 * dropped without a word (github.com/actions/toolkit, docs/problem-matchers.md, "Limitations").
 */
export const ANNOTATIONS_PER_KIND = 10;

const KIND: Record<Severity, Kind> = { error: 'error', warning: 'warning', info: 'notice' };

/**
 * GitHub Actions workflow commands `::error file=..,line=..,col=..,title=rule-id::message` (info findings become
 * `::notice`), at most what GitHub shows: per kind, one finding of each rule first, then of each distinct message
 * (the most frequent first), then further occurrences. When findings were left out, one `::notice` says how many and where
 * the rest is; the log above the annotations lists them grouped.
 */
export function formatGithub(findings: readonly Finding[], opts: { perKind?: number } = {}): string {
  const cap = opts.perKind ?? ANNOTATIONS_PER_KIND;
  const lines: string[] = [];
  const left: string[] = [];
  for (const severity of ['error', 'warning', 'info'] as const) {
    const of = findings.filter((f) => f.severity === severity);
    // One notice is kept for the summary of what was left out.
    const budget = severity === 'info' ? cap - 1 : cap;
    const picked = of.length > budget ? roundRobin(byRule(sameFindings(of)), budget, of) : of;
    for (const f of picked) lines.push(annotation(f));
    if (picked.length < of.length) left.push(`${picked.length} of ${of.length} ${severity === 'info' ? 'notes' : `${severity}s`}`);
  }
  if (left.length) {
    const msg =
      `Annotated ${left.join(', ')} (GitHub shows ${cap} of each kind per step); ` +
      'the log lists every finding, grouped, and --report <file> or --json writes them all.';
    lines.push(`::notice title=po-node::${data(msg)}\n`);
  }
  return lines.join('');
}

/**
 * Lists of the same message, most frequent first, interleaved by rule: every rule gets an annotation before any
 * rule gets a second one (3,000 EPDs missing 70 LCIA methods must not hide the one EPD without a name).
 */
function byRule(lists: Finding[][]): Finding[][] {
  const rules = new Map<string, Finding[][]>();
  for (const l of [...lists].sort((a, b) => b.length - a.length)) {
    const r = rules.get(l[0]!.ruleId);
    if (r) r.push(l);
    else rules.set(l[0]!.ruleId, [l]);
  }
  const out: Finding[][] = [];
  for (let i = 0; out.length < lists.length; i++) for (const r of rules.values()) if (r[i]) out.push(r[i]!);
  return out;
}

/** The first of each list, then the second of each, ... until n are taken; returned in report order. */
function roundRobin(lists: readonly Finding[][], n: number, all: readonly Finding[]): Finding[] {
  const taken = new Set<Finding>();
  for (let i = 0; taken.size < n; i++) {
    let any = false;
    for (const l of lists) {
      if (i >= l.length) continue;
      any = true;
      taken.add(l[i]!);
      if (taken.size === n) break;
    }
    if (!any) break;
  }
  return all.filter((f) => taken.has(f));
}

function annotation(f: Finding): string {
  const props: string[] = [];
  if (f.file) props.push(`file=${prop(f.entry ? `${f.file}!${f.entry}` : f.file)}`);
  if (f.line) props.push(`line=${f.line}`);
  if (f.col) props.push(`col=${f.col}`);
  props.push(`title=${prop(f.ruleId)}`);
  const msg = f.xpath ? `${f.message} (at ${f.xpath})` : f.message;
  return `::${KIND[f.severity]} ${props.join(',')}::${data(msg)}\n`;
}

// Escaping as in @actions/core (toCommandValue / escapeData / escapeProperty).
function data(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function prop(s: string): string {
  return data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
