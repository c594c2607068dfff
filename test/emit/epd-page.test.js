// Issue 14: a page per EPD (epd/<uuid>/index.html), built from the five real EPDs of the example node and from a
// hostile copy of one of them.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HTML_TYPE, ROUTES, siteContentType } from '../../dist/site/routes.js';
import { EXAMPLE_CONFIG, EXAMPLE_DATA, REAL_EPDS, build, buildExample, cleanup, success, tmp, walkFiles } from '../helpers/index.js';
import { zipExports } from '../helpers/zip.js';

const BASE = 'http://localhost:8080';
const page = suite('EPD pages');
let out, result;
page.before(async () => {
  ({ out, result } = await buildExample({ zipExport: true }));
});
page.after(cleanup);

const html = (dir, uuid) => readFileSync(join(dir, 'epd', uuid, 'index.html'), 'utf8');
const unescape = (s) =>
  s
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** The results table as { indicator: { column: cell text } }; columns are module names, with the scenario after a space. */
function lciaTable(doc) {
  const table = doc.slice(doc.indexOf('<table>'), doc.indexOf('</table>'));
  const cols = [...table.slice(0, table.indexOf('</thead>')).matchAll(/<th scope="col">(.*?)<\/th>/g)].map((m) =>
    unescape(m[1].replace('<br>', ' ')),
  );
  const rows = {};
  for (const [, row] of table.matchAll(/<tr><th scope="row">(.*?)<\/tr>/g)) {
    const name = unescape(row.slice(0, row.indexOf('</th>')));
    const cells = [...row.matchAll(/<td>(.*?)<\/td>/g)].map((m) => unescape(m[1]));
    rows[name] = Object.fromEntries(cols.slice(1).map((c, i) => [c, cells[i]]));
  }
  return rows;
}

/** JSON-LD of a page: parses as JSON. */
function jsonLd(doc) {
  const m = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(doc);
  assert.ok(m, 'JSON-LD script');
  return JSON.parse(m[1]);
}

/** Every URL a page loads or links: none outside the node (no CDN, no fonts, no images from elsewhere). */
function assertSelfContained(doc) {
  for (const [, url] of doc.matchAll(/(?:href|src)="([^"]*)"/g)) {
    // `data:,` is the empty favicon: it keeps the browser from asking the host for /favicon.ico.
    assert.ok(!/^[a-z][a-z0-9+.-]*:|^\/\//i.test(url) || url.startsWith(`${BASE}/`) || url === 'data:,', `external URL ${url}`);
  }
  assert.not.match(doc, /@import|url\(|<script(?! type="application\/ld\+json")/);
}

// Values read off the XML by hand: one LCIA cell per EPD (module, scenario), the indicator by its English name.
const HAND_READ = {
  '2eb43850-0ab2-4068-afe5-218d69a096f8': [
    ['Global Warming Potential total (GWP-total)', 'A1-A3', '6.529'],
    ['Global Warming Potential total (GWP-total)', 'D S2', '-0.2187'],
  ],
  'daa1778e-be8f-4d2f-b1b3-c32ca2f0e90d': [
    ['Abiotic depletion potential for non fossil resources (ADPE)', 'A4', '2.39E-6'],
    // An empty epd:amount: declared, not assessed; shown as ND, not 0.
    ['Abiotic depletion potential for non fossil resources (ADPE)', 'B2', 'ND'],
  ],
  '8bc0d502-7f9b-43ab-af31-d55d23a708f1': [['Abiotic depletion potential for fossil resources (ADPF)', 'A1-A3', '1030.0']],
  'a6ef2d29-49bd-4aaf-ac19-1e3975e4fa51': [['Abiotic depletion potential - non-fossil resources (ADPE)', 'A2', '4.7E-4']],
  'ee8863aa-7276-4896-b07a-713937a3134d': [['Abiotic depletion potential for non fossil resources (ADPE)', 'A5', '2.31E-7']],
};

page('each real EPD has a page: names in all languages, registration number, LCIA values as in the XML', () => {
  for (const e of REAL_EPDS) {
    const doc = html(out, e.uuid);
    for (const n of e.names) assert.match(doc, `<span lang="${n.lang}">${n.value.replace(/&/g, '&amp;')}</span>`, `${e.uuid} ${n.lang}`);
    if (e.registrationNumber) assert.match(doc, `<dd>${e.registrationNumber}</dd>`);
    if (e.location) assert.match(doc, `<dd>${e.location}</dd>`);
    const table = lciaTable(doc);
    for (const [indicator, column, value] of HAND_READ[e.uuid])
      assert.is(table[indicator]?.[column], value, `${e.uuid} ${indicator} ${column}`);
  }
});

page('A2 EPDs: the 13 core indicators first, the 6 additional ones in their own group', () => {
  const doc = html(out, '2eb43850-0ab2-4068-afe5-218d69a096f8');
  assert.is(Object.keys(lciaTable(doc)).length, 19);
  const [core, additional] = doc.split('Additional indicators');
  assert.is(core.match(/<tr><th scope="row">/g).length, 13);
  assert.is(additional.match(/<tr><th scope="row">/g).length, 6);
  assert.match(additional, '(PM)');
});

page('links: ILCD XML (soda4LCA and v1), PDF and ZIP export where present, all relative to the page', () => {
  const ibu = html(out, '2eb43850-0ab2-4068-afe5-218d69a096f8');
  const u = '2eb43850-0ab2-4068-afe5-218d69a096f8';
  assert.match(ibu, `href="../../resource/processes/${u}"`);
  assert.match(ibu, `href="../../v1/epds/${u}"`);
  assert.match(ibu, `href="../../resource/processes/${u}/zipexport"`);
  assert.match(ibu, `${BASE}/resource/processes/${u}`);
  assert.not.match(ibu, '/epd"'); // the IBU PDF is not in its export
  const oekobau = html(out, 'ee8863aa-7276-4896-b07a-713937a3134d');
  assert.match(oekobau, 'href="../../resource/processes/ee8863aa-7276-4896-b07a-713937a3134d/epd"');
  for (const e of REAL_EPDS) {
    const doc = html(out, e.uuid);
    // Every relative link leads to a file of the site (the PDF and ZIP through their soda4LCA URLs).
    for (const [, href] of doc.matchAll(/href="(\.\.\/\.\.\/[^"]*)"/g)) {
      const rel = href.slice(6).replace(/\/(epd|zipexport)$/, (_, s) => `_files/${s === 'epd' ? 'epd.pdf' : 'zipexport.zip'}`);
      assert.ok(rel === '' || walkFiles(out).some((f) => relative(out, f) === rel), `${e.uuid}: ${href}`);
    }
  }
});

