import { PoNodeError } from '../errors.js';
import type { Finding } from '../findings.js';
import { SAPI } from '../emit/soda4lca.js';
import { UUID_RE } from '../parse/ilcd.js';
import { attr, child, childrenOf, parseXml } from '../parse/xml.js';
import { validateWithSchema } from '../schemas.js';
import { GENERATOR_VERSION } from '../version.js';
import { describe, HttpClient, isJsonType, isXmlType, mediaType, reason, type FetchResult } from './http.js';
import { resolveLimits, type CheckLimits, type Truncation } from './limits.js';
import { NetPolicy } from './net-policy.js';
import { serveFolderForCheck } from './serve-folder.js';
import { validateFetchedEpd } from './validate-epd.js';
import { append } from '../util/append.js';

/** The seed's readiness checklist, in the order it is printed. */
export const CHECK_ITEMS = {
  endpoints: 'Endpoints functional (nodeinfo, health, lists, EPDs by UUID, unknown UUID -> 404)',
  'epds-valid': 'Retrieved EPDs valid (same validation as build)',
  health: 'Health reflects the real state (counts, status, age)',
  list: 'List complete and consistent (totals, paging, XML = JSON, every EPD retrievable with the listed UUID and version)',
  'content-types': 'Content types (XML: application/xml or text/xml; JSON: application/json)',
  cors: 'CORS (Access-Control-Allow-Origin on every answer)',
  'base-url': 'Base URL consistent with nodeinfo baseURL and the list hrefs',
} as const;
export type CheckItemId = keyof typeof CHECK_ITEMS;
export type PathSetChoice = 'default' | 'v1' | 'both';

