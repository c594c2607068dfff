import type { BuildResult } from '../build.js';
import type { ValidateResult } from '../pipeline/validate.js';
import type { Finding } from '../findings.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { Palette } from '../util/color.js';
import { findingFile, groupFindings } from './groups.js';

/** Locations of a group shown in the text report; the rest are counted. */
const FIRST_FILES = 3;

/**
 * Findings seen in one file only, by file, one line each: `  line:col  severity  message  rule-id`. Then findings
 * with the same rule and message in several files, one entry each with its count and first files
 * (src/report/groups.ts): the text stays readable on thousands of EPDs; --json and --report list every occurrence.
 */
export function formatFindings(findings: readonly Finding[], c: Palette, opts: { showInfo?: boolean } = {}): string {
  const shown = findings.filter((f) => opts.showInfo || f.severity !== 'info');
  const { single, groups } = groupFindings(shown);
  const byFile = new Map<string, Finding[]>();
  for (const f of single) {
    const key = findingFile(f);
    const g = byFile.get(key);
    if (g) g.push(f);
    else byFile.set(key, [f]);
  }
  const out: string[] = [];
  for (const [file, list] of byFile) {
    out.push(c.bold(file));
    for (const f of list) {
      out.push(`  ${position(f).padEnd(8)} ${severity(f, c)}  ${f.message}  ${c.dim(f.ruleId)}`);
      if (f.xpath) out.push(`  ${''.padEnd(8)}          ${c.dim(`at ${f.xpath}`)}`);
    }
    out.push('');
  }
  if (groups.length) {
    const total = groups.reduce((s, g) => s + g.findings.length, 0);
    const head = `In several files: ${n(total, 'finding')} in ${n(groups.length, 'group')}`;
    out.push(c.bold(`${head} (every occurrence: --json or --report <file>)`));
    for (const g of groups) {
      const first = g.findings.slice(0, FIRST_FILES).map((f) => `${findingFile(f)}${position(f) ? `:${position(f)}` : ''}`);
      const more = g.findings.length > FIRST_FILES ? ', ...' : '';
      const times = g.findings.length > g.files ? `${count(g.findings.length)} times in ` : '';
      out.push(`  ${severity(g.findings[0]!, c)}  ${g.message}  ${c.dim(g.ruleId)}`);
      out.push(`           ${times}${count(g.files)} files: ${first.join(', ')}${more}`);
      if (g.xpath) out.push(`           ${c.dim(`at ${g.xpath}`)}`);
    }
    out.push('');
  }
  return out.join('\n');
}

// libxml2 gives no column: show the line alone rather than a made-up 0.
function position(f: Finding): string {
  return f.line ? (f.col ? `${f.line}:${f.col}` : `${f.line}`) : '';
}

function severity(f: Finding, c: Palette): string {
  return f.severity === 'error' ? c.red('error  ') : f.severity === 'warning' ? c.yellow('warning') : c.dim('info   ');
}

/** The end-of-build summary a person reads first. */
export function formatBuildSummary(r: BuildResult, c: Palette): string {
  const s = r.summary;
  const lines: string[] = [];
  const rejected = s.rejected ? c.red(`${s.rejected} rejected`) : '0 rejected';
  lines.push(
    `${n(s.files, 'file')} read: ${n(s.datasets, 'dataset')}, ${c.bold(n(s.epds, 'EPD'))} listed, ${rejected}, ${s.skipped} skipped, ${s.superseded} superseded`,
  );
  // A no-op rebuild read nothing: the counts of the last build, as health has them.
  lines.push(...referencesAndCounts(r.references ?? r.health?.references, s, c));
  if (r.written) {
    const status = r.status === 'ok' ? c.green('ok') : r.status === 'degraded' ? c.yellow('degraded') : c.red(r.status);
    lines.push(`Site written to ${c.bold(`${r.outDisplay}/`)} (health: ${status}) in ${(r.durationMs / 1000).toFixed(2)} s`);
    const k = r.cache;
    // In CI the line that shows whether the restored cache was hit.
    if (r.upToDate) lines.push(`Up to date: nothing changed since the last build (${n(k.byStat, 'input')} unchanged); site kept`);
    else if (k.byStat + k.byContent + k.fromSite + k.fromBlobs > 0) {
      // Kept copies of what is made, not copied: EPD pages, and ZIP exports with --zip-export.
      const blobs = k.fromBlobs ? `, ${k.fromBlobs} EPD pages and ZIP exports from the cache` : '';
      lines.push(`Incremental: ${k.byStat + k.byContent} inputs unchanged (${k.byContent} recognised by content), ${k.read} read${blobs}`);
    }
    if (r.paging) {
      const p = r.paging;
      lines.push(
        `Pre-paged lists (sizes ${p.pageSizes.join(', ')}): ${n(p.files, 'file')}, ${(p.bytes / 1e6).toFixed(1)} MB added (docs/hosting.md: which hosts page)`,
      );
    }
    if (r.precompressed) {
      const p = r.precompressed;
      lines.push(
        `Precompressed (${p.encodings.join(', ')}): ${n(p.files, 'file')}, ${(p.bytes / 1e6).toFixed(1)} MB added (docs/hosting.md: which hosts use them)`,
      );
    }
    if (r.deployDisplay)
      lines.push(`Host configs (${r.config.hosts.join(', ')}) written to ${c.bold(`${r.deployDisplay}/`)}; see docs/hosting.md`);
    if (r.health?.status === 'fail') for (const reason of r.health.reasons) lines.push(c.red(`  ${reason}`));
  } else {
    lines.push(c.red(`Site not written: --strict and ${s.errors} error(s); the previous site in ${r.outDisplay}/ is unchanged.`));
  }
  return lines.join('\n');
}

/** The closing lines of `po-node validate`: the counts of the build's read stage and a verdict. */
export function formatValidateSummary(r: ValidateResult, c: Palette): string {
  const s = r.summary;
  const rejected = s.rejected ? c.red(`${s.rejected} rejected`) : '0 rejected';
  const verdict = r.ok ? c.green('No errors.') : c.red(`${n(s.errors, 'error')}: the files above would be rejected by po-node build.`);
  return [
    `${n(s.files, 'file')} validated: ${n(s.datasets, 'dataset')}, ${c.bold(n(s.epds, 'EPD'))}, ${rejected}, ` +
      `${s.skipped} skipped, ${s.superseded} superseded`,
    ...referencesAndCounts(r.references, s, c),
    verdict,
  ].join('\n');
}

/** Reference resolution (when an EPD has references) and the error and warning counts, as build and validate show them. */
function referencesAndCounts(
  refs: Pick<ReferenceReport, 'total' | 'resolved' | 'missing' | 'external'> | undefined,
  s: { errors: number; warnings: number },
  c: Palette,
): string[] {
  const lines: string[] = [];
  if (refs?.total) {
    const miss = refs.missing ? c.yellow(`${refs.missing} missing`) : '0 missing';
    lines.push(
      `References of the EPDs: ${refs.resolved} of ${refs.total} resolved, ${miss}${refs.external ? `, ${refs.external} web links not checked` : ''} (docs/dependencies.md)`,
    );
  }
  lines.push(`${s.errors ? c.red(n(s.errors, 'error')) : '0 errors'}, ${s.warnings ? c.yellow(n(s.warnings, 'warning')) : '0 warnings'}`);
  return lines;
}

/** "1 file", "2 files". */
function n(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** 3000 → "3,000": the same on every machine. */
function count(k: number): string {
  return String(k).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