page('JSON-LD: a schema.org Dataset; lang attributes; nothing loaded from outside the node', () => {
  for (const e of REAL_EPDS) {
    const doc = html(out, e.uuid);
    const ld = jsonLd(doc);
    assert.is(ld['@context'], 'https://schema.org');
    assert.is(ld['@type'], 'Dataset');
    assert.is(ld.identifier[0], e.uuid);
    assert.is(ld.url, `${BASE}/epd/${e.uuid}/`);
    assert.match(doc, /^<!doctype html>\n<html lang="en">/);
    assert.match(doc, '<meta name="viewport" content="width=device-width, initial-scale=1">');
    assertSelfContained(doc);
  }
});

page('the catalogue links each EPD to its page; pages are a route of the routes table', () => {
  const index = readFileSync(join(out, 'index.html'), 'utf8');
  for (const e of REAL_EPDS) assert.match(index, `href="epd/${e.uuid}/"`);
  const route = ROUTES.find((r) => r.id === 'epd-page');
  assert.equal(route.files, [{ file: 'epd/{uuid}/index.html', type: HTML_TYPE }]);
  const pages = walkFiles(out)
    .map((f) => relative(out, f))
    .filter((f) => f.startsWith('epd/') && f !== 'epd/index.json' && !/\.(gz|br)$/.test(f));
  assert.is(pages.length, REAL_EPDS.length, 'one page per EPD (its .gz/.br copies aside)');
  for (const f of pages) assert.is(siteContentType(f), HTML_TYPE);
});

// The page cuts the LCIA results out at the span recorded when the EPD was read (Dataset.lcia), from plain files and
// ZIP entries alike; without one it scans the body again. Either way the same bytes.
page('pages made at the recorded span equal those made by scanning the body again; ZIP inputs alike', async () => {
  const { planEpdPages } = await import('../../dist/emit/epd-page.js');
  const epds = result.catalog.epds;
  assert.ok(epds.length >= 5 && epds.every((d) => d.lcia), 'every EPD has its span');
  const made = (ds) => Promise.all(planEpdPages(ds, result.config, result.references).map((p) => /** @type {any} */ (p.source).make()));
  const rescanned = await made(epds.map(({ lcia: _, ...d }) => d));
  const fromSpan = await made(epds);
  epds.forEach((d, i) => {
    assert.ok(Buffer.from(rescanned[i]).equals(Buffer.from(fromSpan[i])), d.header.uuid);
    assert.ok(Buffer.from(fromSpan[i]).equals(readFileSync(join(out, 'epd', d.header.uuid, 'index.html'))), d.header.uuid);
  });
  const zips = tmp();
  zipExports(EXAMPLE_DATA, zips);
  const { out: zipOut, result: zipped } = await buildExample({ zipExport: true, inputs: [zips] });
  assert.ok(
    zipped.catalog.epds.length >= 5 && zipped.catalog.epds.every((d) => d.file.zip && d.lcia && d.table),
    'spans and tables of ZIP entries',
  );
  for (const d of epds) assert.is(html(zipOut, d.header.uuid), html(out, d.header.uuid), d.header.uuid);
});

