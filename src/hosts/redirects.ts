import type { PlannedFile } from '../emit/files.js';
import { datasetDirs, FIXED_ROUTES, LIST_JSON_TYPE, LIST_XML_TYPE, ROUTES, subResourceOf } from '../site/routes.js';
import type { HostContext, HostEmitter, HostOutput } from './types.js';

/**
 * Netlify and Cloudflare Pages: `_redirects` (status 200 = rewrite) and `_headers` in the published tree.
 * The lists are also copied next to their folders (resource/<folder>.xml, .json; v1/epds.json) so that the
 * `/resource/<folder>/:uuid` Content-Type rules never match a rewrite target.
 */
function emitRedirects(ctx: HostContext, queryRules: boolean): HostOutput {
  const { cfg, site } = ctx;
  const byPath = new Map(site.map((f) => [f.path, f]));
  const files: PlannedFile[] = [];
  const copy = (from: string, to: string, type: string) => {
    const f = byPath.get(from);
    if (f) files.push({ path: to, contentType: type, source: f.source });
  };
  const r: string[] = ['# po-node: rewrites (status 200 keeps the URL). First match wins.'];
  const subTypes: [string, string][] = [];
  const rule = (from: string, to: string, query = '') => r.push([from, query, to, queryRules ? '200!' : '200'].filter(Boolean).join(' '));
  // URLs of one file (nodeinfo, health, the v1 list), with and without the slash; a list is copied next to its folder.
  const fixedRules = (set: 'default' | 'v1') => {
    for (const route of FIXED_ROUTES.filter((x) => x.pathSet === set)) {
      const { file, type, format } = route.files[0]!;
      const to = format ? `${route.url}.${format}` : `/${file}`;
      if (format) copy(file, to.slice(1), type);
      for (const s of ['', '/']) rule(`${route.url}${s}`, to);
    }
  };
  if (cfg.pathSets.default) {
    if (queryRules) r.push('# format=json picks the JSON list (Netlify matches query values exactly: the two usual spellings).');
    // The lists (the routes with an XML and a JSON file), copied next to their folders.
    for (const {
      url,
      files: [xml, json],
    } of ROUTES.filter((x) => x.pathSet === 'default' && x.files.length === 2)) {
      if (!byPath.has(xml!.file)) continue;
      for (const f of [xml!, json!]) copy(f.file, `${url.slice(1)}.${f.format}`, f.type);
      if (queryRules) for (const from of [url, `${url}/`]) for (const v of ['json', 'JSON']) rule(from, `${url}.json`, `format=${v}`);
      for (const from of [url, `${url}/`]) rule(from, `${url}.xml`);
    }
    fixedRules('default');
    // Below a dataset URL: one rule per published file (a `:uuid_files` placeholder would not parse); names percent-encoded.
    r.push('# Documents below dataset URLs live in <uuid>_files/.');
    for (const f of site) {
      const sub = subResourceOf(f.path);
      if (!sub) continue;
      const named = sub.sub.url === 'name';
      const from = named ? `${sub.url.slice(0, -sub.name.length)}${encodeURIComponent(sub.name)}` : sub.url;
      rule(from, `/${f.path.slice(0, -sub.name.length)}${encodeURIComponent(sub.name)}`);
      // Named documents take their type from the extension, which the host sees; epd and zipexport have none.
      if (!named) subTypes.push([from, f.contentType]);
    }
  }
  if (cfg.pathSets.v1) {
    fixedRules('v1');
  }
  const h: string[] = [
    '# po-node: response headers. Extensionless datasets are ILCD XML; every answer allows CORS.',
    '/*',
    '  Access-Control-Allow-Origin: *',
    '  Access-Control-Allow-Methods: GET, HEAD, OPTIONS',
  ];
  for (const dir of datasetDirs(cfg.pathSets)) h.push(`/${dir}/:uuid`, `  Content-Type: ${LIST_XML_TYPE}`);
  for (const [from, type] of subTypes) h.push(from, `  Content-Type: ${type}`);
  for (const p of files) h.push(`/${p.path}`, `  Content-Type: ${p.path.endsWith('.json') ? LIST_JSON_TYPE : LIST_XML_TYPE}`);
  files.push({ path: '_redirects', contentType: 'text/plain', source: { text: `${r.join('\n')}\n` } });
  files.push({ path: '_headers', contentType: 'text/plain', source: { text: `${h.join('\n')}\n` } });
  return { site: files, deploy: [] };
}

export const netlify: HostEmitter = { name: 'netlify', title: 'Netlify', emit: (ctx) => emitRedirects(ctx, true) };
/** Cloudflare Pages: same files, but `_redirects` cannot match query parameters (and has no `!`). */
export const cloudflarePages: HostEmitter = {
  name: 'cloudflare-pages',
  title: 'Cloudflare Pages',
  emit: (ctx) => emitRedirects(ctx, false),
};
