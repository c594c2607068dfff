import { PoNodeError } from '../errors.js';
import type { Finding } from '../findings.js';
import { GENERATOR_VERSION } from '../version.js';
import {
  CHECK_ITEMS,
  CHECKLIST,
  epdCounts,
  judgeOrder,
  reportFindings,
  type CheckItemId,
  type Evidence,
  type JudgeContext,
} from './checklist.js';
import { crawlNode, type PathSet } from './crawl.js';
import { HttpClient, type FetchResult } from './http.js';
import { resolveLimits, type CheckLimits, type Truncation } from './limits.js';
import { NetPolicy } from './net-policy.js';
import { serveFolderForCheck } from './serve-folder.js';

export { CHECK_ITEMS, type CheckItemId } from './checklist.js';
export type PathSetChoice = 'default' | 'v1' | 'both';

export interface CheckItem {
  id: CheckItemId;
  title: string;
  /** Always true for an informational item: it reports, never fails readiness. */
  ok: boolean;
  informational?: true;
  evidence: string[];
}

export interface CheckReport {
  tool: { name: 'po-node'; version: string };
  target: string;
  /** The URL that was crawled (for a folder: the internal local server). */
  baseUrl: string;
  local: boolean;
  checkedAt: string;
  durationMs: number;
  pathSets: ('default' | 'v1')[];
  ready: boolean;
  items: CheckItem[];
  notes: string[];
  epds: { listed: number; retrieved: number; valid: number };
  findings: Finding[];
  caching: { responses: number; cacheControl: number; etag: number; lastModified: number; examples: string[] };
  timing: { requests: number; failed: number; medianMs: number; worstMs: number; worstUrl: string | null };
  /** The limits this check ran under, and which addresses it could connect to. */
  limits: CheckLimits & { network: string };
  /** Limits that were reached: what the check did not read. */
  truncated: Truncation[];
}

export type CheckProgress =
  { phase: 'start'; baseUrl: string } | { phase: 'lists' } | { phase: 'epds'; done: number; total: number } | { phase: 'done' };

export interface CheckRunOptions {
  paths?: PathSetChoice;
  concurrency?: number;
  /** Seconds per request attempt. */
  timeoutS?: number;
  retries?: number;
  backoffMs?: number;
  /** First page size requested from the lists (soda4LCA's default is 500). */
  pageSize?: number;
  /** Fail when health's builtAt is older than this many days. */
  maxAgeDays?: number;
  now?: Date;
  onProgress?: (e: CheckProgress) => void;
  /** Bounds of the crawl (src/check/limits.ts); defaults in DEFAULT_LIMITS. */
  maxBodyMB?: number;
  maxPages?: number;
  maxEntries?: number;
  maxDurationMin?: number;
  /** Connect to loopback, private and link-local addresses even when the checked URL is public. */
  allowPrivateNetwork?: boolean;
  /** Tests only: these exact addresses count as public (so a test server on 127.0.0.1 plays a public node). */
  testOnlyPublicAddresses?: string[];
}

const MAX_EVIDENCE = 12;
const ORIGIN = 'https://portal.eco-platform.org';

interface CrawlSettings {
  concurrency: number;
  timeoutS: number;
  paths: PathSetChoice;
  limits: CheckLimits;
  policy: NetPolicy;
}

/** Check a base URL (http/https) or a built site folder, which is served on 127.0.0.1 for the duration. */
export async function runCheck(target: string, o: CheckRunOptions = {}): Promise<CheckReport> {
  const concurrency = o.concurrency ?? 4;
  const timeoutS = o.timeoutS ?? 30;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32)
    throw new PoNodeError(`--concurrency ${concurrency} is out of range`, { hint: 'use 1 to 32 (default 4); be polite to the node' });
  if (!(timeoutS > 0 && timeoutS <= 600))
    throw new PoNodeError(`--timeout ${timeoutS} is out of range`, {
      hint: 'seconds per request, more than 0 and at most 600 (default 30)',
    });
  const paths = o.paths ?? 'default';
  if (!['default', 'v1', 'both'].includes(paths))
    throw new PoNodeError(`--paths ${paths} is not a path set`, { hint: 'use default, v1 or both' });
  const limits = resolveLimits(o);
  const net = { allowPrivateNetwork: Boolean(o.allowPrivateNetwork), testOnlyPublicAddresses: o.testOnlyPublicAddresses ?? [] };
  if (/^https?:\/\//i.test(target)) {
    let u: URL;
    try {
      u = new URL(target);
    } catch {
      throw new PoNodeError(`${target} is not a valid URL`, {
        hint: 'pass the node base URL without /resource, e.g. https://epd.example.org/node',
      });
    }
    if (u.search || u.hash)
      throw new PoNodeError(`${target} has a query or fragment`, { hint: 'pass the node base URL without ?... or #...' });
    const policy = await NetPolicy.forStart(u, net);
    return crawl(target, u.href.replace(/\/+$/, ''), false, o, { concurrency, timeoutS, paths, limits, policy });
  }
  const served = await serveFolderForCheck(target);
  try {
    const policy = await NetPolicy.forStart(new URL(served.url), net);
    return await crawl(target, served.url, true, o, { concurrency, timeoutS, paths, limits, policy });
  } finally {
    await served.close();
  }
}

