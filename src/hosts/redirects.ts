import { CONTENT_TYPES, type PlannedFile } from '../emit/plan.js';
import { LIST_JSON_TYPE, LIST_XML_TYPE } from '../emit/soda4lca.js';
import type { HostContext, HostEmitter, HostOutput } from './types.js';
import { datasetDirs } from './template.js';

const LIST_FOLDERS = ['processes', 'flows', 'flowproperties', 'unitgroups', 'contacts', 'sources', 'lciamethods'];
const SUB_FILE_RE = /^resource\/(processes|sources)\/([0-9a-f-]{36})_files\/([^/]+)$/;

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
  if (cfg.pathSets.default) {
    if (queryRules) r.push('# format=json picks the JSON list (Netlify matches query values exactly: the two usual spellings).');
    for (const folder of LIST_FOLDERS) {
      if (!byPath.has(`resource/${folder}/index.xml`)) continue;
      copy(`resource/${folder}/index.xml`, `resource/${folder}.xml`, CONTENT_TYPES.xml);
      copy(`resource/${folder}/index.json`, `resource/${folder}.json`, CONTENT_TYPES.json);
      if (queryRules) for (const from of [`/resource/${folder}`, `/resource/${folder}/`]) for (const v of ['json', 'JSON']) rule(from, `/resource/${folder}.json`, `format=${v}`);
      rule(`/resource/${folder}`, `/resource/${folder}.xml`);
      rule(`/resource/${folder}/`, `/resource/${folder}.xml`);
    }
    for (const p of ['nodeinfo', 'resource/nodeinfo']) for (const s of ['', '/']) rule(`/${p}${s}`, `/${p}/index.xml`);
    for (const s of ['', '/']) rule(`/healthz${s}`, '/healthz/index.json');
    // Below a dataset URL: one rule per published file (a `:uuid_files` placeholder would not parse); names percent-encoded.
    r.push('# Documents below dataset URLs live in <uuid>_files/.');
    for (const f of site) {
      const m = SUB_FILE_RE.exec(f.path);
      if (!m) continue;
      const [, folder, uuid, name] = m as unknown as [string, string, string, string];
      if (folder === 'processes' && name !== 'epd.pdf' && name !== 'zipexport.zip') continue;
      const from = folder === 'sources' ? `/resource/sources/${uuid}/${encodeURIComponent(name)}` : `/resource/processes/${uuid}/${name === 'epd.pdf' ? 'epd' : 'zipexport'}`;
      rule(from, `/resource/${folder}/${uuid}_files/${encodeURIComponent(name)}`);
      if (folder === 'processes') subTypes.push([from, f.contentType]);
    }
  }
  if (cfg.pathSets.v1) {
    copy('v1/epds/index.json', 'v1/epds.json', CONTENT_TYPES.json);
    for (const s of ['', '/']) rule(`/v1/epds${s}`, '/v1/epds.json');
    for (const s of ['', '/']) rule(`/v1/healthz${s}`, '/v1/healthz/index.json');
  }
  const h: string[] = ['# po-node: response headers. Extensionless datasets are ILCD XML; every answer allows CORS.', '/*', '  Access-Control-Allow-Origin: *', '  Access-Control-Allow-Methods: GET, HEAD, OPTIONS'];
  for (const dir of datasetDirs(cfg.pathSets)) h.push(`/${dir}/:uuid`, `  Content-Type: ${LIST_XML_TYPE}`);
  for (const [from, type] of subTypes) h.push(from, `  Content-Type: ${type}`);
  for (const p of files) h.push(`/${p.path}`, `  Content-Type: ${p.path.endsWith('.json') ? LIST_JSON_TYPE : LIST_XML_TYPE}`);
  files.push({ path: '_redirects', contentType: 'text/plain', source: { text: `${r.join('\n')}\n` } });
  files.push({ path: '_headers', contentType: 'text/plain', source: { text: `${h.join('\n')}\n` } });
  return { site: files, deploy: [] };
}

export const netlify: HostEmitter = { name: 'netlify', title: 'Netlify', emit: (ctx) => emitRedirects(ctx, true) };
/** Cloudflare Pages: same files, but `_redirects` cannot match query parameters (and has no `!`). */
export const cloudflarePages: HostEmitter = { name: 'cloudflare-pages', title: 'Cloudflare Pages', emit: (ctx) => emitRedirects(ctx, false) };
