import { DATASET_TYPES, UUID_RE } from '../parse/ilcd.js';

/**
 * The URL layout of a built site, as data: every public URL of both path sets, the file that answers it, its
 * Content-Type and its path set. Emit writes these files, the host configs (templates/hosts) and `po-node serve`
 * route these URLs, deploy uploads and invalidates them, the HTML catalogue links them. A leaf module: no I/O, and it
 * imports only the ILCD type table (its folders are soda4LCA's `/resource/<folder>`), so every layer may import it.
 */

export type PathSet = 'default' | 'v1';

/** Path-set prefixes and the fixed names below them. */
const RESOURCE = 'resource';
const V1 = 'v1';
const HEALTH = 'healthz';
const NODEINFO = 'nodeinfo';
/** The human pages, one folder per EPD (`/epd/<uuid>/`, its index.html). */
const EPD_PAGES = 'epd';

/**
 * URLs written into documents. With a base URL they are absolute, as soda4LCA writes them;
 * without one they are root-relative, which works only when the site is served at a host's root.
 */
export function nodeUrl(cfg: { baseUrl?: string | undefined }, path: string): string {
  return `${cfg.baseUrl ?? ''}/${path}`;
}

export function datasetUrl(cfg: { baseUrl?: string | undefined }, folder: string, uuid: string, version?: string): string {
  return nodeUrl(cfg, `${RESOURCE}/${folder}/${uuid}`) + (version ? `?version=${version}` : '');
}

/** Content types soda4LCA answers with; charset on XML keeps Python clients from guessing Latin-1. */
export const LIST_XML_TYPE = 'application/xml; charset=UTF-8';
export const LIST_JSON_TYPE = 'application/json;charset=UTF-8';
export const HTML_TYPE = 'text/html; charset=UTF-8';
/** What nginx and Apache send with every answer (templates/hosts); static files are re-validated after 5 minutes. */
export const CACHE_CONTROL = 'public, max-age=300';

/** soda4LCA resource folders (`/resource/<folder>/<uuid>`), one per ILCD dataset type, processes first. */
export const DATASET_FOLDERS: readonly string[] = DATASET_TYPES.map((t) => t.folder);
const folderOf = (type: string) => DATASET_TYPES.find((t) => t.type === type)!.folder;
/** The EPDs' resource folder (`/resource/processes`) and that of the source datasets (their documents live below). */
export const PROCESSES = folderOf('process');
const SOURCES = folderOf('source');
/** Folders of the EPDs themselves, per path set. */
export const EPD_DIRS = { default: `${RESOURCE}/${PROCESSES}`, v1: `${V1}/epds` } as const;
/** The health documents, per path set (written last, from a check of the written tree). */
export const HEALTH_FILES = { default: `${HEALTH}/index.json`, v1: `${V1}/${HEALTH}/index.json` } as const;
export const NODEINFO_FILES = [`${NODEINFO}/index.xml`, `${RESOURCE}/${NODEINFO}/index.xml`] as const;
export const INDEX_HTML = 'index.html';
/** The catalogue's search index (index.html loads it; `schemas/catalogue-index.schema.json`), beside the EPD pages. */
export const CATALOGUE_INDEX = `${EPD_PAGES}/index.json`;

/** The list of a resource folder in one format (`/resource/<folder>`, `?format=json`). */
export function listFile(folder: string, format: 'xml' | 'json'): string {
  return `${RESOURCE}/${folder}/index.${format}`;
}
export const V1_LIST = `${EPD_DIRS.v1}/index.json`;

/**
 * Pre-paged EPD lists: `resource/processes/pages/<pageSize>/<startIndex>.<format>`, the answer to
 * `/resource/processes?startIndex=S&pageSize=P` on hosts that route on the query (docs/hosting.md).
 */
const PAGES = 'pages';
export const PAGES_DIR = `${RESOURCE}/${PROCESSES}/${PAGES}`;
export function pageFile(pageSize: number, startIndex: number, format: 'xml' | 'json'): string {
  return `${PAGES_DIR}/${pageSize}/${startIndex}.${format}`;
}
/** A page file of the XML list: groups pageSize and startIndex. */
export const PAGE_FILE_RE = new RegExp(`^${PAGES_DIR}/(\\d+)/(\\d+)\\.xml$`);
/** Regular-expression alternation of the page sizes above 1 (`100|500|1000`), for the host configs; '' when none. */
export function pageSizeAlternation(pageSizes: readonly number[]): string {
  return pageSizes.filter((p) => p > 1).join('|');
}
/**
 * The start indexes pre-paged for one size: every page of the list plus the empty one just past its end (a client that
 * pages until it gets fewer entries than it asked for reads it); size 1 is soda4LCA clients' probe for totalSize and
 * only ever asked at 0.
 */
