import { unzipSync } from 'fflate';
import type { Finding } from '../findings.js';
import { UUID_RE } from '../parse/ilcd.js';
import type { Crawled, ListObs, SourceId } from './crawl.js';
import { UNKNOWN_UUID } from './crawl.js';
import { describe, isJsonType, isXmlType, mediaType, reason, type FetchResult } from './http.js';
import { HEALTH_URLS, NODEINFO_URLS } from '../site/routes.js';

/** The seed's readiness checklist, in the order it is printed. */
export const CHECK_ITEMS = {
  endpoints: 'Endpoints functional (nodeinfo, health, lists, EPDs by UUID, unknown UUID -> 404)',
  'epds-valid': 'Retrieved EPDs valid (same validation as build)',
  health: 'Health reflects the real state (counts, status, age)',
  list: 'List complete and consistent (totals, paging, XML = JSON, every EPD retrievable with the listed UUID and version)',
  'content-types': 'Content types (XML: application/xml or text/xml; JSON: application/json)',
  cors: 'CORS (Access-Control-Allow-Origin on every answer)',
  'base-url': 'Base URL consistent with nodeinfo baseURL and the list hrefs',
  'zip-export': "Per-EPD ZIP exports (/resource/processes/<uuid>/zipexport, for ilcdlib's converter; informational)",
} as const;
export type CheckItemId = keyof typeof CHECK_ITEMS;

/** What one item found: failures (any fails it), passes (shown when none failed), limits reached (listed first). */
export interface Evidence {
  fail: string[];
  pass: string[];
  cut: string[];
}

/** What the judges know besides the crawl: the checked URL, the clock, the time budget and the answers logged. */
export interface JudgeContext {
  local: boolean;
  now: Date;
  maxAgeDays?: number;
  /** Every request made, in completion order. */
  log: readonly FetchResult[];
  /** Requests not made or cut by the time budget (a crawl that is not complete). */
  budgetHits: number;
  /** The Origin header the check sends, as the ECO Portal's browser does. */
  origin: string;
}

export interface ChecklistItem {
  id: CheckItemId;
  /** The sources it reads (src/check/crawl.ts); the crawl fetches the union, each document once. */
  reads: readonly SourceId[];
  /** Reported, never failed: what the node offers beyond readiness (every line of its evidence is a pass). */
  informational?: true;
  /** Items whose evidence its judgement uses: judged before it. */
  needs?: readonly CheckItemId[];
  /** Record this item's evidence from what the crawl observed. */
  judge(c: Crawled, ev: Evidence, x: JudgeContext, all: Readonly<Record<CheckItemId, Evidence>>): void;
}

/** The checklist as data, in print order. */
export const CHECKLIST: readonly ChecklistItem[] = [
  { id: 'endpoints', reads: ['nodeinfo', 'health', 'lists', 'epds', 'unknown-uuid'], judge: judgeEndpoints },
  { id: 'epds-valid', reads: ['lists', 'epds'], judge: judgeEpdsValid },
  { id: 'health', reads: ['nodeinfo', 'health', 'lists', 'epds'], needs: ['list', 'epds-valid'], judge: judgeHealth },
  { id: 'list', reads: ['lists', 'epds'], judge: judgeList },
  { id: 'content-types', reads: ['nodeinfo', 'health', 'lists', 'epds'], judge: judgeContentTypes },
  { id: 'cors', reads: ['nodeinfo', 'health', 'lists', 'epds', 'unknown-uuid'], judge: judgeCors },
  { id: 'base-url', reads: ['nodeinfo', 'health', 'lists'], judge: judgeBaseUrl },
  { id: 'zip-export', reads: ['lists', 'zip-export'], informational: true, judge: judgeZipExport },
];

/** Items in an order where each is judged after the ones it needs. */
export function judgeOrder(items: readonly ChecklistItem[] = CHECKLIST): ChecklistItem[] {
  const out: ChecklistItem[] = [];
  const visit = (i: ChecklistItem) => {
    if (out.includes(i)) return;
    for (const n of i.needs ?? []) visit(items.find((x) => x.id === n)!);
    out.push(i);
  };
  items.forEach(visit);
  return out;
}

/** A list as the report names it: with its format when read, by its path alone when it could not be. */
const showList = (l: ListObs) => (l.ok ? l.path : l.raw);
const ok200 = (x: JudgeContext) => x.log.filter((r) => r.status === 200);

