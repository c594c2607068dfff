import type { Palette } from '../util/color.js';
import { INDEX_HTML, SITE_TOP_FOLDERS } from '../site/routes.js';
import { PHASES } from './plan.js';
import type { DeployProgress, DeployResult } from './run.js';

/** Keys listed per kind in a real deploy's report; a dry run lists every one (it is the plan). */
const SHOWN = 20;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The human report: what was (or, dry, would be) uploaded, deleted and invalidated. */
export function formatDeployReport(r: DeployResult, c: Palette): string {
  const lines: string[] = [];
  const dry = r.dryRun || !r.ok;
  const verb = (did: string, would: string) => (dry ? would : did);
  const bytes = r.uploads.reduce((s, u) => s + u.bytes, 0);
  const count = (reason: string) => r.uploads.filter((u) => u.reason === reason).length;
  lines.push(`${c.bold('po-node deploy')} ${r.site} → ${r.target}${r.dryRun ? c.yellow(' (dry run)') : ''}`);
  const reasons = [`${count('new')} new`, `${count('changed')} changed`, ...(count('forced') ? [`${count('forced')} forced`] : [])];
  const uploads = `${r.uploads.length} ${verb('uploaded', 'to upload')} (${reasons.join(', ')}; ${formatBytes(bytes)})`;
  const deletions = `${r.deletions.length} ${verb('deleted', 'to delete')} of ${r.remoteObjects} objects`;
  lines.push(`  ${r.files} files: ${uploads}, ${r.unchanged} unchanged; ${deletions}`);
  if (r.uploads.length) {
    const steps = PHASES.map((p) => `${p} ${r.uploads.filter((u) => u.phase === p).length}`);
    lines.push(`  order: ${steps.join(' → ')} → deletions ${r.deletions.length}`);
  }
  const limit = r.dryRun ? Infinity : SHOWN;
  const list = (title: string, items: string[]) => {
    if (!items.length) return;
    lines.push(`  ${title}:`);
    for (const i of items.slice(0, limit)) lines.push(`    ${i}`);
    if (items.length > limit) lines.push(c.dim(`    … ${items.length - limit} more (--json lists all)`));
  };
  if (r.uploads.length > limit) {
    // Many uploads (a first deploy): counts per folder; --dry-run and --json name each key.
    const folders = new Map<string, { n: number; bytes: number }>();
    for (const u of r.uploads) {
      const cut = u.key.lastIndexOf('/');
      const dir = cut < 0 ? '(top level)' : `${u.key.slice(0, cut).replace(/\/[0-9A-Fa-f-]{36}_files$/, '')}/`;
      const f = folders.get(dir) ?? { n: 0, bytes: 0 };
      f.n++;
      f.bytes += u.bytes;
      folders.set(dir, f);
    }
    lines.push(`  ${verb('uploaded', 'would upload')}, by folder ${c.dim('(--json names each key)')}:`);
    for (const [dir, f] of [...folders].sort(([a], [b]) => (a < b ? -1 : 1))) {
      lines.push(`    ${dir}  ${f.n} ${f.n === 1 ? 'file' : 'files'}, ${formatBytes(f.bytes)}`);
    }
  } else {
    const each = r.uploads.map((u) => `${u.key}  ${c.dim(`${u.reason}, ${u.contentType}, ${formatBytes(u.bytes)}`)}`);
    list(verb('uploaded', 'would upload'), each);
  }
  list(verb('deleted', 'would delete'), r.deletions);
  if (r.invalidation) {
    const inv = r.invalidation;
    const what = inv.wildcard ? '/* (more changed URLs than one distribution can invalidate at once)' : `${inv.paths.length} paths`;
    const ids = inv.ids.length ? ` (${inv.ids.join(', ')})` : '';
    lines.push(`  CloudFront ${inv.distributionId}: ${verb('invalidated', 'would invalidate')} ${what}${ids}`);
    if (r.dryRun) list('invalidation paths', inv.paths);
  } else if (r.uploads.length + r.deletions.length === 0) {
    lines.push(`  ${c.green('nothing to do: the bucket already holds this site')}`);
  }
  const ours = [...SITE_TOP_FOLDERS.map((f) => `${f}/`), INDEX_HTML].join(', ');
  if (r.kept) lines.push(c.dim(`  kept ${r.kept} objects outside po-node's folders (${ours})`));
  if (r.precompressedLeftOut) {
    const why = 'CloudFront compresses their documents itself (docs/hosting.md#precompressed-documents)';
    lines.push(c.dim(`  left out ${r.precompressedLeftOut} precompressed .gz/.br siblings: ${why}`));
  }
  if (r.skipped.length)
    list(
      c.yellow('not uploaded'),
      r.skipped.map((s) => `${s.rel}  ${c.dim(s.reason)}`),
    );
  if (r.refused) {
    lines.push(`${c.red('refused:')} ${r.refused}`);
    lines.push(`${c.dim('hint:')} check --to; if these deletions are intended, raise --max-deletes (or -1 for no limit).`);
  } else if (r.dryRun) lines.push(c.dim('  dry run: nothing was changed'));
  const reads = r.metadataReads ? `, ${r.metadataReads} object metadata read (ETag not an MD5)` : '';
  lines.push(c.dim(`  ${(r.durationMs / 1000).toFixed(1)} s${reads}`));
  return lines.join('\n');
}

/** On a TTY one self-overwriting line; elsewhere (CI logs) one line per phase. Progress goes to stderr. */
export function deployProgressReporter(stream: NodeJS.WriteStream, enabled: boolean): (e: DeployProgress) => void {
  const tty = Boolean(stream.isTTY);
  let lastDraw = 0;
  let line = false;
  const draw = (s: string, final: boolean) => {
    const now = Date.now();
    if (!final && now - lastDraw < 100) return;
    lastDraw = now;
    stream.write(`\r\x1b[K${s}`);
    line = true;
  };
  const say = (s: string) => {
    if (line) stream.write('\r\x1b[K');
    line = false;
    stream.write(`po-node: ${s}\n`);
  };
  return (e) => {
    if (!enabled) return;
    switch (e.phase) {
      case 'scan':
        say(`${e.files} files to compare`);
        break;
      case 'hash':
        if (tty) draw(`hashing ${e.done}/${e.total}`, e.done === e.total);
        break;
      case 'list':
        say(`${e.objects} objects in the bucket`);
        break;
      case 'upload':
        if (tty) draw(`uploading ${e.step}: ${e.done}/${e.total} (${formatBytes(e.bytes)})`, e.done === e.total);
        if (e.done === e.total) say(`uploaded ${e.step}: ${e.total} files, ${formatBytes(e.bytes)}`);
        break;
      case 'delete':
        if (tty) draw(`deleting ${e.done}/${e.total}`, e.done === e.total);
        if (e.done === e.total) say(`deleted ${e.total} objects`);
        break;
      case 'invalidate':
        say(`invalidating ${e.paths} CloudFront paths`);
        break;
    }
  };
}
