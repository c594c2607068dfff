import { createHash } from 'node:crypto';
import type { Dataset } from '../catalog/build.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { ResolvedConfig } from '../config/load.js';
import { pickText, type LangText } from '../parse/extract.js';
import { ADDITIONAL_INDICATORS, MODULE_ORDER, readLciaResults, type LciaResult } from '../parse/lcia.js';
import { readFileReused, readInput } from '../read/zip.js';
import { datasetFile, epdPageFile, epdPageUrl, HTML_TYPE, nodeUrl, PROCESSES, SUB_URL, v1EpdFile } from '../site/routes.js';
import { GENERATOR_NAME, GENERATOR_VERSION } from '../version.js';
import { best, esc, inLang } from './html.js';
import { publishedDocuments, type PlannedFile } from './files.js';

/** Bump when the page's layout changes, so an incremental build does not reuse older pages. */
const PAGE_FORMAT = 'epdpage/2';
/** A page lives at `epd/<uuid>/`: its links to the node's files start from the site root. */
const ROOT = '../../';

/** What a page shows besides its EPD document: the links that exist and the node it belongs to. */
interface PageContext {
  cfg: Pick<ResolvedConfig, 'baseUrl' | 'pathSets' | 'node'>;
  pdf: boolean;
  zip: boolean;
}

/**
 * One page per EPD (`epd/<uuid>/index.html`). The LCIA results are not in the index, so each page reads its EPD
 * document when it is written: one document in memory at a time, whatever the size of the node. Where the reader
 * recorded the LCIA element's span (Dataset.lcia), only that is cut out and scanned (readLciaResults).
 */
export function planEpdPages(epds: readonly Dataset[], cfg: ResolvedConfig, references?: ReferenceReport): PlannedFile[] {
  // What every page's key shares, serialised once (the node's configuration is most of it): a key hashes the JSON of
  // { d, unit, pdf, zip, base, sets, node }, in that order.
  const shared = JSON.stringify({ base: cfg.baseUrl, sets: cfg.pathSets, node: cfg.node }).slice(1);
  return epds.map((d) => {
    const uuid = d.header.uuid;
    const ctx: PageContext = { cfg, ...publishedDocuments(uuid, cfg, references) };
    const unit = d.declaredUnit === undefined ? '' : `,"unit":${JSON.stringify(d.declaredUnit)}`;
    const inputs = `{"d":${JSON.stringify(d.sha256)}${unit},"pdf":${ctx.pdf},"zip":${ctx.zip},${shared}`;
    const key = createHash('sha256').update(`${PAGE_FORMAT} ${GENERATOR_VERSION}\n${inputs}`).digest('hex');
    return {
      path: epdPageFile(uuid),
      contentType: HTML_TYPE,
      source: {
        make: async () => {
          // The digest always: bytes that are not those the reader checked are checked again (readLciaResults).
          const at = { ...(d.lcia ? { span: d.lcia } : {}), sha256: d.sha256 };
          // A plain file in the thread's reused buffer, scanned before anything else can run: the results are strings
          // of their own.
          const bytes = d.file.zip ? await readInput(d.file) : readFileReused(d.file.abs);
          return Buffer.from(renderEpdPage(d, readLciaResults(bytes, at), ctx));
        },
      },
      key: `page:${key}`,
    };
  });
}

const shown = (ts: readonly LangText[]) => {
  const t = best(ts);
  return t ? inLang(t) : '';
};

