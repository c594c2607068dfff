import { readFileSync } from 'node:fs';
import type { PlanContext } from './files.js';
import { EPD_DIRS, epdPageUrl, routeEnabled, ROUTES } from '../site/routes.js';
import { pickText } from '../parse/extract.js';
import { GENERATOR_NAME, GENERATOR_VERSION } from '../version.js';

const template = readFileSync(new URL('../../templates/index.html', import.meta.url), 'utf8');

/** The one HTML escape of the site's pages: text and attribute values (names in EPDs are hostile input). */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The routes the catalogue links, by id (src/site/routes.ts). */
const CATALOGUE = ['list:processes', 'resource-nodeinfo', 'health', 'v1:list', 'v1:health'];

/** A human catalogue of the node; links are relative so the page works under any base path. */
export function renderIndexHtml({ catalog, cfg, builtAt }: PlanContext): string {
  const endpoints: [string, string][] = [];
  for (const r of CATALOGUE.map((id) => ROUTES.find((x) => x.id === id)!)) {
    if (!routeEnabled(r, cfg.pathSets)) continue;
    for (const f of r.files) {
      // Lists in two formats: say which, and how a client asks for JSON.
      const two = r.files.length > 1;
      const url = `${r.url}${two && f.format === 'json' ? '?format=json' : ''}`;
      endpoints.push([f.file, `${r.title}${two ? `, soda4LCA ${f.format!.toUpperCase()}` : ''} (${url})`]);
    }
  }
  const folder = cfg.pathSets.default ? EPD_DIRS.default : EPD_DIRS.v1;
  const rows = catalog.epds.map((d) => {
    const p = d.header.process!;
    const cells = [
      `<a href="${epdPageUrl(d.header.uuid)}">${esc(pickText(p.names) ?? d.header.uuid)}</a>`,
      esc(p.registrationNumber ?? ''),
      esc(p.location ?? ''),
      esc(p.referenceYear ?? ''),
      esc(p.validUntil ?? ''),
      esc(d.header.version),
      `<a href="${folder}/${d.header.uuid}" title="ILCD XML"><code>${d.header.uuid}</code></a>`,
    ];
    return `<tr>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  });
  const description = pickText(Object.entries(cfg.node.description).map(([lang, value]) => ({ lang, value })));
  const values: Record<string, string> = {
    title: esc(cfg.node.name),
    operator: esc(cfg.node.operator ?? 'EPD programme operator'),
    nodeId: esc(cfg.node.id),
    count: String(catalog.epds.length),
    builtAt: builtAt.toISOString(),
    generator: esc(`${GENERATOR_NAME} ${GENERATOR_VERSION}`),
    description: description ? `<p>${esc(description)}</p>` : '',
    endpoints: endpoints.map(([href, label]) => `<li><a href="${href}">${esc(label)}</a></li>`).join('\n'),
    rows: rows.join('\n') || '<tr><td colspan="7">No EPDs published.</td></tr>',
  };
  return template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}
