import { DATASET_TYPES, UUID_RE } from '../parse/ilcd.js';

/**
 * The one table of what each file of a built site is served as: `po-node serve`, the Netlify `_headers` and
 * `po-node deploy` read it (nginx and Apache carry the same types in their config syntax). A leaf module: no I/O.
 */

/** Content types soda4LCA answers with; charset on XML keeps Python clients from guessing Latin-1. */
export const LIST_XML_TYPE = 'application/xml; charset=UTF-8';
export const LIST_JSON_TYPE = 'application/json;charset=UTF-8';
export const HTML_TYPE = 'text/html; charset=UTF-8';
/** What nginx and Apache send with every answer (templates/hosts); static files are re-validated after 5 minutes. */
export const CACHE_CONTROL = 'public, max-age=300';

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

const DATASET_DIRS = new Set([...DATASET_TYPES.map((t) => `resource/${t.folder}`), 'v1/epds']);

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