export function pageStarts(total: number, pageSize: number): number[] {
  if (pageSize === 1) return [0];
  const starts: number[] = [];
  for (let s = 0; ; s += pageSize) {
    starts.push(s);
    if (s >= total) return starts;
  }
}
/** A built site has at least one of these (its EPD list in either path set): `serve` and `deploy` refuse other folders. */
export const SITE_MARKERS = [listFile(PROCESSES, 'xml'), V1_LIST] as const;

/** Folders holding extensionless dataset files, per enabled path set. */
export function datasetDirs(pathSets: Readonly<Record<PathSet, boolean>>): string[] {
  const dirs = pathSets.default ? DATASET_FOLDERS.map((f) => `${RESOURCE}/${f}`) : [];
  if (pathSets.v1) dirs.push(EPD_DIRS.v1);
  return dirs;
}

/** UUIDs come from files: check again right where they become path segments. */
export function safeUuid(uuid: string): string {
  if (!UUID_RE.test(uuid)) throw new Error(`internal: refusing unsafe UUID ${JSON.stringify(uuid)} as a path`);
  return uuid;
}

/** The file of a dataset, `resource/<folder>/<uuid>`, and of an EPD of the v1 path set. */
export function datasetFile(folder: string, uuid: string): string {
  return `${RESOURCE}/${folder}/${safeUuid(uuid)}`;
}
export function v1EpdFile(uuid: string): string {
  return `${EPD_DIRS.v1}/${safeUuid(uuid)}`;
}
/** The page of an EPD: a folder index, linked with its trailing slash so the page's relative links resolve. */
export function epdPageFile(uuid: string): string {
  return `${epdPageUrl(uuid)}${INDEX_HTML}`;
}
/** The page's URL path relative to the site root (`epd/<uuid>/`); `../../` leads back to the root. */
export function epdPageUrl(uuid: string): string {
  return `${EPD_PAGES}/${safeUuid(uuid)}/`;
}

/**
 * Sub-resources of a dataset URL (`/resource/<folder>/<uuid>/<url>`). `<uuid>` is a file, so they live in the sibling
 * `<uuid>_files/` folder; hosts rewrite the URL onto it (docs/dependencies.md). `name` stands for any file name.
 */
export const SUB_RESOURCES = [
  { id: 'zipexport', folder: PROCESSES, url: 'zipexport', file: 'zipexport.zip' },
  { id: 'epd', folder: PROCESSES, url: 'epd', file: 'epd.pdf' },
  { id: 'source-document', folder: SOURCES, url: 'name', file: 'name' },
] as const;
export type SubResource = (typeof SUB_RESOURCES)[number];

const [ZIPEXPORT, EPD_PDF, SOURCE_DOCUMENT] = SUB_RESOURCES;
/** The URL paths (relative to the site root) of an EPD's PDF and ZIP export, as soda4LCA names them. */
export const SUB_URL = {
  epdPdf: (uuid: string) => `${datasetFile(PROCESSES, uuid)}/${EPD_PDF.url}`,
  zipExport: (uuid: string) => `${datasetFile(PROCESSES, uuid)}/${ZIPEXPORT.url}`,
} as const;
/** The files of the sub-resources. */
export const SUB = {
  sourceFile: (uuid: string, name: string) => subResourceFile(SOURCE_DOCUMENT, uuid, name),
  epdPdf: (uuid: string) => subResourceFile(EPD_PDF, uuid),
  zipExport: (uuid: string) => subResourceFile(ZIPEXPORT, uuid),
} as const;

/** The type of a file named by the publisher: from its extension (documentContentType). */
export const BY_EXTENSION = 'by-extension';

/** One public URL: its path (`{uuid}`, `{name}` stand for segments), what answers it, and in which path set. */
export interface Route {
  id: string;
  pathSet: PathSet | 'both';
  url: string;
  /** The file per representation; lists have XML (the default) and JSON (`?format=json`). */
  /** `type`: a MIME type, or BY_EXTENSION for documents served by their file extension. */
  files: { file: string; type: string; format?: 'xml' | 'json' }[];
  /** For the HTML catalogue and docs. */
  title: string;
}

/** Documents below dataset URLs (`<uuid>_files/`): source files, EPD PDFs, ZIP exports; by extension, any case. */
const DOC_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  xml: 'application/xml',
  zip: 'application/zip',
};

export function documentContentType(name: string): string {
  return documentType(name) ?? 'application/octet-stream';
}