/** Columns of the results table: every module (and scenario) the EPD declares, in EN 15804 order. */
function columns(results: readonly LciaResult[]): { module: string; scenario?: string }[] {
  const seen = new Map<string, { module: string; scenario?: string }>();
  for (const r of results) for (const a of r.amounts) seen.set(`${a.module}\u0000${a.scenario ?? ''}`, a);
  const rank = (m: string) => (MODULE_ORDER.includes(m) ? MODULE_ORDER.indexOf(m) : MODULE_ORDER.length);
  return [...seen.values()]
    .map(({ module, scenario }) => ({ module, ...(scenario ? { scenario } : {}) }))
    .sort((a, b) => rank(a.module) - rank(b.module) || cmpStr(a.module, b.module) || cmpStr(a.scenario ?? '', b.scenario ?? ''));
}
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function resultsTable(results: readonly LciaResult[]): string {
  if (!results.length) return '<p>This EPD declares no LCIA results.</p>';
  const cols = columns(results);
  const head = cols.map((c) => `<th scope="col">${esc(c.module)}${c.scenario ? `<br><small>${esc(c.scenario)}</small>` : ''}</th>`);
  const row = (r: LciaResult) => {
    // The first amount of each module and scenario, as a search of the list per column would find it.
    const first = new Map<string, LciaResult['amounts'][number]>();
    for (const x of r.amounts) {
      const k = `${x.module}\u0000${x.scenario ?? ''}`;
      if (!first.has(k)) first.set(k, x);
    }
    const cells = cols.map((c) => {
      const a = first.get(`${c.module}\u0000${c.scenario ?? ''}`);
      // An empty epd:amount: the module is declared without a value for this indicator; absent: no amount. Neither is 0.
      return `<td>${a === undefined ? '' : a.value === '' ? '<abbr title="no value declared">ND</abbr>' : esc(a.value)}</td>`;
    });
    return `<tr><th scope="row">${shown(r.names) || esc(r.method ?? '')}</th><td>${shown(r.units)}</td>${cells.join('')}</tr>`;
  };
  const extra = (r: LciaResult) => ADDITIONAL_INDICATORS.has(r.method ?? '');
  const core = results.filter((r) => !extra(r)).map(row);
  const additional = results.filter(extra).map(row);
  const group = (title: string, rows: string[]) =>
    `<tbody>\n<tr><th colspan="${cols.length + 2}" scope="colgroup" class="group">${title}</th></tr>\n${rows.join('\n')}\n</tbody>`;
  return [
    '<div class="scroll" role="region" aria-labelledby="lcia" tabindex="0"><table>',
    `<thead><tr><th scope="col">Indicator</th><th scope="col">Unit</th>${head.join('')}</tr></thead>`,
    group('Core indicators', core),
    ...(additional.length ? [group('Additional indicators', additional)] : []),
    '</table></div>',
  ].join('\n');
}

