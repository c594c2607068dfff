import { ACCEPT_ENCODING } from './body.js';
import { SAPI } from '../emit/soda4lca.js';
import type { DatasetHeader } from '../parse/extract.js';
import { UUID_RE } from '../parse/ilcd.js';
import type { Finding } from '../findings.js';
import { attr, child, childrenOf, parseXml } from '../parse/xml.js';
import { validateWithSchema } from '../schemas.js';
import { append } from '../util/append.js';
import { describe, type FetchResult, type HttpClient } from './http.js';
import type { CheckLimits, Truncation } from './limits.js';
import { validateFetchedEpd } from './validate-epd.js';
import { HEALTH_URLS, LIST_URLS, NODEINFO_URLS, SUB_URL } from '../site/routes.js';

/**
 * The reading half of `check`: what the ECO Portal fetches from a node, once each, as observations. It judges
 * nothing; the checklist items (src/check/checklist.ts) do, from what is recorded here. A fetch that failed is an
 * observation too (its problem is kept for the items to report).
 */

export type PathSet = 'default' | 'v1';
export type SourceId = 'nodeinfo' | 'health' | 'lists' | 'epds' | 'unknown-uuid' | 'zip-export';

export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

export interface Entry {
  uuid: string;
  version?: string;
  href?: string;
}

/** An API document requested with its expected kind: `problem` when it did not answer 200 (undefined: time budget). */
export interface DocFetch {
  path: string;
  kind: 'xml' | 'json';
  r: FetchResult;
  ok: boolean;
  /** Why the fetch failed, as evidence; absent when it was cut by the time budget (reported once, as a limit). */
  problem?: string;
}

export interface NodeinfoObs {
  path: string;
  fetch: DocFetch;
  /** Not a soda4LCA nodeInfo document: why. */
  invalid?: string;
  nodeId?: string;
  baseUrl?: string;
}

export interface HealthObs {
  path: string;
  fetch: DocFetch;
  /** JSON.parse's message when the body is not JSON. */
  notJson?: string;
  schemaProblems: string[];
  doc?: HealthClaims;
}

/** What check reads of a health document: its claims, typed as the schema has them (schemaProblems says if not). */
export interface HealthClaims {
  status?: string;
  reasons?: string[];
  builtAt?: string;
  epds?: { listed?: number };
  node?: { id?: string; baseUrl?: string | null };
  [field: string]: unknown;
}

export interface PageObs {
  url: string;
  fetch: DocFetch;
  /** Why the page is not a list (when it answered 200). */
  invalid?: string;
  total?: number;
  entries?: number;
}

export interface ListObs {
  /** The list's name, `/resource/processes?format=json` for the JSON representation. */
  path: string;
  /** Its path without the format. */
  raw: string;
  kind: 'xml' | 'json';
  pages: PageObs[];
  entries: Entry[];
  total?: number;
  ok: boolean;
  truncated?: Truncation;
}

export interface EpdObs {
  entry: Entry;
  path: string;
  r: FetchResult;
  /** Only for retrieved documents (HTTP 200). */
  findings?: Finding[];
  dataset?: DatasetHeader;
}

export interface Crawled {
  base: string;
  sets: PathSet[];
  nodeinfo: NodeinfoObs[];
  health: HealthObs[];
  lists: ListObs[];
  /** The first list read completely enough to compare the others with, and its EPDs by lower-case UUID. */
  primary: ListObs | undefined;
  listed: Map<string, Entry>;
  /** Dataset paths checked per listed EPD, e.g. `/resource/processes/`. */
  datasetPaths: string[];
  /** In list order (not completion order), so evidence does not depend on timing. */
  epds: EpdObs[];
  unknown: { path: string; r: FetchResult }[];
  /** The ZIP export of the first listed EPD, requested as ilcdlib's converter does (default path set only). */
  zipExport?: { path: string; entry: Entry; r: FetchResult };
  /** Every 200 answer whose content type matters, in the order it was requested (EPDs in list order). */
  typed: { r: FetchResult; kind: 'xml' | 'json' }[];
  notes: string[];
  truncated: Truncation[];
}

export interface CrawlContext {
  http: HttpClient;
  base: string;
  sets: PathSet[];
  limits: CheckLimits;
  pageSize: number;
  onProgress?: (e: { phase: 'lists' } | { phase: 'epds'; done: number; total: number }) => void;
}