async function crawl(target: string, base: string, local: boolean, o: CheckRunOptions, s: CrawlSettings): Promise<CheckReport> {
  const started = Date.now();
  const http = new HttpClient({
    concurrency: s.concurrency,
    timeoutS: s.timeoutS,
    retries: o.retries ?? 2,
    backoffMs: o.backoffMs ?? 500,
    origin: ORIGIN,
    maxBodyBytes: s.limits.maxBodyMB * 1024 * 1024,
    policy: s.policy,
    deadline: started + s.limits.maxDurationMin * 60_000,
  });
  try {
    return await crawlWith(http, target, base, local, o, s, started);
  } finally {
    http.close();
  }
}

async function crawlWith(
  http: HttpClient,
  target: string,
  base: string,
  local: boolean,
  o: CheckRunOptions,
  s: CrawlSettings,
  started: number,
): Promise<CheckReport> {
  const now = o.now ?? new Date();
  const { limits } = s;
  const sets: PathSet[] = s.paths === 'both' ? ['default', 'v1'] : [s.paths];
  o.onProgress?.({ phase: 'start', baseUrl: base });
  // The crawl reads what the checklist items read, each document once; then every item judges what was read.
  const wanted = new Set(CHECKLIST.flatMap((i) => i.reads));
  const progress = o.onProgress ? { onProgress: o.onProgress } : {};
  const c = await crawlNode({ http, base, sets, limits, pageSize: o.pageSize ?? 500, ...progress }, wanted);
  const rel = (url: string) => (url.startsWith(base) ? url.slice(base.length) || '/' : url);
  // Limits reached: each fails the item it kept from being proven, first in its evidence.
  for (const r of http.log.filter((x) => x.failure === 'too-large')) {
    c.truncated.push({ limit: 'max-body-mb', value: limits.maxBodyMB, where: rel(r.url), message: `${rel(r.url)}: ${r.error}` });
  }
  if (http.budgetHits) c.truncated.push(budgetCut(limits.maxDurationMin, http.budgetHits));

  const x: JudgeContext = { local, now, log: http.log, budgetHits: http.budgetHits, origin: ORIGIN };
  if (o.maxAgeDays !== undefined) x.maxAgeDays = o.maxAgeDays;
  const ev = Object.fromEntries(CHECKLIST.map((i) => [i.id, { fail: [], pass: [], cut: [] }])) as unknown as Record<CheckItemId, Evidence>;
  for (const item of judgeOrder()) item.judge(c, ev[item.id], x, ev);
  const items: CheckItem[] = CHECKLIST.map(({ id, informational }) => {
    const { fail, pass, cut } = ev[id];
    const uniq = [...new Set([...cut, ...fail])];
    const more = uniq.length > MAX_EVIDENCE ? [`... and ${uniq.length - MAX_EVIDENCE} more`] : [];
    const evidence = uniq.length ? [...uniq.slice(0, MAX_EVIDENCE), ...more] : pass.slice(0, MAX_EVIDENCE);
    return { id, title: CHECK_ITEMS[id], ok: uniq.length === 0, evidence, ...(informational ? { informational } : {}) };
  });

  const answered = http.log.filter((r) => r.status === 200);
  const caching = {
    responses: answered.length,
    cacheControl: answered.filter((r) => r.headers['cache-control']).length,
    etag: answered.filter((r) => r.headers.etag).length,
    lastModified: answered.filter((r) => r.headers['last-modified']).length,
    examples: [...new Set(answered.map((r) => r.headers['cache-control']).filter((v): v is string => Boolean(v)))].slice(0, 5),
  };
  const times = http.log.map((r) => r.ms).sort((a, b) => a - b);
  const worst = http.log.reduce<FetchResult | undefined>((w, r) => (!w || r.ms > w.ms ? r : w), undefined);
  const timing = {
    requests: http.log.length,
    failed: http.log.filter((r) => r.status === 0 || r.status >= 500).length,
    medianMs: times.length ? times[Math.floor((times.length - 1) / 2)]! : 0,
    worstMs: worst?.ms ?? 0,
    worstUrl: worst ? rel(worst.url) : null,
  };
  const { retrieved, valid } = epdCounts(c);
  o.onProgress?.({ phase: 'done' });
  return {
    tool: { name: 'po-node', version: GENERATOR_VERSION },
    target,
    baseUrl: base,
    local,
    checkedAt: now.toISOString(),
    durationMs: Date.now() - started,
    pathSets: sets,
    ready: items.every((i) => i.ok),
    items,
    notes: c.notes,
    epds: { listed: c.listed.size, retrieved, valid },
    findings: reportFindings(c),
    caching,
    timing,
    limits: { ...limits, network: s.policy.summary },
    truncated: c.truncated,
  };
}

function budgetCut(minutes: number, requests: number): Truncation {
  const msg = `the check stopped at its time budget (--max-duration ${minutes} min): ${requests} request(s) not made or cut`;
  return { limit: 'max-duration', value: minutes, message: `${msg} (raise --max-duration to check everything)` };
}