function documentType(name: string): string | undefined {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return ext ? DOC_TYPES[ext] : undefined;
}

/** Health URLs per path set (what `check` fetches). */
export const HEALTH_URLS = { default: `/${HEALTH}`, v1: `/${V1}/${HEALTH}` } as const;
export const NODEINFO_URLS = [`/${NODEINFO}`, `/${RESOURCE}/${NODEINFO}`] as const;
export const LIST_URLS = { default: `/${EPD_DIRS.default}`, v1: `/${EPD_DIRS.v1}` } as const;

/** A route answered by one file. */
function one(id: string, pathSet: Route['pathSet'], url: string, file: string, type: string, title: string): Route {
  return { id, pathSet, url, files: [{ file, type }], title };
}

/** A soda4LCA list: XML by default, JSON with `?format=json`. */
function listRoute(folder: string): Route {
  const files: Route['files'] = [
    { file: listFile(folder, 'xml'), type: LIST_XML_TYPE, format: 'xml' },
    { file: listFile(folder, 'json'), type: LIST_JSON_TYPE, format: 'json' },
  ];
  const title = folder === PROCESSES ? 'EPD list' : `${folder} list`;
  return { id: `list:${folder}`, pathSet: 'default', url: `/${RESOURCE}/${folder}`, files, title };
}

function subRoute(s: SubResource): Route {
  const [url, file] = [s.url, s.file].map((x) => (x === 'name' ? '{name}' : x)) as [string, string];
  const type = s.file === 'name' ? BY_EXTENSION : documentContentType(file);
  const dir = `${RESOURCE}/${s.folder}/{uuid}`;
  return one(s.id, 'default', `/${dir}/${url}`, `${dir}_files/${file}`, type, s.id);
}

/** Every public URL of a site, both path sets. */
export const ROUTES: readonly Route[] = [
  one('home', 'both', '/', INDEX_HTML, HTML_TYPE, 'HTML catalogue'),
  one('epd-page', 'both', `/${EPD_PAGES}/{uuid}/`, `${EPD_PAGES}/{uuid}/${INDEX_HTML}`, HTML_TYPE, 'EPD page'),
  one('catalogue-index', 'both', `/${CATALOGUE_INDEX}`, CATALOGUE_INDEX, LIST_JSON_TYPE, 'catalogue search index'),
  ...DATASET_FOLDERS.map(listRoute),
  {
    id: 'v1:list',
    pathSet: 'v1',
    url: LIST_URLS.v1,
    files: [{ file: V1_LIST, type: LIST_JSON_TYPE, format: 'json' }],
    title: 'EPD list, draft v1',
  },
  ...DATASET_FOLDERS.map((f) => {
    const file = `${RESOURCE}/${f}/{uuid}`;
    return one(`dataset:${f}`, 'default', `/${file}`, file, LIST_XML_TYPE, `${f} dataset`);
  }),
  one('v1:epd', 'v1', `${LIST_URLS.v1}/{uuid}`, `${EPD_DIRS.v1}/{uuid}`, LIST_XML_TYPE, 'EPD, draft v1'),
  ...SUB_RESOURCES.map(subRoute),
  one('nodeinfo', 'default', NODEINFO_URLS[0], NODEINFO_FILES[0], LIST_XML_TYPE, 'node information'),
  one('resource-nodeinfo', 'default', NODEINFO_URLS[1], NODEINFO_FILES[1], LIST_XML_TYPE, 'node information'),
  one('health', 'default', HEALTH_URLS.default, HEALTH_FILES.default, LIST_JSON_TYPE, 'health'),
  one('v1:health', 'v1', HEALTH_URLS.v1, HEALTH_FILES.v1, LIST_JSON_TYPE, 'health'),
];

/** URLs answered by one fixed file (no placeholder, one representation; the site root aside), in table order. */
export const FIXED_ROUTES: readonly Route[] = ROUTES.filter((r) => r.id !== 'home' && !r.url.includes('{') && r.files.length === 1);

/** Whether a route belongs to the enabled path sets. */
export function routeEnabled(r: Route, pathSets: Readonly<Record<PathSet, boolean>>): boolean {
  return r.pathSet === 'both' || pathSets[r.pathSet];
}

/** Folders a deploy may delete from (plus index.html): everything else under the target prefix is not po-node's. */
export const SITE_TOP_FOLDERS = [RESOURCE, V1, NODEINFO, HEALTH, EPD_PAGES] as const;

const UUID_SRC = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';
/** Alternation of the resource folders, for the regular expressions of the host configs and `serve`. */
export const FOLDER_ALTERNATION = DATASET_FOLDERS.join('|');