/** The sources in the order the crawl reads them: later ones use what earlier ones found (EPDs come from the lists). */
const SOURCES: readonly { id: SourceId; read: (ctx: Run, c: Crawled) => Promise<void> }[] = [
  { id: 'nodeinfo', read: readNodeinfo },
  { id: 'health', read: readHealth },
  { id: 'lists', read: readLists },
  { id: 'epds', read: readEpds },
  { id: 'unknown-uuid', read: readUnknown },
  { id: 'zip-export', read: readZipExport },
];

/** One crawl: its context and the documents requested so far. */
type Run = CrawlContext & { pending: Map<string, Promise<FetchResult>> };

/** Fetch the sources the checklist reads, in source order. */
export async function crawlNode(context: CrawlContext, wanted: ReadonlySet<SourceId>): Promise<Crawled> {
  const ctx: Run = { ...context, pending: new Map() };
  const { sets } = ctx;
  const c: Crawled = {
    base: ctx.base,
    sets,
    nodeinfo: [],
    health: [],
    lists: [],
    primary: undefined,
    listed: new Map(),
    datasetPaths: [...(sets.includes('default') ? [`${LIST_URLS.default}/`] : []), ...(sets.includes('v1') ? [`${LIST_URLS.v1}/`] : [])],
    epds: [],
    unknown: [],
    typed: [],
    notes: [],
    truncated: [],
  };
  // The fixed endpoints are requested together up front (within the concurrency limit), so a slow or hanging
  // node costs one timeout round, not one per endpoint.
  const d = sets.includes('default');
  const v1 = sets.includes('v1');
  const first = (path: string, kind: 'xml' | 'json') => listUrl(path, kind, 0, ctx.pageSize);
  for (const p of [
    ...(d && wanted.has('nodeinfo') ? NODEINFO_URLS : []),
    ...(d && wanted.has('health') ? [HEALTH_URLS.default] : []),
    ...(d && wanted.has('lists') ? [first(LIST_URLS.default, 'xml'), first(LIST_URLS.default, 'json')] : []),
    ...(v1 && wanted.has('health') ? [HEALTH_URLS.v1] : []),
    ...(v1 && wanted.has('lists') ? [first(LIST_URLS.v1, 'json')] : []),
  ]) {
    void fetchOnce(ctx, p);
  }
  for (const s of SOURCES) if (wanted.has(s.id)) await s.read(ctx, c);
  return c;
}

function listUrl(path: string, kind: 'xml' | 'json', start: number, size: number): string {
  return `${path}?${kind === 'json' ? 'format=json&' : ''}startIndex=${start}&pageSize=${size}`;
}

/** Documents are fetched once per check. */
function fetchOnce(ctx: Run, path: string): Promise<FetchResult> {
  let p = ctx.pending.get(path);
  if (!p) ctx.pending.set(path, (p = ctx.http.get(ctx.base + path)));
  return p;
}

/** GET an API document: status 200 is ok (and its type is judged later); otherwise the problem as evidence. */
async function getDoc(ctx: Run, c: Crawled, path: string, kind: 'xml' | 'json'): Promise<DocFetch> {
  const r = await fetchOnce(ctx, path);
  if (r.status !== 200) return { path, kind, r, ok: false, ...(r.failure !== 'budget' ? { problem: describe({ ...r, url: path }) } : {}) };
  c.typed.push({ r, kind });
  return { path, kind, r, ok: true };
}

const text = (r: FetchResult) => new TextDecoder().decode(r.body);

/** /nodeinfo and /resource/nodeinfo (default path set). */
async function readNodeinfo(ctx: Run, c: Crawled): Promise<void> {
  if (!c.sets.includes('default')) return;
  for (const path of NODEINFO_URLS) {
    const fetch = await getDoc(ctx, c, path, 'xml');
    const o: NodeinfoObs = { path, fetch };
    c.nodeinfo.push(o);
    if (!fetch.ok) continue;
    const p = parseXml(text(fetch.r));
    if (!p.ok || p.root.name !== 'nodeInfo' || p.root.ns !== SAPI.nodeInfo) {
      o.invalid = `${path}: not a soda4LCA nodeInfo document (${p.ok ? `root {${p.root.ns}}${p.root.name}` : p.message})`;
      continue;
    }
    const id = child(p.root, SAPI.nodeInfo, 'nodeID')?.text;
    if (id !== undefined) o.nodeId = id;
    const b = child(p.root, SAPI.nodeInfo, 'baseURL')?.text.trim();
    if (b) o.baseUrl = b;
  }
}