export interface CheckItem {
  id: CheckItemId;
  title: string;
  ok: boolean;
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

export type CheckProgress = { phase: 'start'; baseUrl: string } | { phase: 'lists' } | { phase: 'epds'; done: number; total: number } | { phase: 'done' };

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

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
const MAX_EVIDENCE = 12;
const MAX_FINDINGS = 200;
const ORIGIN = 'https://portal.eco-platform.org';

interface Entry {
  uuid: string;
  version?: string;
  href?: string;
}
interface ListResult {
  path: string;
  entries: Entry[];
  total?: number;
  ok: boolean;
  /** Set when a page or entry cap stopped the reading. */
  truncated?: Truncation;
}

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
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32) throw new PoNodeError(`--concurrency ${concurrency} is out of range`, { hint: 'use 1 to 32 (default 4); be polite to the node' });
  if (!(timeoutS > 0 && timeoutS <= 600)) throw new PoNodeError(`--timeout ${timeoutS} is out of range`, { hint: 'seconds per request, more than 0 and at most 600 (default 30)' });
  const paths = o.paths ?? 'default';
  if (!['default', 'v1', 'both'].includes(paths)) throw new PoNodeError(`--paths ${paths} is not a path set`, { hint: 'use default, v1 or both' });
  const limits = resolveLimits(o);
  const net = { allowPrivateNetwork: Boolean(o.allowPrivateNetwork), testOnlyPublicAddresses: o.testOnlyPublicAddresses ?? [] };
  if (/^https?:\/\//i.test(target)) {
    let u: URL;
    try {
      u = new URL(target);
    } catch {
      throw new PoNodeError(`${target} is not a valid URL`, { hint: 'pass the node base URL without /resource, e.g. https://epd.example.org/node' });
    }
    if (u.search || u.hash) throw new PoNodeError(`${target} has a query or fragment`, { hint: 'pass the node base URL without ?... or #...' });
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
  const truncated: Truncation[] = [];
  const sets: ('default' | 'v1')[] = s.paths === 'both' ? ['default', 'v1'] : [s.paths];
  const ev: Record<CheckItemId, { fail: string[]; pass: string[] }> = Object.fromEntries(Object.keys(CHECK_ITEMS).map((k) => [k, { fail: [], pass: [] }])) as never;
  const fail = (id: CheckItemId, msg: string) => ev[id].fail.push(msg);
  const pass = (id: CheckItemId, msg: string) => ev[id].pass.push(msg);
  const notes: string[] = [];
  const findings: Finding[] = [];
  const rel = (url: string) => (url.startsWith(base) ? url.slice(base.length) || '/' : url);
  o.onProgress?.({ phase: 'start', baseUrl: base });

  // Documents fetched once; the fixed endpoints are requested together up front (within the concurrency
  // limit), so a slow or hanging node costs one timeout round, not one per endpoint.
  const pending = new Map<string, Promise<FetchResult>>();
  const fetchOnce = (path: string): Promise<FetchResult> => {
    let p = pending.get(path);
    if (!p) pending.set(path, (p = http.get(base + path)));
    return p;
  };
  /** GET an API document: status 200 and the expected content type, else evidence. */
  const getDoc = async (path: string, kind: 'xml' | 'json'): Promise<FetchResult | undefined> => {
    const r = await fetchOnce(path);
    if (r.status !== 200) {
      if (r.failure !== 'budget') fail('endpoints', describe({ ...r, url: path }));
      return undefined;
    }
    typeCheck(r, kind);
    return r;
  };
  const typeCheck = (r: FetchResult, kind: 'xml' | 'json') => {
    const good = kind === 'xml' ? isXmlType(r) : isJsonType(r);
    if (!good) fail('content-types', `${rel(r.url)} answered Content-Type "${r.headers['content-type'] ?? '(none)'}"; expected ${kind === 'xml' ? 'application/xml or text/xml' : 'application/json'}`);
  };
  const text = (r: FetchResult) => new TextDecoder().decode(r.body);

  const pageSize = o.pageSize ?? 500;
  const listUrl = (path: string, kind: 'xml' | 'json', start: number, size: number) => `${path}?${kind === 'json' ? 'format=json&' : ''}startIndex=${start}&pageSize=${size}`;
  for (const p of [
    ...(sets.includes('default') ? ['/nodeinfo', '/resource/nodeinfo', '/healthz', listUrl('/resource/processes', 'xml', 0, pageSize), listUrl('/resource/processes', 'json', 0, pageSize)] : []),
    ...(sets.includes('v1') ? ['/v1/healthz', listUrl('/v1/epds', 'json', 0, pageSize)] : []),
  ]) {
    void fetchOnce(p);
  }

  // nodeinfo (default set): both paths, same baseURL.
  const baseUrls = new Map<string, string>();
  let nodeId: string | undefined;
  if (sets.includes('default')) {
    for (const path of ['/nodeinfo', '/resource/nodeinfo']) {
      const r = await getDoc(path, 'xml');
      if (!r) continue;
      const p = parseXml(text(r));
      if (!p.ok || p.root.name !== 'nodeInfo' || p.root.ns !== SAPI.nodeInfo) {
        fail('endpoints', `${path}: not a soda4LCA nodeInfo document (${p.ok ? `root {${p.root.ns}}${p.root.name}` : p.message})`);
        continue;
      }
      nodeId = child(p.root, SAPI.nodeInfo, 'nodeID')?.text ?? nodeId;
      const b = child(p.root, SAPI.nodeInfo, 'baseURL')?.text.trim();
      if (b) baseUrls.set(path, b);
      else fail('base-url', `${path} has no baseURL`);
      pass('endpoints', `${path}: HTTP 200 nodeInfo${nodeId ? ` (nodeID ${nodeId})` : ''} in ${r.ms} ms`);
    }
  }

  // Health documents.
  const healthDocs: { path: string; doc: Record<string, any> }[] = [];
  for (const path of [...(sets.includes('default') ? ['/healthz'] : []), ...(sets.includes('v1') ? ['/v1/healthz'] : [])]) {
    const r = await getDoc(path, 'json');
    if (!r) {
      fail('health', `${path} could not be read`);
      continue;
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text(r));
    } catch (e) {
      fail('endpoints', `${path}: not JSON (${(e as Error).message})`);
      fail('health', `${path} is not JSON`);
      continue;
    }
    const problems = validateWithSchema('health', doc);
    if (problems.length) fail('health', `${path} does not match schemas/health.schema.json: ${problems.slice(0, 3).join('; ')}`);
    if (doc && typeof doc === 'object') healthDocs.push({ path, doc: doc as Record<string, any> });
    pass('endpoints', `${path}: HTTP 200 health document in ${r.ms} ms`);
  }

  // Lists, with paging as a dynamic soda4LCA node would be read.
  o.onProgress?.({ phase: 'lists' });
  const crawlList = async (path: string, kind: 'xml' | 'json', parse: (r: FetchResult) => { total?: number; entries: Entry[] } | string): Promise<ListResult> => {
    const url = (start: number, size: number) => listUrl(path, kind, start, size);
    const entries: Entry[] = [];
    let total: number | undefined;
    let start = 0;
    let cut: Truncation | undefined;
    const name = `${path}${kind === 'json' ? '?format=json' : ''}`;
    for (let page = 0; ; page++) {
      if (page >= limits.maxPages) {
        cut = pageCap(name, limits.maxPages, entries.length, total);
        break;
      }
      const r = await getDoc(url(start, pageSize), kind);
      if (!r) return { path, entries, ok: false, ...(total !== undefined ? { total } : {}) };
      const p = parse(r);
      if (typeof p === 'string') {
        fail('endpoints', `${url(start, pageSize)}: ${p}`);
        return { path, entries, ok: false };
      }
      if (page === 0) {
        total = p.total;
        pass('endpoints', `${path}${kind === 'json' ? '?format=json' : ''}: HTTP 200, ${p.entries.length} entries, total ${p.total ?? 'missing'} in ${r.ms} ms`);
        if (p.total === undefined) fail('list', `${path}${kind === 'json' ? '?format=json' : ''} reports no total (${kind === 'xml' ? 'serviceapi:totalSize' : 'totalCount'})`);
      } else if (p.total !== total) {
        fail('list', `${url(start, pageSize)} reports total ${p.total}, the first page said ${total}`);
      }
      if (page > 0 && p.entries.length && p.entries[0]!.uuid === entries[0]?.uuid) {
        notes.push(`${path}: the host ignores startIndex (page ${page + 1} repeated the first page); stopped paging`);
        break;
      }
      const room = limits.maxEntries - entries.length;
      append(entries, p.entries.length > room ? p.entries.slice(0, room) : p.entries);
      if (p.entries.length > room || (p.entries.length === room && total !== undefined && total > entries.length)) {
        cut = entryCap(name, limits.maxEntries, total);
        break;
      }
      if (p.entries.length === 0 || total === undefined || entries.length >= total) break;
      start += p.entries.length;
    }
    // One small probe shows whether the host pages at all (static hosts answer the whole list).
    if (entries.length > 1) {
      const r = await http.get(base + url(1, 1));
      const p = r.status === 200 ? parse(r) : 'no answer';
      if (typeof p !== 'string') {
        if (p.entries.length !== 1 || p.entries[0]!.uuid !== entries[1]!.uuid) notes.push(`${path}${kind === 'json' ? '?format=json' : ''}: the host ignores paging (startIndex=1&pageSize=1 returned ${p.entries.length} entries); clients that page (ilcdlib) read the list more than once`);
        else notes.push(`${path}${kind === 'json' ? '?format=json' : ''}: the host honours startIndex/pageSize`);
      }
    }
    if (cut) truncated.push(cut);
    return { path: name, entries, ok: true, ...(total !== undefined ? { total } : {}), ...(cut ? { truncated: cut } : {}) };
  };

  const lists: ListResult[] = [];
  if (sets.includes('default')) {
    lists.push(await crawlList('/resource/processes', 'xml', parseXmlList));
    lists.push(await crawlList('/resource/processes', 'json', (r) => parseJsonList(r, 'uri')));
  }
  if (sets.includes('v1')) lists.push(await crawlList('/v1/epds', 'json', (r) => parseJsonList(r, 'url')));

  for (const l of lists) {
    if (!l.ok) {
      fail('list', `${l.path} could not be read completely (${l.entries.length} entries read)`);
      continue;
    }
    if (l.total !== undefined && l.total !== l.entries.length && !l.truncated) fail('list', `${l.path} reports total ${l.total} but holds ${l.entries.length} entries`);
    const seen = new Set<string>();
    for (const e of l.entries) {
      if (!UUID_RE.test(e.uuid)) fail('list', `${l.path} lists "${e.uuid}", which is not a UUID`);
      if (seen.has(e.uuid.toLowerCase())) fail('list', `${l.path} lists UUID ${e.uuid} more than once`);
      seen.add(e.uuid.toLowerCase());
    }
  }
  // The lists of all path sets must agree on UUID -> version.
  const primary = lists.find((l) => l.ok);
  const listed = new Map<string, Entry>();
  for (const e of primary?.entries ?? []) if (UUID_RE.test(e.uuid)) listed.set(e.uuid.toLowerCase(), e);
  const anyCut = lists.some((l) => l.truncated);
  if (anyCut && lists.length > 1) notes.push('the lists were not compared with each other: at least one was cut at a limit');
  for (const l of lists) {
    if (!l.ok || l === primary || anyCut) continue;
    const other = new Map(l.entries.map((e) => [e.uuid.toLowerCase(), e.version]));
    const missing = [...listed.keys()].filter((u) => !other.has(u));
    const extra = [...other.keys()].filter((u) => !listed.has(u));
    const changed = [...listed.entries()].filter(([u, e]) => other.has(u) && other.get(u) !== e.version);
    if (missing.length) fail('list', `${l.path} lacks ${missing.length} EPD(s) listed by ${primary!.path}: ${missing.slice(0, 5).join(', ')}`);
    if (extra.length) fail('list', `${l.path} lists ${extra.length} EPD(s) that ${primary!.path} does not: ${extra.slice(0, 5).join(', ')}`);
    for (const [u, e] of changed.slice(0, 5)) fail('list', `${u}: version ${e.version} in ${primary!.path} but ${other.get(u)} in ${l.path}`);
  }
  if (primary && lists.every((l) => l.ok)) pass('list', `${lists.map((l) => `${l.path}: ${l.entries.length} entries`).join('; ')}`);

  // Every listed EPD, by UUID, at every enabled dataset path.
  const datasetPaths = [...(sets.includes('default') ? ['/resource/processes/'] : []), ...(sets.includes('v1') ? ['/v1/epds/'] : [])];
  const work = [...listed.values()].flatMap((e) => datasetPaths.map((p) => ({ e, path: p + e.uuid })));
  let done = 0;
  const retrieved = new Set<string>();
  const valid = new Set<string>();
  const invalid = new Set<string>();
  o.onProgress?.({ phase: 'epds', done, total: work.length });
  await Promise.all(
    work.map(async ({ e, path }) => {
      const r = await http.get(base + path);
      done++;
      o.onProgress?.({ phase: 'epds', done, total: work.length });
      const u = e.uuid.toLowerCase();
      if (r.failure === 'budget') return;
      if (r.status !== 200) {
        fail('list', `${path} is listed but not retrievable: ${reason(r)}`);
        if (r.status === 0 || r.status >= 500) fail('endpoints', describe({ ...r, url: path }));
        return;
      }
      typeCheck(r, 'xml');
      retrieved.add(u);
      const v = await validateFetchedEpd(r.body, path);
      for (const f of v.findings) if (findings.length < MAX_FINDINGS && f.severity !== 'info') findings.push(f);
      const errors = v.findings.filter((f) => f.severity === 'error');
      if (errors.length) {
        invalid.add(u);
        fail('epds-valid', `${path}: ${errors.length} error(s), first: [${errors[0]!.ruleId}] ${errors[0]!.message}`);
      }
      const d = v.dataset;
      if (d) {
        if (d.uuid !== u) fail('list', `${path}: the document's UUID is ${d.uuid}, the list says ${e.uuid}`);
        if (e.version !== undefined && d.version !== e.version) fail('list', `${path}: the document's version is ${d.version}, the list says ${e.version}`);
        if (d.type !== 'process') fail('epds-valid', `${path}: a ${d.type} dataset, not a process`);
        else if (d.process?.typeOfDataSet !== 'EPD') fail('epds-valid', `${path}: typeOfDataSet is "${d.process?.typeOfDataSet ?? '(missing)'}", not "EPD", yet it is listed`);
      }
      if (!errors.length && d?.type === 'process') valid.add(u);
    }),
  );
  for (const u of invalid) valid.delete(u);
  if (listed.size) pass('epds-valid', `${valid.size} of ${retrieved.size} retrieved EPDs valid (${listed.size} listed)${findings.some((f) => f.severity === 'warning') ? ` (${findings.filter((f) => f.severity === 'warning').length} warning(s))` : ''}`);
  else if (primary) fail('epds-valid', 'the list holds no EPDs');
  else fail('epds-valid', 'no list could be read, so no EPD was checked');
  pass('list', `${retrieved.size} of ${listed.size} listed EPDs retrievable at ${datasetPaths.map((p) => `${p}<uuid>`).join(' and ')}`);

  // Unknown UUID -> 404 at every dataset path.
  for (const p of datasetPaths) {
    const r = await http.get(base + p + UNKNOWN_UUID);
    if (r.failure === 'budget') continue;
    if (r.status === 404) pass('endpoints', `${p}<unknown uuid>: HTTP 404`);
    else fail('endpoints', `${p}${UNKNOWN_UUID} (unknown UUID) answered ${reason(r)}; expected 404`);
  }

  // Health against what was found.
  const listedCount = listed.size;
  // A list cut at a limit, or EPDs left unfetched by the time budget, cannot be compared with health's counts.
  const complete = Boolean(primary && !primary.truncated) && http.budgetHits === 0;
  for (const { path, doc } of healthDocs) {
    const status = doc.status as string | undefined;
    const claimed = doc.epds?.listed as number | undefined;
    if (status === 'fail') fail('health', `${path} says status "fail": ${(doc.reasons as string[] | undefined)?.join('; ') || 'no reasons given'}`);
    if (typeof claimed === 'number' && complete && claimed !== listedCount) fail('health', `${path} claims ${claimed} listed EPDs; the list holds ${listedCount}`);
    if (typeof claimed === 'number' && complete && claimed > retrieved.size) fail('health', `${path} claims ${claimed} EPDs; only ${retrieved.size} could be retrieved`);
    const problems = ev.list.fail.length + ev['epds-valid'].fail.length;
    if (status === 'ok' && problems) fail('health', `${path} says "ok" but this check found ${problems} list or EPD problem(s)`);
    for (const l of (doc.lists as { path: string; entries: number }[] | undefined) ?? []) {
      if (l.entries !== listedCount && complete) fail('health', `${path} says ${l.path} has ${l.entries} entries; the list holds ${listedCount}`);
    }
    const built = Date.parse(String(doc.builtAt));
    if (Number.isFinite(built)) {
      const ageH = (now.getTime() - built) / 3_600_000;
      if (ageH < -0.1) fail('health', `${path} builtAt ${doc.builtAt} is in the future`);
      else if (o.maxAgeDays !== undefined && ageH > o.maxAgeDays * 24) fail('health', `${path} builtAt ${doc.builtAt} is ${(ageH / 24).toFixed(1)} days old, over --max-age ${o.maxAgeDays}`);
      pass('health', `${path}: status ${status}, ${claimed} EPDs, built ${doc.builtAt} (${formatAge(ageH)} ago)`);
    }
    if (doc.node?.id && nodeId && doc.node.id !== nodeId) fail('health', `${path} names node ${doc.node.id}; nodeinfo says ${nodeId}`);
  }
  if (healthDocs.length === 2 && (healthDocs[0]!.doc.status !== healthDocs[1]!.doc.status || healthDocs[0]!.doc.epds?.listed !== healthDocs[1]!.doc.epds?.listed)) {
    fail('health', '/healthz and /v1/healthz disagree');
  }

  // Base URL: nodeinfo baseURL, list hrefs and health agree, and match the checked URL (remote only).
  const info = [...baseUrls.values()];
  if (new Set(info).size > 1) fail('base-url', `/nodeinfo and /resource/nodeinfo give different baseURLs: ${info.join(' vs ')}`);
  const healthBase = healthDocs[0]?.doc.node?.baseUrl as string | null | undefined;
  const published = local ? (healthBase ?? undefined) : base;
  const expected = published !== undefined ? `${published.replace(/\/+$/, '')}/resource` : undefined;
  const nodeBase = info[0];
  if (nodeBase !== undefined) {
    if (!/^https?:\/\//i.test(nodeBase)) fail('base-url', `nodeinfo baseURL "${nodeBase}" is not absolute; build with --base-url <the public URL>`);
    else if (expected === undefined) fail('base-url', `cannot tell the published base URL (health node.baseUrl is ${healthBase === null ? 'null: built without --base-url' : 'missing'})`);
    else if (nodeBase.replace(/\/+$/, '') !== expected) fail('base-url', `nodeinfo baseURL is ${nodeBase}; expected ${expected}${local ? ' (from health node.baseUrl)' : ' (the checked URL + /resource)'}`);
    else pass('base-url', `nodeinfo baseURL ${nodeBase}${local ? ` (the folder was served locally at ${base}; its published URL is ${published})` : ''}`);
    const hrefs = lists.flatMap((l) => l.entries.map((e) => ({ l: l.path, href: e.href }))).filter((h) => h.href);
    const off = hrefs.filter((h) => !h.href!.startsWith(`${nodeBase.replace(/\/+$/, '')}/`) && !h.href!.startsWith(`${(published ?? '').replace(/\/+$/, '')}/v1/`));
    if (off.length) fail('base-url', `${off.length} list link(s) do not start with the baseURL, e.g. ${off[0]!.l}: ${off[0]!.href}`);
    else if (hrefs.length) pass('base-url', `${hrefs.length} list links start with the node's base URL`);
  } else if (sets.includes('default')) {
    fail('base-url', 'no nodeinfo baseURL could be read');
  } else {
    pass('base-url', 'nodeinfo is not part of the v1 path set; links checked against health node.baseUrl');
  }

  // CORS and caching over every API answer with status 200.
  const answered = http.log.filter((r) => r.status === 200);
  const noCors = answered.filter((r) => {
    const a = r.headers['access-control-allow-origin'];
    return a !== '*' && a !== ORIGIN;
  });
  if (noCors.length) fail('cors', `${noCors.length} of ${answered.length} answers lack Access-Control-Allow-Origin (* or the request's Origin), e.g. ${noCors.slice(0, 3).map((r) => rel(r.url)).join(', ')}`);
  else if (answered.length) pass('cors', `all ${answered.length} answers carry Access-Control-Allow-Origin: ${answered[0]!.headers['access-control-allow-origin']}`);
  else fail('cors', 'no successful answer to inspect');
  const types = new Map<string, number>();
  for (const r of answered) types.set(mediaType(r), (types.get(mediaType(r)) ?? 0) + 1);
  if (answered.length) pass('content-types', [...types].map(([t, n]) => `${n} x ${t || '(none)'}`).join(', '));
  else fail('content-types', 'no successful answer to inspect');

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

  // Limits reached: each fails the item it kept from being proven (after health, which counts list problems),
  // first in its evidence, which is cut at MAX_EVIDENCE lines.
  ev.list.fail.unshift(...truncated.map((t) => t.message));
  for (const r of http.log.filter((x) => x.failure === 'too-large')) {
    truncated.push({ limit: 'max-body-mb', value: limits.maxBodyMB, where: rel(r.url), message: `${rel(r.url)}: ${r.error}` });
  }
  if (http.budgetHits) {
    const t = budgetCut(limits.maxDurationMin, http.budgetHits);
    truncated.push(t);
    ev.endpoints.fail.unshift(t.message);
  }

  const items: CheckItem[] = (Object.keys(CHECK_ITEMS) as CheckItemId[]).map((id) => {
    const { fail: f, pass: p } = ev[id];
    const uniq = [...new Set(f)];
    const evidence = uniq.length ? [...uniq.slice(0, MAX_EVIDENCE), ...(uniq.length > MAX_EVIDENCE ? [`... and ${uniq.length - MAX_EVIDENCE} more`] : [])] : p.slice(0, MAX_EVIDENCE);
    return { id, title: CHECK_ITEMS[id], ok: uniq.length === 0, evidence };
  });
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
    notes,
    epds: { listed: listed.size, retrieved: retrieved.size, valid: valid.size },
    findings,
    caching,
    timing,
    limits: { ...limits, network: s.policy.summary },
    truncated,
  };
}