function judgeEndpoints(c: Crawled, ev: Evidence, x: JudgeContext): void {
  let nodeId: string | undefined;
  for (const n of c.nodeinfo) {
    if (!n.fetch.ok) {
      if (n.fetch.problem) ev.fail.push(n.fetch.problem);
      continue;
    }
    if (n.invalid) {
      ev.fail.push(n.invalid);
      continue;
    }
    nodeId = n.nodeId ?? nodeId;
    ev.pass.push(`${n.path}: HTTP 200 nodeInfo${nodeId ? ` (nodeID ${nodeId})` : ''} in ${n.fetch.r.ms} ms`);
  }
  for (const h of c.health) {
    if (!h.fetch.ok) {
      if (h.fetch.problem) ev.fail.push(h.fetch.problem);
      continue;
    }
    if (h.notJson !== undefined) {
      ev.fail.push(`${h.path}: not JSON (${h.notJson})`);
      continue;
    }
    ev.pass.push(`${h.path}: HTTP 200 health document in ${h.fetch.r.ms} ms`);
  }
  for (const l of c.lists) {
    l.pages.forEach((p, page) => {
      if (!p.fetch.ok) {
        if (p.fetch.problem) ev.fail.push(p.fetch.problem);
      } else if (p.invalid) ev.fail.push(p.invalid);
      else if (page === 0) ev.pass.push(`${l.path}: HTTP 200, ${p.entries} entries, total ${p.total ?? 'missing'} in ${p.fetch.r.ms} ms`);
    });
  }
  for (const e of c.epds) {
    if (e.r.failure !== 'budget' && (e.r.status === 0 || e.r.status >= 500)) ev.fail.push(describe({ ...e.r, url: e.path }));
  }
  for (const { path, r } of c.unknown) {
    if (r.failure === 'budget') continue;
    if (r.status === 404) ev.pass.push(`${path}<unknown uuid>: HTTP 404`);
    else ev.fail.push(`${path}${UNKNOWN_UUID} (unknown UUID) answered ${reason(r)}; expected 404`);
  }
  const budget = c.truncated.find((t) => t.limit === 'max-duration');
  if (budget && x.budgetHits) ev.cut.push(budget.message);
}

function judgeEpdsValid(c: Crawled, ev: Evidence): void {
  for (const e of c.epds) {
    if (e.findings === undefined) continue;
    const errors = e.findings.filter((f) => f.severity === 'error');
    if (errors.length) ev.fail.push(`${e.path}: ${errors.length} error(s), first: [${errors[0]!.ruleId}] ${errors[0]!.message}`);
    const d = e.dataset;
    if (d && d.type !== 'process') ev.fail.push(`${e.path}: a ${d.type} dataset, not a process`);
    else if (d && d.process?.typeOfDataSet !== 'EPD') {
      ev.fail.push(`${e.path}: typeOfDataSet is "${d.process?.typeOfDataSet ?? '(missing)'}", not "EPD", yet it is listed`);
    }
  }
  const { retrieved, valid } = epdCounts(c);
  // Warnings as the report lists them (at most MAX_FINDINGS findings).
  const warnings = reportFindings(c).filter((f) => f.severity === 'warning').length;
  if (c.listed.size) {
    ev.pass.push(`${valid} of ${retrieved} retrieved EPDs valid (${c.listed.size} listed)${warnings ? ` (${warnings} warning(s))` : ''}`);
  } else if (c.primary) ev.fail.push('the list holds no EPDs');
  else ev.fail.push('no list could be read, so no EPD was checked');
}

/** EPDs retrieved (HTTP 200 at some dataset path) and valid (no error at any path, a process), by UUID. */
export function epdCounts(c: Crawled): { retrieved: number; valid: number } {
  const retrieved = new Set<string>();
  const valid = new Set<string>();
  const invalid = new Set<string>();
  for (const e of c.epds) {
    if (e.findings === undefined) continue;
    const u = e.entry.uuid.toLowerCase();
    retrieved.add(u);
    if (e.findings.some((f) => f.severity === 'error')) invalid.add(u);
    else if (e.dataset?.type === 'process') valid.add(u);
  }
  for (const u of invalid) valid.delete(u);
  return { retrieved: retrieved.size, valid: valid.size };
}

const MAX_FINDINGS = 200;
/** The findings of the retrieved EPDs the report lists: no infos, at most MAX_FINDINGS, in list order. */
export function reportFindings(c: Crawled): Finding[] {
  const out: Finding[] = [];
  for (const e of c.epds) for (const f of e.findings ?? []) if (out.length < MAX_FINDINGS && f.severity !== 'info') out.push(f);
  return out;
}