/** The health documents of the path sets checked. */
async function readHealth(ctx: Run, c: Crawled): Promise<void> {
  for (const path of [...(c.sets.includes('default') ? [HEALTH_URLS.default] : []), ...(c.sets.includes('v1') ? [HEALTH_URLS.v1] : [])]) {
    const fetch = await getDoc(ctx, c, path, 'json');
    const o: HealthObs = { path, fetch, schemaProblems: [] };
    c.health.push(o);
    if (!fetch.ok) continue;
    let doc: unknown;
    try {
      doc = JSON.parse(text(fetch.r));
    } catch (e) {
      o.notJson = (e as Error).message;
      continue;
    }
    o.schemaProblems = validateWithSchema('health', doc);
    if (doc && typeof doc === 'object') o.doc = doc as HealthClaims;
  }
}

type ListPage = { total?: number; entries: Entry[] } | string;

/** Lists, with paging as a dynamic soda4LCA node would be read. */
async function readLists(ctx: Run, c: Crawled): Promise<void> {
  ctx.onProgress?.({ phase: 'lists' });
  if (c.sets.includes('default')) {
    c.lists.push(await readList(ctx, c, LIST_URLS.default, 'xml', parseXmlList));
    c.lists.push(await readList(ctx, c, LIST_URLS.default, 'json', (r) => parseJsonList(r, 'uri')));
  }
  if (c.sets.includes('v1')) c.lists.push(await readList(ctx, c, LIST_URLS.v1, 'json', (r) => parseJsonList(r, 'url')));
  // The lists of all path sets are compared with the first one read completely enough.
  c.primary = c.lists.find((l) => l.ok);
  for (const e of c.primary?.entries ?? []) if (UUID_RE.test(e.uuid)) c.listed.set(e.uuid.toLowerCase(), e);
  if (c.lists.length > 1 && c.lists.some((l) => l.truncated)) {
    c.notes.push('the lists were not compared with each other: at least one was cut at a limit');
  }
}

async function readList(ctx: Run, c: Crawled, path: string, kind: 'xml' | 'json', parse: (r: FetchResult) => ListPage): Promise<ListObs> {
  const { limits, pageSize } = ctx;
  const name = `${path}${kind === 'json' ? '?format=json' : ''}`;
  const l: ListObs = { path: name, raw: path, kind, pages: [], entries: [], ok: false };
  let start = 0;
  for (let page = 0; ; page++) {
    if (page >= limits.maxPages) {
      l.truncated = pageCap(name, limits.maxPages, l.entries.length, l.total);
      break;
    }
    const url = listUrl(path, kind, start, pageSize);
    const fetch = await getDoc(ctx, c, url, kind);
    const po: PageObs = { url, fetch };
    l.pages.push(po);
    if (!fetch.ok) return l;
    const p = parse(fetch.r);
    if (typeof p === 'string') {
      po.invalid = `${url}: ${p}`;
      delete l.total;
      return l;
    }
    po.entries = p.entries.length;
    if (p.total !== undefined) po.total = p.total;
    if (page === 0 && p.total !== undefined) l.total = p.total;
    if (page > 0 && p.entries.length && p.entries[0]!.uuid === l.entries[0]?.uuid) {
      c.notes.push(`${path}: the host ignores startIndex (page ${page + 1} repeated the first page); stopped paging`);
      break;
    }
    const room = limits.maxEntries - l.entries.length;
    append(l.entries, p.entries.length > room ? p.entries.slice(0, room) : p.entries);
    if (p.entries.length > room || (p.entries.length === room && l.total !== undefined && l.total > l.entries.length)) {
      l.truncated = entryCap(name, limits.maxEntries, l.total);
      break;
    }
    if (p.entries.length === 0 || l.total === undefined || l.entries.length >= l.total) break;
    start += p.entries.length;
  }
  l.ok = true;
  // ilcdlib's probe shows whether the host pages at all: static hosts answer the whole list, pre-paged and dynamic
  // nodes one entry (a pre-paged node answers only the pages it wrote: the probe is one of them, startIndex=1 is not).
  if (l.entries.length > 1) {
    const r = await ctx.http.get(ctx.base + listUrl(path, kind, 0, 1));
    const p = r.status === 200 ? parse(r) : 'no answer';
    if (typeof p !== 'string') {
      if (p.entries.length !== 1 || p.entries[0]!.uuid !== l.entries[0]!.uuid) {
        c.notes.push(
          `${name}: the host ignores paging (startIndex=0&pageSize=1 returned ${p.entries.length} entries); clients that page (ilcdlib) read the list more than once (docs/hosting.md: pre-paged lists)`,
        );
      } else c.notes.push(`${name}: the host honours startIndex/pageSize`);
    }
  }
  const first = l.pages[0]?.fetch;
  if (first?.ok) {
    const note = compressionNote(name, first.r);
    if (note) c.notes.push(note);
  }
  if (l.truncated) c.truncated.push(l.truncated);
  return l;
}

