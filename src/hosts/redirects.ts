import { CONTENT_TYPES, type PlannedFile } from '../emit/plan.js';
import { LIST_JSON_TYPE, LIST_XML_TYPE } from '../emit/soda4lca.js';
import type { HostContext, HostEmitter, HostOutput } from './types.js';
import { datasetDirs } from './template.js';

/**
 * Netlify and Cloudflare Pages: `_redirects` (status 200 = rewrite) and `_headers` in the published tree.
 * The lists are also copied next to their folders (resource/processes.xml, .json; v1/epds.json) so that the
 * `/resource/processes/:uuid` Content-Type rule never matches a rewrite target.
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
  const rule = (from: string, to: string, query = '') => r.push([from, query, to, queryRules ? '200!' : '200'].filter(Boolean).join(' '));
  if (cfg.pathSets.default) {
    copy('resource/processes/index.xml', 'resource/processes.xml', CONTENT_TYPES.xml);
    copy('resource/processes/index.json', 'resource/processes.json', CONTENT_TYPES.json);
    if (queryRules) {
      r.push('# format=json picks the JSON list (Netlify matches query values exactly: the two usual spellings).');
      for (const from of ['/resource/processes', '/resource/processes/']) for (const v of ['json', 'JSON']) rule(from, '/resource/processes.json', `format=${v}`);
    }
    rule('/resource/processes', '/resource/processes.xml');
    rule('/resource/processes/', '/resource/processes.xml');
    for (const p of ['nodeinfo', 'resource/nodeinfo']) for (const s of ['', '/']) rule(`/${p}${s}`, `/${p}/index.xml`);
    for (const s of ['', '/']) rule(`/healthz${s}`, '/healthz/index.json');
  }
  if (cfg.pathSets.v1) {
    copy('v1/epds/index.json', 'v1/epds.json', CONTENT_TYPES.json);
    for (const s of ['', '/']) rule(`/v1/epds${s}`, '/v1/epds.json');
    for (const s of ['', '/']) rule(`/v1/healthz${s}`, '/v1/healthz/index.json');
  }
  const h: string[] = ['# po-node: response headers. Extensionless datasets are ILCD XML; every answer allows CORS.', '/*', '  Access-Control-Allow-Origin: *', '  Access-Control-Allow-Methods: GET, HEAD, OPTIONS'];
  for (const dir of datasetDirs(cfg.pathSets)) h.push(`/${dir}/:uuid`, `  Content-Type: ${LIST_XML_TYPE}`);
  for (const p of files) h.push(`/${p.path}`, `  Content-Type: ${p.path.endsWith('.json') ? LIST_JSON_TYPE : LIST_XML_TYPE}`);
  files.push({ path: '_redirects', contentType: 'text/plain', source: { text: `${r.join('\n')}\n` } });
  files.push({ path: '_headers', contentType: 'text/plain', source: { text: `${h.join('\n')}\n` } });
  return { site: files, deploy: [] };
}

export const netlify: HostEmitter = { name: 'netlify', title: 'Netlify', emit: (ctx) => emitRedirects(ctx, true) };
/** Cloudflare Pages: same files, but `_redirects` cannot match query parameters (and has no `!`). */
export const cloudflarePages: HostEmitter = { name: 'cloudflare-pages', title: 'Cloudflare Pages', emit: (ctx) => emitRedirects(ctx, false) };
