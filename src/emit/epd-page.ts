import { createHash } from 'node:crypto';
import type { Dataset } from '../catalog/build.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { ResolvedConfig } from '../config/load.js';
import { pickText } from '../parse/extract.js';
import { readLciaResults } from '../parse/lcia.js';
import { readFileReused, readInput } from '../read/zip.js';
import { datasetFile, epdPageFile, epdPageUrl, HTML_TYPE, nodeUrl, PROCESSES, SUB_URL, v1EpdFile } from '../site/routes.js';
import { GENERATOR_NAME, GENERATOR_VERSION } from '../version.js';
import type { Spool, SpoolSpan } from '../util/spool.js';
import { esc, inLang, shown } from '../html/text.js';
import { lciaTable } from '../html/lcia-table.js';
import { publishedDocuments, type PagePlan, type PlannedFile } from './files.js';

/** Bump when the page's layout changes, so an incremental build does not reuse older pages. */
const PAGE_FORMAT = 'epdpage/2';
/** A page lives at `epd/<uuid>/`: its links to the node's files start from the site root. */
const ROOT = '../../';

/** What a page shows besides its EPD document: the links that exist and the node it belongs to. */
type PageContext = PagePlan['ctx'];
/** What a page is made from: plain data, so the page writer's thread can make it too (src/emit/page-writer.ts). */
export type PageDataset = Pick<Dataset, 'header' | 'file' | 'sha256' | 'declaredUnit' | 'lcia' | 'table'>;

/**
 * One page per EPD (`epd/<uuid>/index.html`). The LCIA results are not in the index: an EPD read in this build brings
 * its results table, made by the reader and kept in the catalog's spool (Dataset.table); one taken from the cache
 * reads its document again when the page is written (one document in memory at a time), and where the reader recorded
 * the LCIA element's span (Dataset.lcia), only that is cut out and scanned (readLciaResults). Each planned page also
 * says what it is made from (PlannedFile.page): the writer may make it in another thread.
 */
export function planEpdPages(epds: readonly Dataset[], cfg: ResolvedConfig, references?: ReferenceReport, spool?: Spool): PlannedFile[] {
  // What every page's key shares, serialised once (the node's configuration is most of it): a key hashes the JSON of
  // { d, unit, pdf, zip, base, sets, node }, in that order.
  const shared = JSON.stringify({ base: cfg.baseUrl, sets: cfg.pathSets, node: cfg.node }).slice(1);
  const take = spool && ((at: SpoolSpan) => spool.take(at));
  return epds.map((d) => {
    const uuid = d.header.uuid;
    const ctx: PageContext = { cfg, ...publishedDocuments(uuid, cfg, references) };
    const unit = d.declaredUnit === undefined ? '' : `,"unit":${JSON.stringify(d.declaredUnit)}`;
    const inputs = `{"d":${JSON.stringify(d.sha256)}${unit},"pdf":${ctx.pdf},"zip":${ctx.zip},${shared}`;
    const key = createHash('sha256').update(`${PAGE_FORMAT} ${GENERATOR_VERSION}\n${inputs}`).digest('hex');
    return {
      path: epdPageFile(uuid),
      contentType: HTML_TYPE,
      source: { make: () => pageHtml(d, ctx, take) },
      key: `page:${key}`,
      page: { d, ctx, ...(spool ? { spool } : {}) },
    };
  });
}

/**
 * The page of `d` (HTML, encoded as it is written): its LCIA table taken from the spool (`take`) where this build's
 * reader made one, else made from its document, read again.
 */
export async function pageHtml(d: PageDataset, ctx: PageContext, take?: (at: SpoolSpan) => string): Promise<string> {
  // Made by the reader in this build (src/catalog/read.ts): no second read of the document.
  const table = d.table && take ? spooled(take, d.table) : undefined;
  if (table !== undefined) return renderEpdPage(d, table, ctx);
  // The digest always: bytes that are not those the reader checked are checked again (readLciaResults).
  const at = { ...(d.lcia ? { span: d.lcia } : {}), sha256: d.sha256 };
  // A plain file in the thread's reused buffer, scanned before anything else can run: the results are strings
  // of their own.
  const bytes = d.file.zip ? await readInput(d.file) : readFileReused(d.file.abs);
  return renderEpdPage(d, lciaTable(readLciaResults(bytes, at)), ctx);
}

/** A table from the spool; undefined if it cannot be read back (the page then reads its document). */
function spooled(take: (at: SpoolSpan) => string, at: SpoolSpan): string | undefined {
  try {
    return take(at);
  } catch {
    return undefined;
  }
}

/** JSON inside a script element: `<` escaped so no text of the file can close the element. */
function jsonLd(value: unknown): string {
  return JSON.stringify(value, null, 1).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** The page of EPD `d`; `table` is its LCIA results table (lciaTable). */
export function renderEpdPage(d: Pick<Dataset, 'header' | 'declaredUnit'>, table: string, { cfg, pdf, zip }: PageContext): string {
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
    description: p.description ?? `EPD ${title}`,
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
${table}
</main>
</body>
</html>
`;
}