function judgeList(c: Crawled, ev: Evidence): void {
  ev.cut.push(...c.truncated.filter((t) => t.limit === 'max-pages' || t.limit === 'max-entries').map((t) => t.message));
  for (const l of c.lists) {
    const first = l.pages[0];
    l.pages.forEach((p, page) => {
      if (!p.fetch.ok || p.invalid) return;
      if (page === 0) {
        if (p.total === undefined) ev.fail.push(`${l.path} reports no total (${l.kind === 'xml' ? 'serviceapi:totalSize' : 'totalCount'})`);
      } else if (p.total !== first?.total) {
        ev.fail.push(`${p.url} reports total ${p.total}, the first page said ${first?.total}`);
      }
    });
  }
  for (const l of c.lists) {
    if (!l.ok) {
      ev.fail.push(`${showList(l)} could not be read completely (${l.entries.length} entries read)`);
      continue;
    }
    if (l.total !== undefined && l.total !== l.entries.length && !l.truncated)
      ev.fail.push(`${l.path} reports total ${l.total} but holds ${l.entries.length} entries`);
    const seen = new Set<string>();
    for (const e of l.entries) {
      if (!UUID_RE.test(e.uuid)) ev.fail.push(`${l.path} lists "${e.uuid}", which is not a UUID`);
      if (seen.has(e.uuid.toLowerCase())) ev.fail.push(`${l.path} lists UUID ${e.uuid} more than once`);
      seen.add(e.uuid.toLowerCase());
    }
  }
  // The lists of all path sets must agree on UUID -> version.
  const { primary, listed, lists } = { primary: c.primary, listed: c.listed, lists: c.lists };
  const anyCut = lists.some((l) => l.truncated);
  for (const l of lists) {
    if (!l.ok || l === primary || anyCut) continue;
    const other = new Map(l.entries.map((e) => [e.uuid.toLowerCase(), e.version]));
    const missing = [...listed.keys()].filter((u) => !other.has(u));
    const extra = [...other.keys()].filter((u) => !listed.has(u));
    const changed = [...listed.entries()].filter(([u, e]) => other.has(u) && other.get(u) !== e.version);
    if (missing.length)
      ev.fail.push(`${l.path} lacks ${missing.length} EPD(s) listed by ${primary!.path}: ${missing.slice(0, 5).join(', ')}`);
    if (extra.length)
      ev.fail.push(`${l.path} lists ${extra.length} EPD(s) that ${primary!.path} does not: ${extra.slice(0, 5).join(', ')}`);
    for (const [u, e] of changed.slice(0, 5))
      ev.fail.push(`${u}: version ${e.version} in ${primary!.path} but ${other.get(u)} in ${l.path}`);
  }
  if (primary && lists.every((l) => l.ok)) ev.pass.push(`${lists.map((l) => `${l.path}: ${l.entries.length} entries`).join('; ')}`);
  for (const e of c.epds) {
    if (e.r.failure === 'budget') continue;
    if (e.r.status !== 200) {
      ev.fail.push(`${e.path} is listed but not retrievable: ${reason(e.r)}`);
      continue;
    }
    const d = e.dataset;
    if (!d) continue;
    if (d.uuid !== e.entry.uuid.toLowerCase()) ev.fail.push(`${e.path}: the document's UUID is ${d.uuid}, the list says ${e.entry.uuid}`);
    if (e.entry.version !== undefined && d.version !== e.entry.version)
      ev.fail.push(`${e.path}: the document's version is ${d.version}, the list says ${e.entry.version}`);
  }
  ev.pass.push(
    `${epdCounts(c).retrieved} of ${listed.size} listed EPDs retrievable at ${c.datasetPaths.map((p) => `${p}<uuid>`).join(' and ')}`,
  );
}

