import { createHash } from 'node:crypto';
import { constants, existsSync, type BigIntStats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream';
import { InputError } from '../errors.js';
import {
  DATASET_URL_RE,
  documentContentType,
  FIXED_ROUTES,
  LIST_JSON_TYPE,
  LIST_URLS,
  LIST_XML_TYPE,
  listFile,
  pageFile,
  PROCESSES,
  SITE_MARKERS,
  siteContentType,
  SUB_RESOURCES,
  subResourceFile,
  subResourceUrlRe,
  TYPE_LIST_URL_RE,
} from '../site/routes.js';
import { isInside } from '../util/paths.js';
import { ENCODINGS, type Encoding } from '../config/load.js';
import { acceptedEncodings, ENCODING_EXT } from '../emit/precompress.js';

export interface SiteServerOptions {
  /** Interface to bind (default 127.0.0.1: a preview, not a public server). */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Where a request the site could not answer (unreadable file, unreadable list) is logged; default stderr. */
  log?: (line: string) => void;
}

export interface SiteServer {
  server: Server;
  /** Starts listening; resolves with the base URL. */
  listen(): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

/** The URLs of src/site/routes.ts: below a dataset URL, files of the sibling `<uuid>_files/` folder. */
const SUBS = SUB_RESOURCES.map((sub) => ({ sub, re: subResourceUrlRe(sub) }));
const FIXED: Record<string, string> = Object.fromEntries(FIXED_ROUTES.map((r) => [r.url, r.files[0]!.file]));
const PROCESS_LIST = { xml: listFile(PROCESSES, 'xml'), json: listFile(PROCESSES, 'json') };
const LIST_PARAMS = ['startIndex', 'pageSize', 'search', 'name'];
const ALLOW = 'GET, HEAD, OPTIONS';
/** Published names never hold these (isSafeDocumentName), so a request for one is malformed, not missing. */
// eslint-disable-next-line no-control-regex
const BAD_PATH_CHARS = /[\\\u0000-\u001f\u007f]/;
/** soda4LCA's default page size (AbstractDataSetResource: @DefaultValue("500")). */
export const DEFAULT_PAGE_SIZE = 500;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** What the operator's log gets (never sent to the client: it may name files). */
    readonly detail?: string,
  ) {
    super(message);
  }
}

/**
 * A preview of a built site that answers every API URL as the best configured host does (nginx/Apache rules),
 * and also what only a dynamic soda4LCA node can: paging, name search and `version` checks, from the built index.
 * A request that fails (unreadable file, odd file type, malformed URL) gets its own error answer; the server goes on.
 */
