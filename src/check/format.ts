import type { Palette } from '../util/color.js';
import type { CheckProgress, CheckReport } from './run.js';

/** The readiness checklist as text: one line per item with its evidence, then notes and a summary. */
export function formatCheckReport(r: CheckReport, c: Palette): string {
  const lines: string[] = [
    `po-node check ${r.target}${r.local ? ` (served locally at ${r.baseUrl})` : ''}, path set(s): ${r.pathSets.join(' + ')}`,
    '',
  ];
  for (const item of r.items) {
    lines.push(`${item.informational ? c.cyan('INFO') : item.ok ? c.green('PASS') : c.red('FAIL')}  ${item.title}`);
    for (const e of item.evidence) lines.push(`      ${item.ok && !item.informational ? c.dim(e) : e}`);
  }
  if (r.notes.length) {
    lines.push('', 'Notes:');
    for (const n of r.notes) lines.push(`  - ${n}`);
  }
  if (r.truncated.length) {
    lines.push('', c.red('Limits reached (the check did not see everything):'));
    for (const t of r.truncated) lines.push(`  - ${t.message}`);
  }
  const k = r.caching;
  lines.push(
    '',
    `Caching headers: ${k.cacheControl}/${k.responses} Cache-Control${k.examples.length ? ` (${k.examples.map((e) => `"${e}"`).join(', ')})` : ''}, ${k.etag}/${k.responses} ETag, ${k.lastModified}/${k.responses} Last-Modified`,
    `Response times: median ${r.timing.medianMs} ms, worst ${r.timing.worstMs} ms${r.timing.worstUrl ? ` (${r.timing.worstUrl})` : ''}; ${r.timing.requests} requests, ${r.timing.failed} failed`,
    `EPDs: ${r.epds.listed} listed, ${r.epds.retrieved} retrieved, ${r.epds.valid} valid`,
    '',
  );
  const judged = r.items.filter((i) => !i.informational);
  const failed = judged.filter((i) => !i.ok);
  lines.push(
    r.ready
      ? c.green(c.bold(`READY: all ${judged.length} checklist items pass (${(r.durationMs / 1000).toFixed(1)} s).`))
      : c.red(c.bold(`NOT READY: ${failed.length} of ${judged.length} checklist items fail: ${failed.map((i) => i.id).join(', ')}.`)),
  );
  return lines.join('\n');
}

/** A self-overwriting bar on a TTY while EPDs are fetched; one line per phase elsewhere. */
export function checkProgressReporter(stream: NodeJS.WriteStream, enabled: boolean): (e: CheckProgress) => void {
  const tty = Boolean(stream.isTTY);
  const started = Date.now();
  let lastDraw = 0;
  return (e) => {
    if (!enabled) return;
    if (e.phase === 'start') {
      if (!tty) stream.write(`po-node: checking ${e.baseUrl}\n`);
    } else if (e.phase === 'lists') {
      if (!tty) stream.write('po-node: reading the lists\n');
    } else if (e.phase === 'epds') {
      if (!tty) {
        if (e.done === 0) stream.write(`po-node: fetching ${e.total} EPD documents\n`);
        return;
      }
      const now = Date.now();
      // Only draw for crawls that last: no flicker on small nodes.
      if (now - started < 1000 || (now - lastDraw < 100 && e.done !== e.total)) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round((e.done / Math.max(1, e.total)) * width);
      stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} EPD documents`);
    } else if (tty) {
      stream.write('\r\x1b[K');
    }
  };
}