function judgeHealth(c: Crawled, ev: Evidence, x: JudgeContext, all: Readonly<Record<CheckItemId, Evidence>>): void {
  for (const h of c.health) {
    if (!h.fetch.ok) ev.fail.push(`${h.path} could not be read`);
    else if (h.notJson !== undefined) ev.fail.push(`${h.path} is not JSON`);
    else if (h.schemaProblems.length)
      ev.fail.push(`${h.path} does not match schemas/health.schema.json: ${h.schemaProblems.slice(0, 3).join('; ')}`);
  }
  const docs = c.health.flatMap((h) => (h.doc ? [{ path: h.path, doc: h.doc }] : []));
  const listedCount = c.listed.size;
  const { retrieved } = epdCounts(c);
  const nodeId = c.nodeinfo.reduce<string | undefined>((id, n) => (n.fetch.ok && !n.invalid ? (n.nodeId ?? id) : id), undefined);
  // A list cut at a limit, or EPDs left unfetched by the time budget, cannot be compared with health's counts.
  const complete = Boolean(c.primary && !c.primary.truncated) && x.budgetHits === 0;
  for (const { path, doc } of docs) {
    const status = doc.status;
    const claimed = doc.epds?.listed;
    if (status === 'fail') ev.fail.push(`${path} says status "fail": ${doc.reasons?.join('; ') || 'no reasons given'}`);
    if (typeof claimed === 'number' && complete && claimed !== listedCount)
      ev.fail.push(`${path} claims ${claimed} listed EPDs; the list holds ${listedCount}`);
    if (typeof claimed === 'number' && complete && claimed > retrieved)
      ev.fail.push(`${path} claims ${claimed} EPDs; only ${retrieved} could be retrieved`);
    const problems = all.list.fail.length + all['epds-valid'].fail.length;
    if (status === 'ok' && problems) ev.fail.push(`${path} says "ok" but this check found ${problems} list or EPD problem(s)`);
    for (const l of (doc.lists as { path: string; entries: number }[] | undefined) ?? []) {
      if (l.entries !== listedCount && complete)
        ev.fail.push(`${path} says ${l.path} has ${l.entries} entries; the list holds ${listedCount}`);
    }
    const built = Date.parse(String(doc.builtAt));
    if (Number.isFinite(built)) {
      const ageH = (x.now.getTime() - built) / 3_600_000;
      if (ageH < -0.1) ev.fail.push(`${path} builtAt ${doc.builtAt} is in the future`);
      else if (x.maxAgeDays !== undefined && ageH > x.maxAgeDays * 24) {
        ev.fail.push(`${path} builtAt ${doc.builtAt} is ${(ageH / 24).toFixed(1)} days old, over --max-age ${x.maxAgeDays}`);
      }
      ev.pass.push(`${path}: status ${status}, ${claimed} EPDs, built ${doc.builtAt} (${formatAge(ageH)} ago)`);
    }
    if (doc.node?.id && nodeId && doc.node.id !== nodeId) ev.fail.push(`${path} names node ${doc.node.id}; nodeinfo says ${nodeId}`);
  }
  if (docs.length === 2 && (docs[0]!.doc.status !== docs[1]!.doc.status || docs[0]!.doc.epds?.listed !== docs[1]!.doc.epds?.listed)) {
    ev.fail.push(`${HEALTH_URLS.default} and ${HEALTH_URLS.v1} disagree`);
  }
}

function judgeContentTypes(c: Crawled, ev: Evidence, x: JudgeContext): void {
  for (const { r, kind } of c.typed) {
    const good = kind === 'xml' ? isXmlType(r) : isJsonType(r);
    const expected = kind === 'xml' ? 'application/xml or text/xml' : 'application/json';
    if (!good) ev.fail.push(`${rel(c, r.url)} answered Content-Type "${r.headers['content-type'] ?? '(none)'}"; expected ${expected}`);
  }
  const answered = ok200(x);
  const types = new Map<string, number>();
  for (const r of answered) types.set(mediaType(r), (types.get(mediaType(r)) ?? 0) + 1);
  if (answered.length) ev.pass.push([...types].map(([t, n]) => `${n} x ${t || '(none)'}`).join(', '));
  else ev.fail.push('no successful answer to inspect');
}

/** CORS over every API answer with status 200. */
function judgeCors(c: Crawled, ev: Evidence, x: JudgeContext): void {
  const answered = ok200(x);
  const noCors = answered.filter((r) => {
    const a = r.headers['access-control-allow-origin'];
    return a !== '*' && a !== x.origin;
  });
  if (noCors.length) {
    const eg = noCors
      .slice(0, 3)
      .map((r) => rel(c, r.url))
      .join(', ');
    ev.fail.push(`${noCors.length} of ${answered.length} answers lack Access-Control-Allow-Origin (* or the request's Origin), e.g. ${eg}`);
  } else if (answered.length)
    ev.pass.push(
      `all ${answered.length} answers carry Access-Control-Allow-Origin: ${answered[0]!.headers['access-control-allow-origin']}`,
    );
  else ev.fail.push('no successful answer to inspect');
}