function pageCap(list: string, max: number, read: number, total: number | undefined): Truncation {
  const reported = total !== undefined ? `, the node reports ${total}` : '';
  const msg = `${list}: stopped after --max-pages ${max} pages (${read} entries read${reported}); the rest was not read or checked`;
  return { limit: 'max-pages', value: max, where: list, message: `${msg} (raise --max-pages to read it all)` };
}

function entryCap(list: string, max: number, total: number | undefined): Truncation {
  const reported = total !== undefined ? ` (the node reports ${total})` : '';
  const msg = `${list}: stopped at --max-entries ${max}${reported}; the rest was not read or checked (raise --max-entries to check it all)`;
  return { limit: 'max-entries', value: max, where: list, message: msg };
}

function budgetCut(minutes: number, requests: number): Truncation {
  const msg = `the check stopped at its time budget (--max-duration ${minutes} min): ${requests} request(s) not made or cut`;
  return { limit: 'max-duration', value: minutes, message: `${msg} (raise --max-duration to check everything)` };
}

function parseXmlList(r: FetchResult): { total?: number; entries: Entry[] } | string {
  const p = parseXml(new TextDecoder().decode(r.body));
  if (!p.ok) return `not well-formed XML (${p.message})`;
  if (p.root.ns !== SAPI.serviceApi || p.root.name !== 'dataSetList') return `root is {${p.root.ns}}${p.root.name}, not serviceapi:dataSetList`;
  const t = p.root.attrs[`{${SAPI.serviceApi}}totalSize`];
  const entries = childrenOf(p.root, SAPI.process, 'process').map((e) => {
    const version = child(e, SAPI.serviceApi, 'dataSetVersion')?.text.trim();
    const href = attr(e, 'href', SAPI.xlink);
    return { uuid: child(e, SAPI.serviceApi, 'uuid')?.text.trim() ?? '', ...(version ? { version } : {}), ...(href ? { href } : {}) };
  });
  return { ...(t !== undefined && /^\d+$/.test(t) ? { total: Number(t) } : {}), entries };
}

function parseJsonList(r: FetchResult, linkKey: 'uri' | 'url'): { total?: number; entries: Entry[] } | string {
  let doc: { totalCount?: unknown; data?: unknown };
  try {
    doc = JSON.parse(new TextDecoder().decode(r.body)) as typeof doc;
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (!doc || !Array.isArray(doc.data)) return 'no "data" array';
  const entries = (doc.data as Record<string, unknown>[]).map((d) => ({
    uuid: typeof d?.uuid === 'string' ? d.uuid : '',
    ...(typeof d?.version === 'string' ? { version: d.version } : {}),
    ...(typeof d?.[linkKey] === 'string' ? { href: d[linkKey] as string } : {}),
  }));
  return { ...(typeof doc.totalCount === 'number' ? { total: doc.totalCount } : {}), entries };
}

function formatAge(hours: number): string {
  if (hours < 0) return '0 h';
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} days`;
}