/** Values of the `{{NAME}}` placeholders of templates/hosts: the paths there come from here. */
export const TEMPLATE_ROUTES: Readonly<Record<string, string>> = {
  UUID: UUID_SRC,
  DATASET_FOLDERS: FOLDER_ALTERNATION,
  OTHER_FOLDERS: DATASET_FOLDERS.filter((f) => f !== PROCESSES).join('|'),
  V1_EPDS: EPD_DIRS.v1,
  NODEINFO,
  HEALTH,
  EPD_PAGES,
  PROCESSES,
  SOURCES,
  PAGES: PAGES_DIR,
  PAGES_NAME: PAGES,
  // Sub-resources at a fixed name: {{ZIPEXPORT}} (the URL segment) and {{ZIPEXPORT_FILE}} (the file in <uuid>_files/).
  ...Object.fromEntries(
    SUB_RESOURCES.filter((s) => s.url !== 'name').flatMap((s) => [
      [s.id.toUpperCase(), s.url],
      [`${s.id.toUpperCase()}_FILE`, s.file],
    ]),
  ),
  FIXED_ROUTES: FIXED_ROUTES.map((r) => `  '${r.url}': '/${r.files[0]!.file}'`).join(',\n'),
};

const DATASET_DIRS = new Set(datasetDirs({ default: true, v1: true }));

/** Extensionless ILCD dataset of a dataset folder (`resource/<folder>/<uuid>`, `v1/epds/<uuid>`). */
export function isDatasetPath(rel: string): boolean {
  const cut = rel.lastIndexOf('/');
  return cut > 0 && DATASET_DIRS.has(rel.slice(0, cut)) && UUID_RE.test(rel.slice(cut + 1));
}

/** A file of a `<uuid>_files/` folder: served below the dataset URL (`…/<uuid>/epd`, `…/zipexport`, `…/<name>`). */
export function isDocumentPath(rel: string): boolean {
  return /(^|\/)[0-9A-Fa-f-]{36}_files\/[^/]+$/.test(rel);
}

/**
 * Content-Type of a site file (path relative to the site, `/` separators), or undefined when no host route serves
 * it (host files such as `_redirects`; hidden files are the caller's to exclude).
 */
export function siteContentType(rel: string): string | undefined {
  if (isDatasetPath(rel)) return LIST_XML_TYPE;
  if (isDocumentPath(rel)) return documentContentType(rel);
  const ext = /\.([A-Za-z0-9]+)$/.exec(rel)?.[1]?.toLowerCase();
  if (ext === 'xml') return LIST_XML_TYPE;
  if (ext === 'json') return LIST_JSON_TYPE;
  if (ext === 'html') return HTML_TYPE;
  return documentType(rel);
}

/** A sub-resource file (`resource/<folder>/<uuid>_files/<file>`) and the URL it answers at, or undefined. */
export function subResourceOf(rel: string): { sub: SubResource; uuid: string; name: string; url: string } | undefined {
  const m = /^resource\/([a-z]+)\/([0-9A-Fa-f-]{36})_files\/([^/]+)$/.exec(rel);
  if (!m) return undefined;
  const [, folder, uuid, name] = m as unknown as [string, string, string, string];
  const sub = SUB_RESOURCES.find((s) => s.folder === folder && (s.file === 'name' || s.file === name));
  if (!sub) return undefined;
  return { sub, uuid, name, url: `/${RESOURCE}/${folder}/${uuid}/${sub.url === 'name' ? name : sub.url}` };
}

/** Regular expression of a sub-resource URL path (decoded): groups uuid and, for `name`, the file name. */
export function subResourceUrlRe(sub: SubResource): RegExp {
  return new RegExp(`^/${RESOURCE}/${sub.folder}/(${UUID_SRC})/${sub.url === 'name' ? '([^/]+)' : sub.url}$`);
}

/** The file a sub-resource URL maps to. */
export function subResourceFile(sub: SubResource, uuid: string, name?: string): string {
  return `${RESOURCE}/${sub.folder}/${safeUuid(uuid)}_files/${sub.file === 'name' ? name! : sub.file}`;
}

/** `/resource/<folder>/<uuid>` or `/v1/epds/<uuid>`: groups dir and uuid. */
export const DATASET_URL_RE = new RegExp(`^/(${RESOURCE}/(?:${FOLDER_ALTERNATION})|${EPD_DIRS.v1})/(${UUID_SRC})$`);
/** Lists of the other dataset types: static documents only (paging and search are for processes). */
export const TYPE_LIST_URL_RE = new RegExp(`^/${RESOURCE}/(${TEMPLATE_ROUTES.OTHER_FOLDERS})$`);