export function createSiteServer(siteDir: string, opts: SiteServerOptions = {}): SiteServer {
  const root = resolve(siteDir);
  if (!SITE_MARKERS.some((f) => existsSync(join(root, f)))) {
    throw new InputError(`${siteDir} is not a built po-node site (no ${SITE_MARKERS.join(' or ')})`, {
      hint: 'Run `po-node build` first, or pass the output folder: po-node serve site',
    });
  }
  const log = opts.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const ctx: Ctx = { root, list: new ListCache(root), log };
  const server = createServer((req, res) => {
    // A failing log callback, too, costs this one request and not the process (no unhandled rejection).
    handle(ctx, req, res)
      .catch((e: unknown) => answerError(ctx, req, res, e))
      .catch(() => res.destroy());
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

/** The error answer of one request; logged when the server, not the client, is at fault (or a file is refused). */
function answerError(ctx: Ctx, req: IncomingMessage, res: ServerResponse, e: unknown): void {
  const status = e instanceof HttpError ? e.status : 500;
  if (status >= 500 || (e instanceof HttpError && e.detail)) {
    const detail = e instanceof HttpError ? (e.detail ?? e.message) : String((e as Error)?.stack ?? e);
    ctx.log(`serve: ${status} ${req.method} ${printable(req.url ?? '')}: ${detail}`);
  }
  // Headers gone (the body stream failed midway): the client must not take a short body for the whole.
  if (res.headersSent) return void res.destroy();
  if (status === 405) res.setHeader('Allow', ALLOW);
  if (status === 503) res.setHeader('Retry-After', '1');
  send(res, req, status, 'text/plain; charset=UTF-8', `${e instanceof HttpError ? e.message : 'Internal error'}\n`);
}

/** A request target for the log: control characters replaced, length bounded. */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  const p = s.replace(/[\u0000-\u001f\u007f]/g, '?');
  return p.length > 200 ? `${p.slice(0, 200)}…` : p;
}

interface Ctx {
  root: string;
  list: ListCache;
  log: (line: string) => void;
}

async function handle(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { root } = ctx;
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', ALLOW);
  if (req.method === 'OPTIONS') {
    res.setHeader('Allow', ALLOW);
    return send(res, req, 204);
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'Only GET, HEAD and OPTIONS');
  const target = req.url ?? '/';
  // A backslash is no separator here (the URL parser would turn it into one): refused, as Windows paths are.
  if (target.split('?')[0]!.includes('\\')) throw new HttpError(400, 'Malformed URL: backslash in the path');
  let url: URL;
  let path: string;
  try {
    url = new URL(target, 'http://localhost');
    path = decodeURIComponent(url.pathname);
  } catch {
    throw new HttpError(400, 'Malformed URL');
  }
  if (BAD_PATH_CHARS.test(path)) throw new HttpError(400, 'Malformed URL: control character or backslash in the path');
  if (path.split('/').some((s) => s.startsWith('.'))) throw new HttpError(404, 'Not found');
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const q = url.searchParams;

  if (bare === LIST_URLS.default) {
    const format = listFormat(q.get('format'));
    if (!LIST_PARAMS.some((p) => q.has(p))) return sendFile(ctx, PROCESS_LIST[format], req, res);
    // A page the build wrote: its file and siblings (same bytes as the dynamic page, and compressed where accepted).
    const written = prePaged(q, format);
    if (written && (await isFile(root, written))) return sendFile(ctx, written, req, res);
    return sendPage(await ctx.list.get(), q, format, req, res);
  }
  const typeList = TYPE_LIST_URL_RE.exec(bare);
  if (typeList) return sendFile(ctx, listFile(typeList[1]!, listFormat(q.get('format'))), req, res);
  const fixed = FIXED[bare];
  if (fixed) return sendFile(ctx, fixed, req, res);
  // Query strings (format=zip, version) are ignored here, as on the static hosts.
  for (const { sub, re } of SUBS) {
    const m = re.exec(path);
    if (m) {
      const file = subResourceFile(sub, m[1]!.toLowerCase(), m[2]);
      return sendFile(ctx, file, req, res, documentContentType(file));
    }
  }
  const m = DATASET_URL_RE.exec(path);
  if (m) {
    const version = q.get('version');
    const rel = `${m[1]}/${m[2]!.toLowerCase()}`;
    if (version !== null && (await publishedVersion(root, rel)) !== version) {
      throw new HttpError(404, `Version ${version} of ${m[2]} is not published here`);
    }
    return sendFile(ctx, rel, req, res, LIST_XML_TYPE);
  }
  // Anything else: a file of the tree, or a folder's index.
  const rel = bare.replace(/^\/+/, '');
  for (const cand of [rel, `${rel}/index.html`.replace(/^\//, ''), `${rel}/index.xml`, `${rel}/index.json`]) {
    if (cand && isInside(root, join(root, cand)) && (await isFile(root, cand))) return sendFile(ctx, cand, req, res);
  }
  throw new HttpError(404, 'Not found');
}

/** The page file a host routes `?startIndex=S&pageSize=P` to (docs/hosting.md), when no name search asks for less. */
function prePaged(q: URLSearchParams, format: 'xml' | 'json'): string | undefined {
  const digits = (v: string | null) => (v !== null && /^(0|[1-9]\d{0,8})$/.test(v) ? Number(v) : undefined);
  const size = digits(q.get('pageSize'));
  const start = q.has('startIndex') ? digits(q.get('startIndex')) : 0;
  if (q.get('name') || size === undefined || start === undefined) return undefined;
  return pageFile(size, start, format);
}

/** soda4LCA: JSON when format is JSON (any case), XML when absent or XML; anything else is refused here. */
export function listFormat(v: string | null): 'xml' | 'json' {
  if (v === null || v === '') return 'xml';
  const f = v.toLowerCase();
  if (f === 'xml' || f === 'json') return f;
  throw new HttpError(400, `Unknown format "${v}": use format=xml (the default) or format=json`);
}

const MISSING = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG', 'EISDIR']);

/** A file-system error as the answer to the request: missing is 404, not allowed 403, the rest 500 (logged). */
function fsError(e: unknown, rel: string): HttpError | undefined {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  if (MISSING.has(code)) return undefined;
  if (code === 'EACCES' || code === 'EPERM') {
    return new HttpError(403, 'Forbidden: the server may not read this file', `${code}: cannot read ${rel}`);
  }
  return new HttpError(500, 'The server could not read this file', `${code || (e as Error).message}: cannot read ${rel}`);
}

async function isFile(root: string, rel: string): Promise<boolean> {
  try {
    return (await stat(join(root, rel))).isFile();
  } catch (e) {
    const err = fsError(e, rel);
    if (err) throw err;
    return false;
  }
}

/**
 * Open a file of the site for reading, or undefined when there is no regular file there. O_NONBLOCK: a FIFO put
 * in a file's place must not hold the open (and a thread of the pool) until some writer appears; fstat on the
 * open descriptor then refuses it, and anything else that is not a regular file, without a race.
 */
async function openFile(root: string, rel: string): Promise<{ fh: FileHandle; st: BigIntStats } | undefined> {
  const abs = join(root, rel);
  if (!isInside(root, abs)) return undefined;
  let fh: FileHandle;
  try {
    fh = await open(abs, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const err = fsError(e, rel);
    if (err) throw err;
    return undefined;
  }
  try {
    const st = await fh.stat({ bigint: true });
    if (st.isFile()) return { fh, st };
  } catch (e) {
    await fh.close();
    throw fsError(e, rel) ?? new HttpError(404, 'Not found');
  }
  await fh.close();
  return undefined;
}

/** The whole file, or undefined when it is missing or not a regular file. */
async function readSiteFile(root: string, rel: string): Promise<Buffer | undefined> {
  const f = await openFile(root, rel);
  if (!f) return undefined;
  try {
    return await f.fh.readFile();
  } catch (e) {
    throw fsError(e, rel) ?? new HttpError(404, 'Not found');
  } finally {
    await f.fh.close();
  }
}

interface ListIndex {
  /** XML start of the list up to the paging attributes, and each entry's XML and names. */
  xmlHead: string;
  entries: { uuid: string; xml: string; names: string[]; json: Record<string, unknown> | undefined }[];
}

const LIST_FILES = [PROCESS_LIST.xml, PROCESS_LIST.json];

/**
 * The built lists in memory, re-read when the site changes. `build` swaps in a new folder by rename, so a watch on
 * the old folder sees nothing; instead each paged request stats both list files (two stat calls, far cheaper than
 * the page itself) and compares device, inode, size, mtime and ctime with those of the lists in memory.
 */
class ListCache {
  private current: { key: string; index: ListIndex } | undefined;
  private loading: Promise<{ key: string; index: ListIndex }> | undefined;

  constructor(private readonly root: string) {}

  get(): Promise<{ key: string; index: ListIndex }> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async key(): Promise<string> {
    const sts = await Promise.all(
      LIST_FILES.map((f) =>
        stat(join(this.root, f), { bigint: true }).catch((e: unknown) => {
          throw fsError(e, f) ?? new HttpError(404, 'Not found');
        }),
      ),
    );
    return sts.map((s) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`).join('/');
  }

  private async load(): Promise<{ key: string; index: ListIndex }> {
    // A rebuild swaps the folder by two renames: between them the site is absent, and a list read across the swap
    // mixes two builds. Both are retried a few times (0.75 s in all); a list missing from a present site is a 404.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
      try {
        const before = await this.key();
        if (this.current?.key === before) return this.current;
        const index = await readIndex(this.root);
        if ((await this.key()) === before) return (this.current = { key: before, index });
      } catch (e) {
        if (!(e instanceof HttpError && e.status === 404 && !existsSync(this.root))) throw e;
      }
    }
    const why = 'the list files kept changing or missing while read';
    throw new HttpError(503, 'The list cannot be read now (is a build replacing the site?); try again', why);
  }
}

/** Entries in list order, joined by UUID. */
async function readIndex(root: string): Promise<ListIndex> {
  const [xmlBytes, jsonBytes] = await Promise.all(LIST_FILES.map((f) => readSiteFile(root, f)));
  if (!xmlBytes || !jsonBytes) throw new HttpError(404, 'Not found');
  const xml = xmlBytes.toString('utf8');
  const json = JSON.parse(jsonBytes.toString('utf8')) as { data: Record<string, unknown>[] };
  const byUuid = new Map(json.data.map((d) => [String(d.uuid), d]));
  const head = /^[\s\S]*?<serviceapi:dataSetList\b[^>]*>\n/.exec(xml);
  if (!head) throw new HttpError(500, 'Internal error', `${PROCESS_LIST.xml} has no dataSetList`);
  const entries = [...xml.matchAll(/ {4}<process:process\b[\s\S]*?<\/process:process>\n/g)].map((m) => {
    const block = m[0];
    const uuid = /<serviceapi:uuid>([^<]+)</.exec(block)?.[1] ?? '';
    const names = [...block.matchAll(/<serviceapi:name\b[^>]*>([^<]*)</g)].map((n) => unescapeXml(n[1]!));
    return { uuid, xml: block, names, json: byUuid.get(uuid) };
  });
  return { xmlHead: head[0], entries };
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function intParam(q: URLSearchParams, name: string, dflt: number, min: number): number {
  const v = q.get(name);
  if (v === null || v === '') return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new HttpError(400, `${name} must be a whole number ≥ ${min}, got "${v}"`);
  return Number(v);
}

/** One soda4LCA page: `search=true` with `name` keeps entries whose name contains every term (any language, any case). */
function sendPage(
  list: { key: string; index: ListIndex },
  q: URLSearchParams,
  format: 'xml' | 'json',
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const startIndex = intParam(q, 'startIndex', 0, 0);
  const pageSize = intParam(q, 'pageSize', DEFAULT_PAGE_SIZE, 1);
  const terms = q.get('search') === 'true' ? (q.get('name') ?? '').toLowerCase().split(/\s+/).filter(Boolean) : [];
  // The page follows from the lists in memory and these parameters alone: their hash is a strong validator.
  const hash = createHash('sha256').update(JSON.stringify([list.key, format, startIndex, pageSize, terms]));
  const etag = `"p-${hash.digest('base64url').slice(0, 32)}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', 'no-cache');
  const cond = conditional(req, etag, undefined);
  if (cond) return send(res, req, cond);
  const matches = list.index.entries.filter((e) => {
    const names = [...e.names, typeof e.json?.name === 'string' ? e.json.name : ''].map((n) => n.toLowerCase());
    return terms.every((t) => names.some((n) => n.includes(t)));
  });
  const page = matches.slice(startIndex, startIndex + pageSize);
  if (format === 'json') {
    const body = JSON.stringify({ startIndex, pageSize, totalCount: matches.length, data: page.map((e) => e.json) });
    return send(res, req, 200, LIST_JSON_TYPE, body);
  }
  const head = list.index.xmlHead.replace(
    /serviceapi:totalSize="\d+" serviceapi:startIndex="\d+" serviceapi:pageSize="\d+"/,
    `serviceapi:totalSize="${matches.length}" serviceapi:startIndex="${startIndex}" serviceapi:pageSize="${pageSize}"`,
  );
  send(res, req, 200, LIST_XML_TYPE, `${head}${page.map((e) => e.xml).join('')}</serviceapi:dataSetList>\n`);
}

/** The dataset's own dataSetVersion (first element of that name: administrativeInformation). */
async function publishedVersion(root: string, rel: string): Promise<string | undefined> {
  const bytes = await readSiteFile(root, rel);
  return bytes && /<(?:[A-Za-z_][\w.-]*:)?dataSetVersion>\s*([^<\s]+)\s*</.exec(bytes.toString('utf8'))?.[1];
}

/** Entity tags of an If-Match / If-None-Match list; `*` stands for any. */
function tagList(h: string | undefined): string[] | undefined {
  return h === undefined
    ? undefined
    : h
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
}
const weakEq = (a: string, b: string) => a.replace(/^W\//, '') === b.replace(/^W\//, '');
const strongEq = (a: string, b: string) => !a.startsWith('W/') && a === b;
const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * RFC 9110 §13.2.2 in order: If-Match, else If-Unmodified-Since (412 when it fails); If-None-Match, else
 * If-Modified-Since (304 when the client's copy is current). Returns the status to answer, or undefined.
 */
function conditional(req: IncomingMessage, etag: string, mtimeMs: number | undefined): 304 | 412 | undefined {
  const h = req.headers;
  const ifMatch = tagList(h['if-match']);
  if (ifMatch) {
    if (!ifMatch.some((t) => t === '*' || strongEq(t, etag))) return 412;
  } else if (h['if-unmodified-since'] && mtimeMs !== undefined) {
    const d = Date.parse(h['if-unmodified-since']);
    if (!Number.isNaN(d) && seconds(mtimeMs) > seconds(d)) return 412;
  }
  const ifNone = tagList(h['if-none-match']);
  if (ifNone) {
    if (ifNone.some((t) => t === '*' || weakEq(t, etag))) return 304;
  } else if (h['if-modified-since'] && mtimeMs !== undefined) {
    const d = Date.parse(h['if-modified-since']);
    if (!Number.isNaN(d) && seconds(mtimeMs) <= seconds(d)) return 304;
  }
  return undefined;
}

/**
 * One `Range: bytes=…` of a GET: the part to send, 'unsatisfiable' (416), or undefined for the whole body: no or
 * another unit, a malformed header (RFC 9110 lets a server ignore it), or several ranges (sent whole, not multipart).
 */
export function byteRange(h: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (h === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(.*)$/i.exec(h);
  if (!m) return undefined;
  const specs = m[1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (specs.length !== 1) return undefined;
  const spec = specs[0]!;
  const suffix = /^-(\d+)$/.exec(spec);
  if (suffix) {
    const n = Number(suffix[1]);
    return n === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - n), end: size - 1 };
  }
  const r = /^(\d+)-(\d*)$/.exec(spec);
  if (!r) return undefined;
  const start = Number(r[1]);
  const end = r[2] === '' ? Infinity : Number(r[2]);
  if (end < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}

/** If-Range: the range applies only while the client's validator (strong tag or exact date) is still current. */
function ifRangeHolds(req: IncomingMessage, etag: string, lastModified: string): boolean {
  const h = req.headers['if-range'];
  if (typeof h !== 'string') return true;
  const v = h.trim();
  return /^(W\/)?"/.test(v) ? strongEq(v, etag) : v === lastModified;
}

async function sendFile(ctx: Ctx, rel: string, req: IncomingMessage, res: ServerResponse, type?: string): Promise<void> {
  // A precompressed sibling in the client's preferred encoding (q=0 refuses one), as nginx gzip_static/brotli_static
  // and the Apache rules pick it; the plain file when there is none or it cannot be read.
  let encoding: Encoding | undefined;
  let f: Awaited<ReturnType<typeof openFile>>;
  for (const e of acceptedEncodings(header(req, 'accept-encoding'), ENCODINGS)) {
    f = await openFile(ctx.root, `${rel}${ENCODING_EXT[e]}`).catch(() => undefined);
    if (f) {
      encoding = e;
      break;
    }
  }
  f ??= await openFile(ctx.root, rel);
  if (!f) throw new HttpError(404, 'Not found');
  const { fh, st } = f;
  let streaming = false;
  try {
    const size = Number(st.size);
    const mtimeMs = Number(st.mtimeMs);
    // Strong tag of this representation: the open file's identity and state (a rebuilt file is a new inode).
    const etag = `"${st.ino.toString(16)}-${st.size.toString(16)}-${st.mtimeNs.toString(16)}"`;
    const lastModified = new Date(mtimeMs).toUTCString();
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', lastModified);
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Accept-Ranges', 'bytes');
    const cond = conditional(req, etag, mtimeMs);
    if (cond) return send(res, req, cond);
    const ctype = type ?? siteContentType(rel) ?? 'application/octet-stream';
    // Range applies to GET only (RFC 9110 §14.2); HEAD gets the headers of the whole body.
    const range = req.method === 'GET' && ifRangeHolds(req, etag, lastModified) ? byteRange(req.headers.range, size) : undefined;
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${size}`);
      return send(res, req, 416, 'text/plain; charset=UTF-8', `Range not satisfiable: the file has ${size} bytes\n`);
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const headers: Record<string, string | number> = { 'Content-Type': ctype, 'Content-Length': size === 0 ? 0 : end - start + 1 };
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    // Only on the body itself: a 304, 412 or 416 carries no compressed bytes.
    if (encoding) headers['Content-Encoding'] = encoding;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || size === 0) return void res.end();
    streaming = true;
    // A read error midway (EIO, a file truncated under us) ends this response only; pipeline closes the file.
    pipeline(fh.createReadStream({ start, end, autoClose: true }), res, (e) => {
      if (!e || e.code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      const code = e.code ?? e.message;
      ctx.log(`serve: ${req.method} ${printable(req.url ?? '')}: ${code} while reading ${rel}; response cut`);
      res.destroy();
    });
  } finally {
    if (!streaming) await fh.close();
  }
}

/** A request header as one string (a repeated header joined, as RFC 9110 §5.3 allows for lists). */
function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function send(res: ServerResponse, req: IncomingMessage, status: number, type?: string, body = ''): void {
  if (status === 304 || status === 204) {
    res.writeHead(status);
    return void res.end();
  }
  const headers: Record<string, string | number> = { 'Content-Length': Buffer.byteLength(body) };
  if (type) headers['Content-Type'] = type;
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
