import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Dataset } from '../catalog/build.js';
import { publishedDocuments, type PlanContext } from './files.js';
import { CATALOGUE_INDEX, datasetFile, epdPageUrl, PROCESSES, routeEnabled, ROUTES, SUB_URL, v1EpdFile } from '../site/routes.js';
import { pickText, type LangText } from '../parse/extract.js';
import { GENERATOR_NAME, GENERATOR_VERSION } from '../version.js';
import { best, esc, inLang } from '../html/text.js';

const read = (name: string) => readFileSync(new URL(`../../templates/${name}`, import.meta.url), 'utf8');
const template = read('index.html');
/** What the links of the last column are. */
const DATA_LEGEND = 'Data: XML the ILCD document (soda4LCA API), v1 the same at the draft v1 API, PDF, ZIP export with dependencies.';
/** The table's columns; on a phone each row is a card and its cells are labelled with these names by position. */
const COLUMNS = ['Name', 'Registration no.', 'Manufacturer', 'Classification', 'Location', 'Valid until', 'Data'];
const cardLabels = COLUMNS.map((c, i) => (i ? `td:nth-child(${i + 1})::before { content: "${c}: "; }` : '')).join(' ');
/** The catalogue's style and script, inlined (self-contained) and allowed by hash in the page's Content-Security-Policy. */
const style = `${read('catalogue.css')}  @media (max-width: 48rem) { ${cardLabels.trim()} }\n`;
const script = read('catalogue.js');
if (/<\/(script|style)/i.test(script + style)) throw new Error('internal: templates/catalogue.{js,css} must not close their element');
const cspHash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
const CSP = [
  "default-src 'none'",
  `style-src ${cspHash(style)}`,
  `script-src ${cspHash(script)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The routes the catalogue links, by id (src/site/routes.ts). */
const CATALOGUE = ['list:processes', 'resource-nodeinfo', 'health', 'v1:list', 'v1:health', 'catalogue-index'];

type Validity = 'valid' | 'expiring' | 'expired';
/** Validity as of the build: expired before the build's year, expiring at its end (dataSetValidUntil is a year). */
function validity(validUntil: string | undefined, year: number): Validity | undefined {
  if (!/^\d{4}$/.test(validUntil ?? '')) return undefined;
  const y = Number(validUntil);
  return y < year ? 'expired' : y === year ? 'expiring' : 'valid';
}

/** One catalogue row: what the table shows and the index searches, in one order for both. */
export interface CatalogueRow {
  d: Dataset;
  name: LangText | undefined;
  classes: string[][];
  operator: string | undefined;
  manufacturer: string | undefined;
  validity: Validity | undefined;
}

/**
 * The catalogue's rows: the EPDs by displayed name (code-unit order, case folded: the same bytes on every machine),
 * then UUID. Made once per build (planSite) and given to both renderers.
 */
export function catalogueRows({ catalog, builtAt }: Pick<PlanContext, 'catalog' | 'builtAt'>): CatalogueRow[] {
  const year = builtAt.getUTCFullYear();
  const keyed = catalog.epds.map((d): [string, CatalogueRow] => {
    const p = d.header.process!;
    const operator = p.publishers[0] ?? p.registrationAuthority;
    const name = best(p.names);
    const e: CatalogueRow = {
      d,
      name,
      // A classification as [system, class of level 0, level 1, ...]; '' when the file names no system.
      classes: p.classifications.filter((c) => c.classes.length).map((c) => [c.system ?? '', ...c.classes.map((k) => k.name)]),
      operator: operator && pickText(operator.descriptions),
      manufacturer: p.owner && pickText(p.owner.descriptions),
      validity: validity(p.validUntil, year),
    };
    // The key folded once per EPD, not twice per comparison.
    return [(name?.value ?? '').toLowerCase(), e];
  });
  keyed.sort((a, b) => cmp(a[0], b[0]) || cmp(a[1].d.header.uuid, b[1].d.header.uuid));
  return keyed.map((k) => k[1]);
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The catalogue's search index (`epd/index.json`, schemas/catalogue-index.schema.json): only what the search and
 * filters need, its rows in the table's order, classifications and organisations stored once and referred to by
 * position. One EPD per line keeps it readable and its diffs small.
 */
export function renderCatalogueIndex(ctx: PlanContext, list = catalogueRows(ctx)): string {
  const { cfg, builtAt } = ctx;
  const classes = new Map<string, number>();
  const orgs = new Map<string, number>();
  const id = <K>(m: Map<K, number>, k: K) => m.get(k) ?? (m.set(k, m.size), m.size - 1);
  const rows = list.map((e) => {
    const p = e.d.header.process!;
    // Fields set one by one in the schema's order (no spreads of optional parts: 10,000 rows a build).
    const row: Record<string, unknown> = { uuid: e.d.header.uuid, names: p.names.map((t) => [t.lang, t.value]) };
    if (p.registrationNumber) row.reg = p.registrationNumber;
    if (p.location) row.location = p.location;
    if (p.validUntil) row.validUntil = p.validUntil;
    if (e.validity) row.validity = e.validity;
    if (e.classes.length) row.classes = e.classes.map((c) => id(classes, JSON.stringify(c)));
    if (e.operator) row.operator = id(orgs, e.operator);
    if (e.manufacturer) row.manufacturer = id(orgs, e.manufacturer);
    return JSON.stringify(row);
  });
  const head = {
    format: 'po-node-catalogue/1',
    nodeId: cfg.node.id,
    builtAt: builtAt.toISOString(),
    count: list.length,
    classifications: [...classes.keys()].map((k) => JSON.parse(k) as string[]),
    organisations: [...orgs.keys()],
  };
  return `${JSON.stringify(head).slice(0, -1)},"epds":[\n${rows.join(',\n')}\n]}\n`;
}

function row(e: CatalogueRow, ctx: PlanContext): string {
  const { cfg, references } = ctx;
  const h = e.d.header;
  const p = h.process!;
  const uuid = h.uuid;
  const others = p.names.filter((t) => t !== e.name).map((t) => inLang(t, 'span', ' class="alt"'));
  const name = e.name ? inLang(e.name, 'a', ` href="${epdPageUrl(uuid)}"`) : `<a href="${epdPageUrl(uuid)}">${uuid}</a>`;
  const cls = e.classes[0];
  const docs = publishedDocuments(uuid, cfg, references);
  const links = [
    ...(cfg.pathSets.default ? [`<a href="${datasetFile(PROCESSES, uuid)}">XML</a>`] : []),
    ...(cfg.pathSets.v1 ? [`<a href="${v1EpdFile(uuid)}">v1</a>`] : []),
    ...(docs.pdf ? [`<a href="${SUB_URL.epdPdf(uuid)}">PDF</a>`] : []),
    ...(docs.zip ? [`<a href="${SUB_URL.zipExport(uuid)}">ZIP</a>`] : []),
  ];
  const valid = esc(p.validUntil ?? '') + (e.validity ? ` <span class="${e.validity}">${e.validity}</span>` : '');
  const cells = [
    [name, ...others].join(' '),
    esc(p.registrationNumber ?? ''),
    esc(e.manufacturer ?? ''),
    cls ? esc(cls.slice(1).join(' / ')) : '',
    esc(p.location ?? ''),
    valid,
    links.join(' '),
  ];
  return `<tr><td>${cells.join('</td><td>')}</td></tr>`;
}

/**
 * The human catalogue (`index.html`): every EPD a server-rendered row (no script needed to browse, and crawlers reach
 * every EPD page); the inline script adds search and filters over `epd/index.json`. Links are relative, so the page
 * works under any base path.
 */
export function renderIndexHtml(ctx: PlanContext, list = catalogueRows(ctx)): string {
  const { catalog, cfg, builtAt } = ctx;
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
  const description = pickText(Object.entries(cfg.node.description).map(([lang, value]) => ({ lang, value })));
  const table = list.length
    ? [
        `<table id="epds" data-index="${CATALOGUE_INDEX}">`,
        `<caption>Validity as of the build (${builtAt.toISOString().slice(0, 10)}). ${DATA_LEGEND}</caption>`,
        `<thead><tr>${COLUMNS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr></thead>`,
        '<tbody>',
        ...list.map((e) => row(e, ctx)),
        '</tbody>',
        '</table>',
      ].join('\n')
    : '<p>No EPDs published.</p>';
  const values: Record<string, string> = {
    csp: CSP,
    // The index loads while the table is parsed, not after it.
    preload: list.length ? `<link rel="preload" href="${CATALOGUE_INDEX}" as="fetch" crossorigin>\n` : '',
    style,
    script,
    title: esc(cfg.node.name),
    operator: esc(cfg.node.operator ?? 'EPD programme operator'),
    nodeId: esc(cfg.node.id),
    count: String(catalog.epds.length),
    builtAt: builtAt.toISOString(),
    generator: esc(`${GENERATOR_NAME} ${GENERATOR_VERSION}`),
    description: description ? `<p>${esc(description)}</p>` : '',
    endpoints: endpoints.map(([href, label]) => `<li><a href="${href}">${esc(label)}</a></li>`).join('\n'),
    table,
  };
  return template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => values[k] ?? '');
}
