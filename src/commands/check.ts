import { type Command, InvalidArgumentError, Option } from 'commander';
import { statSync } from 'node:fs';
import { DEFAULT_LIMITS } from '../check/limits.js';
import type { PathSetChoice } from '../check/run.js';
import { ConfigError } from '../errors.js';
import { parseHosts } from '../config/hosts.js';
import { palette } from '../util/color.js';
import type { Io, SetExit } from './shared.js';

/** `po-node check`: exit 0 only when every checklist item passes, 1 when not ready, 2 on usage errors. */
export function registerCheck(program: Command, io: Io, setExit: SetExit): void {
  program
    .command('check')
    .description('Read a node the way the ECO Portal does and print the readiness checklist (exit 0 only when ready).')
    .argument('<target>', 'the node base URL (without /resource), or a built site folder to serve locally and check')
    .addOption(new Option('--paths <set>', 'path set(s) to check').choices(['default', 'v1', 'both']).default('default'))
    .option('--json', 'print the check report as JSON on stdout (schemas/check-report.schema.json)')
    .option('--concurrency <n>', 'requests in flight at most (1-32)', int, 4)
    .option('--timeout <seconds>', 'seconds per request attempt', num, 30)
    .option('--retries <n>', 'retries of a failed request (timeouts, 429, 5xx), with exponential backoff (0-5)', int, 2)
    .option('--max-age <days>', "fail when health's builtAt is older than this", num)
    .option('--max-body-mb <mb>', 'decoded MB of one answer at most; the request is aborted at the cap', int, DEFAULT_LIMITS.maxBodyMB)
    .option('--max-pages <n>', 'pages read per list at most', int, DEFAULT_LIMITS.maxPages)
    .option('--max-entries <n>', 'entries read per list at most; only these EPDs are fetched', int, DEFAULT_LIMITS.maxEntries)
    .option('--max-duration <minutes>', 'time budget; then the check stops, reporting what it left out', num, DEFAULT_LIMITS.maxDurationMin)
    .option('--allow-private-network', 'connect to loopback, private and link-local addresses even when the checked URL is public')
    .option('--host <names>', "with a site folder: also compare it with these hosts' limits (github-pages, cloudflare-pages, netlify)")
    .option('-q, --quiet', 'no progress output')
    .addHelpText(
      'after',
      `
Checklist: endpoints functional; EPDs valid; health reflects the real state; list complete and consistent;
content types; CORS; base URL consistent with nodeinfo. Also reported: caching headers, response times.

A node is not trusted: answers, pages, entries and time are capped (a check that hits a cap is not ready and
says which), and a public node cannot redirect the check to loopback, private or link-local addresses.

Examples:
  $ po-node check https://epd.example.org/node
  $ po-node check site --paths both --json > check-report.json
  $ po-node check site --host github-pages       # also warns when the site is over GitHub Pages' 1 GB`,
    )
    .action(async (target: string, o: CheckFlags) => {
      // Before the check: a bad host name is a usage error, and limits are cheap to measure.
      const hosts = o.host ? parseHosts([o.host]) : [];
      if (hosts.length && !statSync(target, { throwIfNoEntry: false })?.isDirectory()) {
        throw new ConfigError(`--host compares a built site folder with the host's limits; ${target} is not a folder`, {
          hint: 'Check the site folder: po-node check site --host github-pages',
        });
      }
      const [{ checkProgressReporter, formatCheckReport }, { runCheck }, { hostLimitFindings, measureSite }] = await Promise.all([
        import('../check/format.js'),
        import('../check/run.js'),
        import('../hosts/limits.js'),
      ]);
      const limits = hosts.length ? hostLimitFindings(measureSite(target), hosts) : [];
      const c = palette(io.stderr, io.env);
      for (const f of limits) io.stderr.write(`${c.yellow('warning')} ${f.message} [${f.ruleId}]\n`);
      const report = await runCheck(target, {
        paths: o.paths,
        concurrency: o.concurrency,
        timeoutS: o.timeout,
        retries: Math.min(5, Math.max(0, o.retries)),
        ...(o.maxAge !== undefined ? { maxAgeDays: o.maxAge } : {}),
        maxBodyMB: o.maxBodyMb,
        maxPages: o.maxPages,
        maxEntries: o.maxEntries,
        maxDurationMin: o.maxDuration,
        allowPrivateNetwork: Boolean(o.allowPrivateNetwork),
        onProgress: checkProgressReporter(io.stderr, !o.json && !o.quiet),
      });
      if (o.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else io.stdout.write(`${formatCheckReport(report, palette(io.stdout, io.env))}\n`);
      setExit(report.ready ? 0 : 1);
    });
}

interface CheckFlags {
  paths: PathSetChoice;
  json?: boolean;
  concurrency: number;
  timeout: number;
  retries: number;
  maxAge?: number;
  quiet?: boolean;
  maxBodyMb: number;
  maxPages: number;
  maxEntries: number;
  maxDuration: number;
  allowPrivateNetwork?: boolean;
  host?: string;
}

function int(v: string): number {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a whole number');
  return Number(v);
}

function num(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}