/** JSON inside a script element: `<` escaped so no text of the file can close the element. */
function jsonLd(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export function renderEpdPage(d: Dataset, results: readonly LciaResult[], { cfg, pdf, zip }: PageContext): string {
  const h = d.header;
  const p = h.process!;
  const uuid = h.uuid;
  const title = pickText(p.names) ?? uuid;
  const sodaFile = datasetFile(PROCESSES, uuid);
  const xmlFile = cfg.pathSets.default ? sodaFile : v1EpdFile(uuid);
  const operator = p.publishers[0] ?? p.registrationAuthority;
  const unit = d.declaredUnit;
  const unitText = unit ? [unit.meanValue ?? 1, unit.unit].filter((x) => x !== undefined).join(' ') : '';
  const classes = p.classifications.map((c) => `${c.system ? `${esc(c.system)}: ` : ''}${c.classes.map((k) => esc(k.name)).join(' / ')}`);
  const facts: [string, string][] = [
    ['Registration number', esc(p.registrationNumber ?? '')],
    ['Programme operator', operator ? shown(operator.descriptions) : ''],
    ['Manufacturer (data set owner)', p.owner ? shown(p.owner.descriptions) : ''],
    ['Valid until', esc(p.validUntil ?? '')],
    ['Reference year', esc(p.referenceYear ?? '')],
    ['Location', esc(p.location ?? '')],
    ['Declared unit', esc(unitText)],
    ['Classification', classes.join('<br>')],
    ['Version', esc(h.version)],
    ['UUID', `<code>${uuid}</code>`],
  ];
  const links: [string, string][] = [];
  if (cfg.pathSets.default) links.push([`${ROOT}${sodaFile}`, `ILCD XML, soda4LCA API: ${nodeUrl(cfg, sodaFile)}`]);
  if (cfg.pathSets.v1) links.push([`${ROOT}${v1EpdFile(uuid)}`, `ILCD XML, draft v1 API: ${nodeUrl(cfg, v1EpdFile(uuid))}`]);
  if (pdf) links.push([`${ROOT}${SUB_URL.epdPdf(uuid)}`, 'EPD document (PDF)']);
  if (zip) links.push([`${ROOT}${SUB_URL.zipExport(uuid)}`, 'ZIP export (ILCD, with its dependencies)']);
  // schema.org Dataset for search engines; URLs are absolute when the node has a base URL.
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Dataset',
    name: title,
    identifier: [uuid, ...(p.registrationNumber ? [p.registrationNumber] : [])],
    ...(p.generalComments.length ? { description: pickText(p.generalComments) } : { description: `EPD ${title}` }),
    version: h.version,
    ...(cfg.baseUrl ? { url: nodeUrl(cfg, epdPageUrl(uuid)) } : {}),
    ...(p.referenceYear ? { temporalCoverage: p.referenceYear } : {}),
    ...(p.location ? { spatialCoverage: p.location } : {}),
    ...(/^\d{4}$/.test(p.validUntil ?? '') ? { expires: `${p.validUntil}-12-31` } : {}),
    ...(operator && pickText(operator.descriptions)
      ? { publisher: { '@type': 'Organization', name: pickText(operator.descriptions) } }
      : {}),
    ...(p.owner && pickText(p.owner.descriptions) ? { creator: { '@type': 'Organization', name: pickText(p.owner.descriptions) } } : {}),
    keywords: p.classifications.flatMap((c) => c.classes.map((k) => k.name)),
    distribution: [
      { '@type': 'DataDownload', encodingFormat: 'application/xml', contentUrl: nodeUrl(cfg, xmlFile) },
      ...(pdf ? [{ '@type': 'DataDownload', encodingFormat: 'application/pdf', contentUrl: nodeUrl(cfg, SUB_URL.epdPdf(uuid)) }] : []),
    ],
  };
  const names = p.names.map((t) => `<li>${inLang(t)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${esc(`${GENERATOR_NAME} ${GENERATOR_VERSION}`)}">
<title>${esc(title)} · ${esc(cfg.node.name)}</title>
<link rel="icon" href="data:,">
${cfg.baseUrl ? `<link rel="canonical" href="${esc(nodeUrl(cfg, epdPageUrl(uuid)))}">\n` : ''}<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 70rem; padding: 0 1rem; color: #1b1b1b; }
  h1 { font-size: 1.5rem; margin-bottom: .2rem; overflow-wrap: anywhere; }
  dl { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .3rem 1rem; }
  dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
  @media (max-width: 30rem) { dl { grid-template-columns: 1fr; } dd { margin-bottom: .4rem; } }
  .scroll { overflow-x: auto; }
  table { border-collapse: collapse; margin-top: .5rem; font-variant-numeric: tabular-nums; }
  th, td { text-align: right; padding: .3rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
  tbody th, thead th:first-child { text-align: left; min-width: 12rem; }
  thead th, th.group { background: #f4f4f4; } th.group { text-align: left; }
  a { color: #0645ad; } code { font-size: .85em; } li { overflow-wrap: anywhere; }
</style>
<script type="application/ld+json">
${jsonLd(ld)}
</script>
</head>
<body>
<nav aria-label="Node"><a href="${ROOT}">${esc(cfg.node.name)}</a></nav>
<main>
<h1>${shown(p.names) || esc(uuid)}</h1>
<ul>
${names}
</ul>
<dl>
${facts
  .filter(([, v]) => v !== '')
  .map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`)
  .join('\n')}
</dl>
<h2>Downloads and API</h2>
<ul>
${links.map(([href, label]) => `<li><a href="${esc(href)}">${esc(label)}</a></li>`).join('\n')}
</ul>
<h2 id="lcia">LCIA results by module</h2>
${resultsTable(results)}
</main>
</body>
</html>
`;
}