/**
 * Whether a list came back compressed to check's Accept-Encoding (gzip, deflate, br): a large list sent plain costs
 * every client several times its compressed size. Small answers (< 1,000 bytes) are left alone, as CloudFront does.
 */
function compressionNote(name: string, r: FetchResult): string | undefined {
  const encoding = r.headers['content-encoding'];
  if (encoding) return `${name}: answered compressed (Content-Encoding: ${encoding})`;
  if (r.body.length < 1000) return undefined;
  return `${name}: answered uncompressed (${r.body.length} bytes) to Accept-Encoding: ${ACCEPT_ENCODING} (docs/hosting.md: precompressed documents)`;
}

/** Every listed EPD, by UUID, at every enabled dataset path; each retrieved one validated as build does. */
async function readEpds(ctx: Run, c: Crawled): Promise<void> {
  const work = [...c.listed.values()].flatMap((entry) => c.datasetPaths.map((p) => ({ entry, path: p + entry.uuid })));
  let done = 0;
  ctx.onProgress?.({ phase: 'epds', done, total: work.length });
  const obs = await Promise.all(
    work.map(async ({ entry, path }): Promise<EpdObs> => {
      const r = await ctx.http.get(ctx.base + path);
      done++;
      ctx.onProgress?.({ phase: 'epds', done, total: work.length });
      if (r.status !== 200) return { entry, path, r };
      const v = await validateFetchedEpd(r.body, path);
      return { entry, path, r, findings: v.findings, ...(v.dataset ? { dataset: v.dataset } : {}) };
    }),
  );
  for (const o of obs) if (o.r.status === 200) c.typed.push({ r: o.r, kind: 'xml' });
  c.epds = obs;
}

/** An unknown UUID at every dataset path: a node must answer 404. */
async function readUnknown(ctx: Run, c: Crawled): Promise<void> {
  for (const p of c.datasetPaths) c.unknown.push({ path: p, r: await ctx.http.get(ctx.base + p + UNKNOWN_UUID) });
}

/** One EPD's ZIP export, as ilcdlib's converter asks for it: whether the node has them at all. */
async function readZipExport(ctx: Run, c: Crawled): Promise<void> {
  const entry = c.listed.values().next().value;
  if (!entry || !c.sets.includes('default')) return;
  const path = `/${SUB_URL.zipExport(entry.uuid)}?format=zip${entry.version ? `&version=${encodeURIComponent(entry.version)}` : ''}`;
  c.zipExport = { path, entry, r: await ctx.http.get(ctx.base + path) };
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

function parseXmlList(r: FetchResult): ListPage {
  const p = parseXml(new TextDecoder().decode(r.body));
  if (!p.ok) return `not well-formed XML (${p.message})`;
  if (p.root.ns !== SAPI.serviceApi || p.root.name !== 'dataSetList')
    return `root is {${p.root.ns}}${p.root.name}, not serviceapi:dataSetList`;
  const t = p.root.attrs[`{${SAPI.serviceApi}}totalSize`];
  const entries = childrenOf(p.root, SAPI.process, 'process').map((e) => {
    const version = child(e, SAPI.serviceApi, 'dataSetVersion')?.text.trim();
    const href = attr(e, 'href', SAPI.xlink);
    return { uuid: child(e, SAPI.serviceApi, 'uuid')?.text.trim() ?? '', ...(version ? { version } : {}), ...(href ? { href } : {}) };
  });
  return { ...(t !== undefined && /^\d+$/.test(t) ? { total: Number(t) } : {}), entries };
}

function parseJsonList(r: FetchResult, linkKey: 'uri' | 'url'): ListPage {
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
    ...(typeof d?.[linkKey] === 'string' ? { href: d[linkKey] } : {}),
  }));
  return { ...(typeof doc.totalCount === 'number' ? { total: doc.totalCount } : {}), entries };
}