/** nodeinfo baseURL, list hrefs and health agree, and match the checked URL (remote only). */
function judgeBaseUrl(c: Crawled, ev: Evidence, x: JudgeContext): void {
  for (const n of c.nodeinfo) if (n.fetch.ok && !n.invalid && n.baseUrl === undefined) ev.fail.push(`${n.path} has no baseURL`);
  const info = c.nodeinfo.flatMap((n) => (n.baseUrl !== undefined ? [n.baseUrl] : []));
  if (new Set(info).size > 1) ev.fail.push(`${NODEINFO_URLS.join(' and ')} give different baseURLs: ${info.join(' vs ')}`);
  const healthBase = c.health.find((h) => h.doc)?.doc?.node?.baseUrl;
  const published = x.local ? (healthBase ?? undefined) : c.base;
  const expected = published !== undefined ? `${published.replace(/\/+$/, '')}/resource` : undefined;
  const nodeBase = info[0];
  if (nodeBase !== undefined) {
    const how = x.local ? ' (from health node.baseUrl)' : ' (the checked URL + /resource)';
    if (!/^https?:\/\//i.test(nodeBase))
      ev.fail.push(`nodeinfo baseURL "${nodeBase}" is not absolute; build with --base-url <the public URL>`);
    else if (expected === undefined) {
      ev.fail.push(
        `cannot tell the published base URL (health node.baseUrl is ${healthBase === null ? 'null: built without --base-url' : 'missing'})`,
      );
    } else if (nodeBase.replace(/\/+$/, '') !== expected) ev.fail.push(`nodeinfo baseURL is ${nodeBase}; expected ${expected}${how}`);
    else
      ev.pass.push(
        `nodeinfo baseURL ${nodeBase}${x.local ? ` (the folder was served locally at ${c.base}; its published URL is ${published})` : ''}`,
      );
    const hrefs = c.lists.flatMap((l) => l.entries.map((e) => ({ l: showList(l), href: e.href }))).filter((h) => h.href);
    const v1 = `${(published ?? '').replace(/\/+$/, '')}/v1/`;
    const off = hrefs.filter((h) => !h.href!.startsWith(`${nodeBase.replace(/\/+$/, '')}/`) && !h.href!.startsWith(v1));
    if (off.length) ev.fail.push(`${off.length} list link(s) do not start with the baseURL, e.g. ${off[0]!.l}: ${off[0]!.href}`);
    else if (hrefs.length) ev.pass.push(`${hrefs.length} list links start with the node's base URL`);
  } else if (c.sets.includes('default')) {
    ev.fail.push('no nodeinfo baseURL could be read');
  } else {
    ev.pass.push('nodeinfo is not part of the v1 path set; links checked against health node.baseUrl');
  }
}

/** Whether the node serves per-EPD ZIP exports: one EPD's export, read as ilcdlib's converter would. */
function judgeZipExport(c: Crawled, ev: Evidence): void {
  const z = c.zipExport;
  if (!z) {
    ev.pass.push(
      c.sets.includes('default')
        ? 'not checked: no EPD listed'
        : 'not checked: ZIP exports belong to the soda4LCA path set (--paths default)',
    );
    return;
  }
  const { path, entry, r } = z;
  if (r.failure === 'budget') return void ev.pass.push(`not checked: ${path} was not requested (time budget)`);
  if (r.status === 404 || r.status === 410) {
    ev.pass.push(
      `no: ${path} answered HTTP ${r.status}; the node has no per-EPD ZIP exports, so ilcdlib's converter cannot fetch an EPD ` +
        'with its dependencies in one request (po-node build --zip-export adds them)',
    );
    return;
  }
  if (r.status !== 200) return void ev.pass.push(`unknown: ${path} answered ${reason(r)}`);
  const names: string[] = [];
  try {
    // Central directory only: nothing is inflated.
    unzipSync(r.body, { filter: (f) => (names.push(f.name), false) });
  } catch (e) {
    return void ev.pass.push(`no: ${path} answered HTTP 200 but not with a ZIP (${(e as Error).message})`);
  }
  const own = names.some((n) => n.toLowerCase().startsWith(`ilcd/processes/${entry.uuid.toLowerCase()}`));
  const kb = (r.body.length / 1024).toFixed(0);
  ev.pass.push(
    own
      ? `yes: ${path}: HTTP 200, ${mediaType(r) || '(no type)'}, ${kb} KB, the EPD and ${names.length - 1} dependencies`
      : `no: ${path}: HTTP 200, a ZIP of ${names.length} entries without the EPD itself (ILCD/processes/${entry.uuid}...)`,
  );
}

function rel(c: Crawled, url: string): string {
  return url.startsWith(c.base) ? url.slice(c.base.length) || '/' : url;
}

function formatAge(hours: number): string {
  if (hours < 0) return '0 h';
  return hours < 48 ? `${hours.toFixed(1)} h` : `${(hours / 24).toFixed(1)} days`;
}
