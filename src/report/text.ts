import type { BuildResult } from '../build.js';
import type { ValidateResult } from '../check.js';
import type { Finding } from '../findings.js';
import type { Palette } from './color.js';

/** Findings grouped by file, one line each: `  line:col  severity  message  rule-id`. */
export function formatFindings(findings: readonly Finding[], c: Palette, opts: { showInfo?: boolean } = {}): string {
  const shown = findings.filter((f) => opts.showInfo || f.severity !== 'info');
  const groups = new Map<string, Finding[]>();
  for (const f of shown) {
    const key = f.file ? (f.entry ? `${f.file}!${f.entry}` : f.file) : '(configuration)';
    const g = groups.get(key);
    if (g) g.push(f);
    else groups.set(key, [f]);
  }
  const out: string[] = [];
  for (const [file, list] of groups) {
    out.push(c.bold(file));
    for (const f of list) {
      // libxml2 gives no column: show the line alone rather than a made-up 0.
      const pos = f.line ? (f.col ? `${f.line}:${f.col}` : `${f.line}`) : '';
      const sev = f.severity === 'error' ? c.red('error  ') : f.severity === 'warning' ? c.yellow('warning') : c.dim('info   ');
      out.push(`  ${pos.padEnd(8)} ${sev}  ${f.message}  ${c.dim(f.ruleId)}`);
      if (f.xpath) out.push(`  ${''.padEnd(8)}          ${c.dim(`at ${f.xpath}`)}`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** The end-of-build summary a person reads first. */
export function formatBuildSummary(r: BuildResult, c: Palette): string {
  const s = r.summary;
  const lines: string[] = [];
  const rejected = s.rejected ? c.red(`${s.rejected} rejected`) : '0 rejected';
  lines.push(`${n(s.files, 'file')} read: ${n(s.datasets, 'dataset')}, ${c.bold(n(s.epds, 'EPD'))} listed, ${rejected}, ${s.skipped} skipped, ${s.superseded} superseded`);
  const refs = r.references;
  if (refs.total) {
    const miss = refs.missing ? c.yellow(`${refs.missing} missing`) : '0 missing';
    lines.push(`References of the EPDs: ${refs.resolved} of ${refs.total} resolved, ${miss}${refs.external ? `, ${refs.external} web links not checked` : ''} (docs/dependencies.md)`);
  }
  lines.push(`${s.errors ? c.red(n(s.errors, 'error')) : '0 errors'}, ${s.warnings ? c.yellow(n(s.warnings, 'warning')) : '0 warnings'}`);
  if (r.written) {
    const status = r.status === 'ok' ? c.green('ok') : r.status === 'degraded' ? c.yellow('degraded') : c.red(r.status);
    lines.push(`Site written to ${c.bold(`${r.outDisplay}/`)} (health: ${status}) in ${(r.durationMs / 1000).toFixed(2)} s`);
    const k = r.cache;
    // In CI the line that shows whether the restored cache was hit.
    if (k.byStat + k.byContent + k.fromSite + k.fromBlobs > 0) {
      const blobs = k.fromBlobs ? `, ${n(k.fromBlobs, 'ZIP export')} from the cache` : '';
      lines.push(`Incremental: ${k.byStat + k.byContent} inputs unchanged (${k.byContent} recognised by content), ${k.read} read${blobs}`);
    }
    if (r.deployDisplay) lines.push(`Host configs (${r.config.hosts.join(', ')}) written to ${c.bold(`${r.deployDisplay}/`)}; see docs/hosting.md`);
    if (r.health?.status === 'fail') for (const reason of r.health.reasons) lines.push(c.red(`  ${reason}`));
  } else {
    lines.push(c.red(`Site not written: --strict and ${s.errors} error(s); the previous site in ${r.outDisplay}/ is unchanged.`));
  }
  return lines.join('\n');
}

/** The closing lines of `po-node validate`. */
export function formatValidateSummary(r: ValidateResult, c: Palette): string {
  const rejected = r.rejected ? c.red(`${r.rejected} rejected`) : '0 rejected';
  const verdict = r.ok ? c.green('No errors.') : c.red(`${r.errors} error(s): the files above would be rejected by po-node build.`);
  return `${n(r.files, 'file')} checked: ${n(r.datasets, 'dataset')}, ${c.bold(n(r.epds, 'EPD'))}, ${rejected}\n${r.errors ? c.red(n(r.errors, 'error')) : '0 errors'}, ${r.warnings ? c.yellow(n(r.warnings, 'warning')) : '0 warnings'}\n${verdict}`;
}

/** "1 file", "2 files". */
function n(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