// The reader makes each EPD's LCIA table while it holds the document's bytes; the page takes it from the catalog's
// spool instead of reading, hashing and scanning the document again on the main thread.
page('EPDs read in a build bring their LCIA table from the reader: the same pages, no second read; validate makes none', async () => {
  const { readStage } = await import('../../dist/index.js');
  const { planEpdPages } = await import('../../dist/emit/epd-page.js');
  const opts = { config: EXAMPLE_CONFIG, zipExport: true, now: new Date('2026-01-02T03:04:05Z') };
  const r = await readStage({ ...opts, pageTables: true });
  const made = (spool) =>
    Promise.all(planEpdPages(r.catalog.epds, r.cfg, r.references, spool).map((p) => /** @type {any} */ (p.source).make()));
  try {
    const epds = r.catalog.epds;
    assert.ok(r.catalog.spool && epds.length >= 5 && epds.every((d) => d.table), 'every EPD read has its table');
    const fromSpool = await made(r.catalog.spool);
    const reread = await made(undefined);
    epds.forEach((d, i) => {
      assert.ok(Buffer.from(fromSpool[i]).equals(Buffer.from(reread[i])), d.header.uuid);
      assert.ok(Buffer.from(fromSpool[i]).equals(readFileSync(join(out, 'epd', d.header.uuid, 'index.html'))), d.header.uuid);
    });
    // The table is the spool's, not the document's.
    const marked = await made(/** @type {any} */ ({ take: () => '<p id="from-the-spool"></p>' }));
    assert.ok(marked.every((b) => Buffer.from(b).toString('utf8').includes('<p id="from-the-spool"></p>')));
  } finally {
    r.catalog.spool?.close();
  }
  const v = await readStage(opts);
  assert.is(v.catalog.spool, undefined, 'validate keeps no tables');
  assert.ok(v.catalog.epds.every((d) => d.table === undefined));
});

// The page thread (src/emit/page-writer.ts) makes and writes pages from plain data: the spool read by descriptor.
page(
  'the page thread writes the bytes the main thread makes, keeps them as blobs; a page it cannot write is left to the main thread',
  async () => {
    const { readStage } = await import('../../dist/index.js');
    const { planEpdPages } = await import('../../dist/emit/epd-page.js');
    const { PageWriter, pageJob } = await import('../../dist/emit/page-writer.js');
    const opts = { config: EXAMPLE_CONFIG, zipExport: true, now: new Date('2026-01-02T03:04:05Z') };
    const r = await readStage({ ...opts, pageTables: true });
    const dir = tmp();
    const writer = new PageWriter();
    try {
      const plans = planEpdPages(r.catalog.epds, r.cfg, r.references, r.catalog.spool);
      const fd = r.catalog.spool.shared();
      const file = { mode: 0o644, fixMode: false };
      const jobs = plans.map((p, k) => pageJob(join(dir, `${k}.html`), p.page, { to: join(dir, 'blobs', `${k}`) }));
      // The second job's folder is missing: not written there, so the main thread must make it.
      jobs[1] = { ...jobs[1], to: join(dir, 'missing', '1.html') };
      const reply = await writer.run(r.cfg, file, fd, jobs, { mode: 0o755, fix: false });
      assert.ok(reply, 'answered');
      assert.is(reply.sizes[1], undefined, 'a page it could not write');
      assert.is(reply.kept[1], false);
      for (const [k, p] of plans.entries()) {
        if (k === 1) continue;
        const want = Buffer.from(await /** @type {any} */ (p.source).make());
        assert.ok(readFileSync(jobs[k].to).equals(want), `page ${k}: the main thread's bytes`);
        assert.is(reply.sizes[k], want.length);
        assert.ok(reply.kept[k] && readFileSync(join(dir, 'blobs', `${k}`)).equals(want), `page ${k} kept`);
        assert.is(statSync(jobs[k].to).mode & 0o777, 0o644);
      }
      await writer.close();
      assert.is(
        await writer.run(r.cfg, file, fd, jobs.slice(0, 1), { mode: 0o755, fix: false }),
        undefined,
        'a closed thread writes nothing',
      );
    } finally {
      await writer.close();
      r.catalog.spool?.close();
    }
  },
);

