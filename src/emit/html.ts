import { readFileSync } from 'node:fs';
import type { PlanContext } from './plan.js';
import { pickText } from '../parse/extract.js';
import { GENERATOR_NAME, GENERATOR_VERSION } from '../version.js';

const template = readFileSync(new URL('../../templates/index.html', import.meta.url), 'utf8');

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A human catalogue of the node; links are relative so the page works under any base path. */
export function renderIndexHtml({ catalog, cfg, builtAt }: PlanContext): string {
  const endpoints: [string, string][] = [];
  if (cfg.pathSets.default) {
    endpoints.push(
      ['resource/processes/index.xml', 'EPD list, soda4LCA XML (/resource/processes)'],
      ['resource/processes/index.json', 'EPD list, soda4LCA JSON (/resource/processes?format=json)'],
      ['resource/nodeinfo/index.xml', 'node information (/resource/nodeinfo)'],
      ['healthz/index.json', 'health (/healthz)'],
    );
  }
  if (cfg.pathSets.v1) endpoints.push(['v1/epds/index.json', 'EPD list, draft v1 (/v1/epds)'], ['v1/healthz/index.json', 'health (/v1/healthz)']);
  const folder = cfg.pathSets.default ? 'resource/processes' : 'v1/epds';
  const rows = catalog.epds.map((d) => {
    const p = d.header.process!;
    const cells = [
      `<a href="${folder}/${d.header.uuid}">${esc(pickText(p.names) ?? d.header.uuid)}</a>`,
      esc(p.registrationNumber ?? ''),
      esc(p.location ?? ''),
      esc(p.referenceYear ?? ''),
      esc(p.validUntil ?? ''),
      esc(d.header.version),
      `<code>${d.header.uuid}</code>`,
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
