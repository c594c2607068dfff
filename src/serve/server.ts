import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { documentContentType, SUB } from '../emit/dependencies.js';
import { LIST_JSON_TYPE, LIST_XML_TYPE } from '../emit/soda4lca.js';
import { isInside } from '../read/inputs.js';

export interface SiteServerOptions {
  /** Interface to bind (default 127.0.0.1: a preview, not a public server). */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

export interface SiteServer {
  server: Server;
  /** Starts listening; resolves with the base URL. */
  listen(): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

const UUID = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';
const DATASET_RE = new RegExp(`^/(resource/(?:processes|flows|flowproperties|unitgroups|contacts|sources|lciamethods)|v1/epds)/(${UUID})$`);
/** Lists of the other dataset types: static documents only (paging and search are for processes). */
const TYPE_LIST_RE = /^\/resource\/(flows|flowproperties|unitgroups|contacts|sources|lciamethods)$/;
/** Below a dataset URL: files of the sibling `<uuid>_files/` folder (docs/dependencies.md). */
const ZIPEXPORT_RE = new RegExp(`^/resource/processes/(${UUID})/zipexport$`);
const EPD_PDF_RE = new RegExp(`^/resource/processes/(${UUID})/epd$`);
const SOURCE_FILE_RE = new RegExp(`^/resource/sources/(${UUID})/([^/]+)$`);
const FIXED: Record<string, string> = {
  '/v1/epds': 'v1/epds/index.json',
  '/nodeinfo': 'nodeinfo/index.xml',
  '/resource/nodeinfo': 'resource/nodeinfo/index.xml',
  '/healthz': 'healthz/index.json',
  '/v1/healthz': 'v1/healthz/index.json',
};
const BY_EXT: Record<string, string> = { xml: LIST_XML_TYPE, json: LIST_JSON_TYPE, html: 'text/html; charset=UTF-8' };
const LIST_PARAMS = ['startIndex', 'pageSize', 'search', 'name'];
/** soda4LCA's default page size (AbstractDataSetResource: @DefaultValue("500")). */
export const DEFAULT_PAGE_SIZE = 500;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A preview of a built site that answers every API URL as the best configured host does (nginx/Apache rules),
 * and also what only a dynamic soda4LCA node can: paging, name search and `version` checks, from the built index.
 */
export function createSiteServer(siteDir: string, opts: SiteServerOptions = {}): SiteServer {
  const root = resolve(siteDir);
  if (!existsSync(join(root, 'resource/processes/index.xml')) && !existsSync(join(root, 'v1/epds/index.json'))) {
    throw new InputError(`${siteDir} is not a built po-node site (no resource/processes/index.xml or v1/epds/index.json)`, { hint: 'Run `po-node build` first, or pass the output folder: po-node serve site' });
  }
  const list = lazyList(root);
  const server = createServer((req, res) => {
    try {
      handle(root, list, req, res);
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      send(res, req, status, 'text/plain; charset=UTF-8', `${e instanceof HttpError ? e.message : 'internal error'}\n`);
    }
  });
  return {
    server,
    listen: () =>
      new Promise((ok, fail) => {
        server.once('error', fail);
        server.listen(opts.port ?? 8080, opts.host ?? '127.0.0.1', () => {
          const { port, address } = server.address() as AddressInfo;
          const host = address.includes(':') ? `[${address}]` : address;
          ok({ url: `http://${host}:${port}`, port });
        });
      }),
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

function handle(root: string, list: () => ListIndex, req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
  if (req.method === 'OPTIONS') return void send(res, req, 204);
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'Only GET, HEAD and OPTIONS');
  const url = new URL(req.url ?? '/', 'http://localhost');
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    throw new HttpError(400, 'Malformed URL');
  }
  if (path.split('/').some((s) => s.startsWith('.'))) throw new HttpError(404, 'Not found');
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const q = url.searchParams;

  if (bare === '/resource/processes') {
    const format = listFormat(q.get('format'));
    if (!LIST_PARAMS.some((p) => q.has(p))) return sendFile(root, `resource/processes/index.${format}`, req, res);
    return sendPage(list(), q, format, req, res);
  }
  const typeList = TYPE_LIST_RE.exec(bare);
  if (typeList) return sendFile(root, `resource/${typeList[1]}/index.${listFormat(q.get('format'))}`, req, res);
  const fixed = FIXED[bare];
  if (fixed) return sendFile(root, fixed, req, res);
  // Query strings (format=zip, version) are ignored here, as on the static hosts.
  const zip = ZIPEXPORT_RE.exec(path);
  if (zip) return sendFile(root, SUB.zipExport(zip[1]!.toLowerCase()), req, res, 'application/zip');
  const pdf = EPD_PDF_RE.exec(path);
  if (pdf) return sendFile(root, SUB.epdPdf(pdf[1]!.toLowerCase()), req, res, 'application/pdf');
  const doc = SOURCE_FILE_RE.exec(path);
  if (doc) return sendFile(root, SUB.sourceFile(doc[1]!.toLowerCase(), doc[2]!), req, res, documentContentType(doc[2]!));
  const m = DATASET_RE.exec(path);
  if (m) {
    const version = q.get('version');
    const rel = `${m[1]}/${m[2]!.toLowerCase()}`;
    if (version !== null && publishedVersion(join(root, rel)) !== version) throw new HttpError(404, `Version ${version} of ${m[2]} is not published here`);
    return sendFile(root, rel, req, res, LIST_XML_TYPE);
  }
  // Anything else: a file of the tree, or a folder's index.
  const rel = bare.replace(/^\/+/, '');
  for (const cand of [rel, `${rel}/index.html`.replace(/^\//, ''), `${rel}/index.xml`, `${rel}/index.json`]) {
    const abs = join(root, cand);
    if (cand && isInside(root, abs) && statSync(abs, { throwIfNoEntry: false })?.isFile()) return sendFile(root, cand, req, res);
  }
  throw new HttpError(404, 'Not found');
}

/** soda4LCA: JSON when format is JSON (any case), XML when absent or XML; anything else is refused here. */
export function listFormat(v: string | null): 'xml' | 'json' {
  if (v === null || v === '') return 'xml';
  const f = v.toLowerCase();
  if (f === 'xml' || f === 'json') return f;
  throw new HttpError(400, `Unknown format "${v}": use format=xml (the default) or format=json`);
}

interface ListIndex {
  /** XML start of the list up to the paging attributes, and each entry's XML and names. */
  xmlHead: string;
  entries: { uuid: string; xml: string; names: string[]; json: Record<string, unknown> | undefined }[];
}

/** Read the built lists once, on first use: entries in list order, joined by UUID. */
function lazyList(root: string): () => ListIndex {
  let cached: ListIndex | undefined;
  return () => {
    if (cached) return cached;
    const xml = readFileSync(join(root, 'resource/processes/index.xml'), 'utf8');
    const json = JSON.parse(readFileSync(join(root, 'resource/processes/index.json'), 'utf8')) as { data: Record<string, unknown>[] };
    const byUuid = new Map(json.data.map((d) => [String(d.uuid), d]));
    const head = /^[\s\S]*?<serviceapi:dataSetList\b[^>]*>\n/.exec(xml);
    if (!head) throw new Error('resource/processes/index.xml has no dataSetList');
    const entries = [...xml.matchAll(/ {4}<process:process\b[\s\S]*?<\/process:process>\n/g)].map((m) => {
      const block = m[0];
      const uuid = /<serviceapi:uuid>([^<]+)</.exec(block)?.[1] ?? '';
      const names = [...block.matchAll(/<serviceapi:name\b[^>]*>([^<]*)</g)].map((n) => unescapeXml(n[1]!));
      return { uuid, xml: block, names, json: byUuid.get(uuid) };
    });
    cached = { xmlHead: head[0], entries };
    return cached;
  };
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

function intParam(q: URLSearchParams, name: string, dflt: number, min: number): number {
  const v = q.get(name);
  if (v === null || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new HttpError(400, `${name} must be a whole number ≥ ${min}, got "${v}"`);
  return Number(v);
}

/** One soda4LCA page: `search=true` with `name` keeps entries whose name contains every term (any language, any case). */
function sendPage(index: ListIndex, q: URLSearchParams, format: 'xml' | 'json', req: IncomingMessage, res: ServerResponse): void {
  const startIndex = intParam(q, 'startIndex', 0, 0);
  const pageSize = intParam(q, 'pageSize', DEFAULT_PAGE_SIZE, 1);
  const terms = q.get('search') === 'true' ? (q.get('name') ?? '').toLowerCase().split(/\s+/).filter(Boolean) : [];
  const matches = index.entries.filter((e) => {
    const names = [...e.names, String(e.json?.name ?? '')].map((n) => n.toLowerCase());
    return terms.every((t) => names.some((n) => n.includes(t)));
  });
  const page = matches.slice(startIndex, startIndex + pageSize);
  if (format === 'json') {
    const body = JSON.stringify({ startIndex, pageSize, totalCount: matches.length, data: page.map((e) => e.json) });
    return send(res, req, 200, LIST_JSON_TYPE, body);
  }
  const head = index.xmlHead.replace(/serviceapi:totalSize="\d+" serviceapi:startIndex="\d+" serviceapi:pageSize="\d+"/, `serviceapi:totalSize="${matches.length}" serviceapi:startIndex="${startIndex}" serviceapi:pageSize="${pageSize}"`);
  send(res, req, 200, LIST_XML_TYPE, `${head}${page.map((e) => e.xml).join('')}</serviceapi:dataSetList>\n`);
}

/** The dataset's own dataSetVersion (first element of that name: administrativeInformation). */
function publishedVersion(abs: string): string | undefined {
  if (!existsSync(abs)) return undefined;
  return /<(?:[A-Za-z_][\w.-]*:)?dataSetVersion>\s*([^<\s]+)\s*</.exec(readFileSync(abs, 'utf8'))?.[1];
}

function sendFile(root: string, rel: string, req: IncomingMessage, res: ServerResponse, type?: string): void {
  const abs = join(root, rel);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!isInside(root, abs) || !st?.isFile()) throw new HttpError(404, 'Not found');
  const ctype = type ?? BY_EXT[rel.split('.').pop() ?? ''] ?? 'application/octet-stream';
  // Precompressed copy when the client accepts gzip, as nginx gzip_static does.
  const gz = `${abs}.gz`;
  const useGz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')) && statSync(gz, { throwIfNoEntry: false })?.isFile();
  res.setHeader('Vary', 'Accept-Encoding');
  if (useGz) res.setHeader('Content-Encoding', 'gzip');
  const file = useGz ? gz : abs;
  res.writeHead(200, { 'Content-Type': ctype, 'Content-Length': statSync(file).size });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type?: string, body = ''): void {
  const headers: Record<string, string | number> = { 'Content-Length': Buffer.byteLength(body) };
  if (type) headers['Content-Type'] = type;
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