page('no spool (no temporary folder to make it in): each page reads its document again, the same bytes', async () => {
  const saved = process.env.TMPDIR;
  const site = join(tmp(), 'site');
  process.env.TMPDIR = join(tmp(), 'missing');
  let other;
  try {
    other = {
      out: site,
      result: await build({ config: EXAMPLE_CONFIG, out: site, now: new Date('2026-01-02T03:04:05Z'), zipExport: true }),
    };
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  const epds = other.result.catalog.epds;
  assert.ok(epds.length >= 5 && epds.every((d) => d.table === undefined), 'no tables kept');
  for (const d of epds) assert.is(html(other.out, d.header.uuid), html(out, d.header.uuid), d.header.uuid);
});

page('only the v1 path set: the page links the v1 document; no soda4LCA, PDF or ZIP URL, whatever the references hold', async () => {
  const { planEpdPages } = await import('../../dist/emit/epd-page.js');
  const { extractDataset } = await import('../../dist/parse/extract.js');
  const { parseXml } = await import('../../dist/parse/xml.js');
  const e = REAL_EPDS.find((x) => x.uuid === 'ee8863aa-7276-4896-b07a-713937a3134d');
  const abs = join(EXAMPLE_DATA, e.file);
  const header = success(extractDataset(success(parseXml(readFileSync(abs, 'utf8'))).root)).dataset;
  const d = /** @type {any} */ ({ header, file: { abs, path: e.file, size: 0, kind: 'xml' }, sha256: 'x' });
  const has = new Map([[e.uuid, {}]]);
  const cfg = { pathSets: { default: false, v1: true }, zipExport: true, node: { name: 'v1 node' } };
  const [planned] = planEpdPages([d], /** @type {any} */ (cfg), /** @type {any} */ ({ epdPdf: has, closures: has }));
  assert.is(planned.path, `epd/${e.uuid}/index.html`);
  const source = planned.source;
  if (!('make' in source)) throw new Error('a page is made when it is written');
  const doc = Buffer.from(/** @type {Uint8Array} */ (await source.make())).toString('utf8');
  assert.match(doc, `href="../../v1/epds/${e.uuid}"`);
  assert.not.match(doc, 'resource/');
  assert.is(Object.keys(lciaTable(doc)).length, 7);
  assert.is(jsonLd(doc).distribution.length, 1);
});

page('hostile names, languages and codes are escaped everywhere, JSON-LD included', async () => {
  const dir = join(tmp(), 'in');
  mkdirSync(dir);
  const e = REAL_EPDS[0];
  const evil = "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;'&amp;";
  const xml = readFileSync(join(EXAMPLE_DATA, e.file), 'utf8')
    .replace('<baseName xml:lang="en">2-layer parquet</baseName>', `<baseName xml:lang="en">${evil}</baseName>`)
    .replace('<baseName xml:lang="de">', '<baseName xml:lang="de&quot; onmouseover=&quot;alert(1)">')
    .replace(/<common:registrationNumber>[^<]*/, `<common:registrationNumber>${evil}`);
  writeFileSync(join(dir, 'epd.xml'), xml);
  const site = join(tmp(), 'site');
  // The schema rejects such a language code (xml:lang); without XSD validation the page must still not carry it.
  const result = await build({ inputs: [dir], out: site, baseUrl: BASE, xsd: false, now: new Date('2024-01-01T00:00:00Z') });
  assert.ok(result.written);
  const doc = html(site, e.uuid);
  assert.not.match(doc, '<script>');
  assert.not.match(doc, 'onmouseover="');
  assert.is(doc.match(/<\/script/gi).length, 1); // the JSON-LD's own end tag: no text can close it early
  assert.match(doc, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;'&amp;");
  const ld = jsonLd(doc);
  assert.is(ld.name, '</script><script>alert(1)</script>"\'&');
  assert.ok(ld.identifier.includes('</script><script>alert(1)</script>"\'&'));
  const index = readFileSync(join(site, 'index.html'), 'utf8');
  assert.is(index.match(/<script/gi).length, 1); // the catalogue's own script; the name is text
  assert.is(index.match(/<\/script/gi).length, 1);
  assert.match(index, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;'&amp;");
  // The search index is JSON: the name as it is, read by the script into text nodes only.
  const ix = JSON.parse(readFileSync(join(site, 'epd/index.json'), 'utf8'));
  assert.ok(ix.epds[0].names.some(([, v]) => v === '</script><script>alert(1)</script>"\'&'));
});

page.run();
