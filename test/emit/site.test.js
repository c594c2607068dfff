// Builds the example node once and checks every document against the soda4LCA shapes and the inputs.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWithSchema } from '../../dist/index.js';
import { childrenOf, parseXml } from '../../dist/parse/xml.js';
import { buildExample, cleanup, EXAMPLE_DATA, REAL_EPDS, sha256, tree, walkFiles } from '../helpers/index.js';

const S = 'http://www.ilcd-network.org/ILCD/ServiceAPI';
const P = 'http://www.ilcd-network.org/ILCD/ServiceAPI/Process';
const XML = 'http://www.w3.org/XML/1998/namespace';
const XLINK = 'http://www.w3.org/1999/xlink';
const EPD = 'http://www.iai.kit.edu/EPD/2013';
const BASE = 'http://localhost:8080';

const site = suite('example site');
let out, result;
site.before(async () => {
  ({ out, result } = await buildExample());
});
site.after(cleanup);

const read = (p) => readFileSync(join(out, p));
const text = (p) => read(p).toString('utf8');
const child = (n, ns, name) => n.children.find((c) => c.ns === ns && c.name === name);

site('identical files are written once: /v1 copies of EPDs are hard links of resource/processes', () => {
  for (const e of REAL_EPDS) {
    const a = statSync(join(out, 'resource/processes', e.uuid));
    const b = statSync(join(out, 'v1/epds', e.uuid));
    assert.is(a.ino, b.ino, e.uuid);
    assert.ok(a.nlink >= 2);
  }
  // Files with their own content are not linked to another file of the site (a whole list is linked only from the
  // cache's blob folder beside it, for a runner without this site).
  const ino = statSync(join(out, 'resource/processes/index.xml')).ino;
  const same = walkFiles(out).filter((f) => statSync(f).ino === ino);
  assert.equal(
    same.map((f) => relative(out, f)),
    ['resource/processes/index.xml'],
  );
});

site('the build reports five EPDs, nothing rejected, status ok', () => {
  assert.ok(result.written);
  assert.is(result.status, 'ok');
  assert.is(result.summary.epds, 5);
  assert.is(result.summary.rejected, 0);
  assert.is(result.summary.errors, 0);
});

site('XML list: soda4LCA dataSetList, element by element', () => {
  const doc = parseXml(text('resource/processes/index.xml'));
  assert.ok(doc.ok);
  const root = doc.root;
  assert.is(root.ns, S);
  assert.is(root.name, 'dataSetList');
  assert.is(root.attrs[`{${S}}totalSize`], '5');
  assert.is(root.attrs[`{${S}}startIndex`], '0');
  assert.is(root.attrs[`{${S}}pageSize`], '5');
  const entries = childrenOf(root, P, 'process');
  assert.is(entries.length, 5);
  assert.equal(
    entries.map((e) => child(e, S, 'uuid').text),
    REAL_EPDS.map((e) => e.uuid).sort(),
  );
  for (const e of entries) {
    const uuid = child(e, S, 'uuid').text;
    const epd = REAL_EPDS.find((x) => x.uuid === uuid);
    assert.is(e.attrs[`{${XLINK}}href`], `${BASE}/resource/processes/${uuid}?version=${epd.version}`);
    assert.is(e.attrs[`{${S}}sourceId`], 'PO_NODE_EXAMPLE');
    assert.is(child(e, S, 'permanentUri').text, `${BASE}/resource/processes/${uuid}`);
    assert.is(child(e, S, 'dataSetVersion').text, epd.version);
    const names = childrenOf(e, S, 'name').map((n) => ({ lang: n.attrs[`{${XML}}lang`], value: n.text }));
    // English first (ilcdlib reads only the first name), then the others in document order.
    const expected = [...epd.names.filter((n) => n.lang === 'en'), ...epd.names.filter((n) => n.lang !== 'en')];
    assert.equal(names, expected);
    const cls = childrenOf(e, S, 'classification').map((c) => ({
      system: c.attrs.name,
      classes: childrenOf(c, S, 'class').map((k) => ({
        level: Number(k.attrs.level),
        ...(k.attrs.classId ? { classId: k.attrs.classId } : {}),
        name: k.text,
      })),
    }));
    assert.equal(cls, epd.classifications);
    assert.is(child(e, P, 'type').text, 'EPD');
    assert.is(child(e, P, 'location')?.text, epd.location);
    const time = child(e, P, 'time');
    assert.is(child(time, P, 'referenceYear').text, epd.referenceYear);
    assert.is(child(time, P, 'validUntil').text, epd.validUntil);
    assert.equal(
      childrenOf(e, P, 'complianceSystem').map((c) => child(c, S, 'reference').attrs.refObjectId),
      epd.compliance,
    );
    assert.is(child(e, P, 'ownership').attrs.refObjectId, epd.owner.uuid);
    assert.is(child(child(e, S, 'other'), EPD, 'subType').text, epd.subType);
    // ServiceAPI sequence order (uuid, permanentUri, dataSetVersion, name, classification, type, location, time, ...).
    const order = e.children.map((c) => c.name);
    const seq = [
      'uuid',
      'permanentUri',
      'dataSetVersion',
      'name',
      'classification',
      'type',
      'location',
      'time',
      'complianceSystem',
      'accessInformation',
      'ownership',
      'other',
    ];
    const positions = order.map((n) => seq.indexOf(n));
    assert.ok(
      positions.every((p, i) => p >= 0 && (i === 0 || p >= positions[i - 1])),
      `order ${order.join(',')}`,
    );
  }
});

site('JSON list: valid against the published schema, keys in soda4LCA order, values from the XML', () => {
  const raw = text('resource/processes/index.json');
  const doc = JSON.parse(raw);
  assert.equal(validateWithSchema('processes-list', doc), []);
  assert.equal(Object.keys(doc), ['startIndex', 'pageSize', 'totalCount', 'data']);
  assert.is(doc.totalCount, 5);
  assert.is(doc.pageSize, 5);
  assert.ok(!raw.includes('\n'), 'compact like Gson');
  const ibu = doc.data.find((d) => d.uuid === REAL_EPDS[0].uuid);
  assert.equal(Object.keys(ibu), [
    'languages',
    'name',
    'uuid',
    'version',
    'geo',
    'classific',
    'classificId',
    'classificSystem',
    'type',
    'referenceFlows',
    'refYear',
    'validUntil',
    'compliance',
    'owner',
    'subType',
    'regNo',
    'regAuthority',
    'nodeid',
    'uri',
    'dsType',
  ]);
  assert.equal(ibu.regAuthority, { uuid: 'd111dbec-b024-4be5-86c5-752d6eb2cf95', name: 'Institut Bauen und Umwelt e. V.' });
  assert.equal(ibu.languages, ['en', 'de']);
  assert.is(ibu.name, '2-layer parquet');
  assert.is(ibu.classific, 'Holz / Holzböden / Parkett');
  assert.is(ibu.classificId, '3.3.02');
  assert.is(ibu.classificSystem, 'OEKOBAU.DAT');
  assert.is(ibu.refYear, 2022);
  assert.is(ibu.validUntil, 2027);
  assert.is(ibu.owner, 'Hamberger Flooring GmbH & Co. KG');
  assert.is(ibu.regNo, 'EPD-HAM-20220202-ICD1-DE');
  assert.equal(ibu.compliance[0], {
    name: 'DIN EN 15804+A2',
    uri: '../sources/c0016b33-8cf7-415c-ac6e-deba0d21440d.xml',
    uuid: 'c0016b33-8cf7-415c-ac6e-deba0d21440d',
  });
  const environdec = doc.data.find((d) => d.uuid === REAL_EPDS[1].uuid);
  assert.not.ok('geo' in environdec, 'no location in the XML, so no geo key');
  assert.not.ok('regNo' in environdec);
});

site('v1 list: valid against its schema and consistent with the soda4LCA list', () => {
  const doc = JSON.parse(text('v1/epds/index.json'));
  assert.equal(validateWithSchema('v1-epds', doc), []);
  assert.is(doc.totalCount, 5);
  for (const epd of REAL_EPDS) {
    const item = doc.data.find((d) => d.uuid === epd.uuid);
    assert.is(item.version, epd.version);
    assert.equal(item.names, epd.names);
    assert.is(item.publicationDate, epd.publicationDate);
    assert.is(item.url, `${BASE}/v1/epds/${epd.uuid}`);
  }
});

site('every served EPD is byte-identical to its input, in both path sets', () => {
  for (const epd of REAL_EPDS) {
    const src = sha256(readFileSync(join(EXAMPLE_DATA, epd.file)));
    assert.is(sha256(read(`resource/processes/${epd.uuid}`)), src, epd.uuid);
    assert.is(sha256(read(`v1/epds/${epd.uuid}`)), src, epd.uuid);
  }
});

site('dependent datasets are published under their soda4LCA folders, newest version', () => {
  const files = Object.keys(tree(out));
  const count = (folder) => files.filter((f) => new RegExp(`^resource/${folder}/[0-9a-f-]{36}$`).test(f)).length;
  assert.is(count('flows'), 23);
  assert.is(count('contacts'), 17);
  assert.is(count('sources'), 60);
  assert.is(count('flowproperties'), 21);
  assert.is(count('unitgroups'), 39);
  // b00f9ec0 (EN 15804+A1) is in three exports as 00.02.000 and in one as 00.03.000: the newest wins.
  assert.match(text('resource/sources/b00f9ec0-7874-11e3-981f-0800200c9a66'), '<common:dataSetVersion>00.03.000</common:dataSetVersion>');
});

site('nodeinfo is the soda4LCA NodeInfo document, identical at both paths', () => {
  const a = text('nodeinfo/index.xml');
  assert.is(a, text('resource/nodeinfo/index.xml'));
  const doc = parseXml(a);
  assert.ok(doc.ok);
  const NI = 'http://www.ilcd-network.org/ILCD/ServiceAPI/NodeInfo';
  const C = 'http://www.ilcd-network.org/ILCD/ServiceAPI/Contact';
  assert.is(doc.root.ns, NI);
  assert.is(doc.root.name, 'nodeInfo');
  assert.equal(
    doc.root.children.map((c) => c.name),
    ['nodeID', 'name', 'operator', 'description', 'baseURL', 'administrativeContact'],
  );
  assert.is(child(doc.root, NI, 'nodeID').text, 'PO_NODE_EXAMPLE');
  assert.is(child(doc.root, NI, 'baseURL').text, `${BASE}/resource`);
  assert.is(child(child(doc.root, NI, 'administrativeContact'), C, 'email').text, 'po-node@example.org');
});

site('health: schema-valid, counts match the site, identical at both paths', () => {
  const h = JSON.parse(text('healthz/index.json'));
  assert.equal(validateWithSchema('health', h), []);
  assert.is(text('healthz/index.json'), text('v1/healthz/index.json'));
  assert.is(h.status, 'ok');
  assert.is(h.builtAt, '2026-01-02T03:04:05.000Z');
  assert.is(h.epds.listed, 5);
  // Valid until 2025 for four of them; the build year is 2026.
  assert.is(h.epds.expired, 4);
  assert.equal(
    h.epds.expiredUuids,
    REAL_EPDS.filter((e) => e.validUntil < '2026')
      .map((e) => e.uuid)
      .sort(),
  );
  assert.is(h.datasets.processes, 5);
  assert.is(h.inputs.rejected, 0);
  assert.ok(h.checks.length >= 5 && h.checks.every((c) => c.ok));
  // Every list's hash is its file's (the writer's hash of the bytes it wrote, not read back: src/emit/health.ts).
  assert.equal(
    h.lists.map((l) => l.path),
    ['resource/processes/index.xml', 'resource/processes/index.json', 'v1/epds/index.json'],
  );
  for (const l of h.lists) assert.is(l.sha256, sha256(read(l.path)), l.path);
});

site('the index page lists every EPD with a relative link', () => {
  const html = text('index.html');
  for (const epd of REAL_EPDS) assert.match(html, `href="resource/processes/${epd.uuid}"`);
  assert.match(html, 'po-node example EPD node');
});

site('the catalogue search index: valid against its schema, one entry per table row in the same order', () => {
  const ix = JSON.parse(text('epd/index.json'));
  assert.equal(validateWithSchema('catalogue-index', ix), []);
  assert.is(ix.count, 5);
  const html = text('index.html');
  const rowUuids = [...html.matchAll(/<tr><td><a href="epd\/([0-9a-f-]{36})\/"/g)].map((m) => m[1]);
  assert.equal(
    rowUuids,
    ix.epds.map((e) => e.uuid),
  );
  // By name: "12.5 mm ..." first, "Shutters ..." last; rows link the page, the XML of both path sets, the ZIP export.
  assert.is(rowUuids[0], 'daa1778e-be8f-4d2f-b1b3-c32ca2f0e90d');
  assert.is(rowUuids[4], 'ee8863aa-7276-4896-b07a-713937a3134d');
  const parquet = ix.epds.find((e) => e.uuid === '2eb43850-0ab2-4068-afe5-218d69a096f8');
  assert.equal(parquet.names, [
    ['de', '2-Schicht-Parkett'],
    ['en', '2-layer parquet'],
  ]);
  assert.is(parquet.validity, 'valid');
  assert.equal(ix.classifications[parquet.classes[0]], ['OEKOBAU.DAT', 'Holz', 'Holzböden', 'Parkett']);
  assert.is(ix.organisations[parquet.manufacturer], 'Hamberger Flooring GmbH & Co. KG');
  assert.is(ix.epds.filter((e) => e.validity === 'expired').length, 4);
});

site('the catalogue is self-contained: its inline style and script are the ones its Content-Security-Policy allows', () => {
  const html = text('index.html');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)[1];
  const hash = (s) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)[1];
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)[1];
  assert.match(csp, `style-src ${hash(style)};`);
  assert.match(csp, `script-src ${hash(script)};`);
  assert.match(csp, "default-src 'none'");
  // Nothing from elsewhere: every src and href is relative to the site (or the empty favicon).
  for (const [, url] of html.matchAll(/(?:src|href)="([^"]*)"/g)) assert.not.match(url, /^(https?:)?\/\//, url);
});

site('a node without EPDs: the catalogue says so and has no table; its index is empty and valid', async () => {
  const { renderCatalogueIndex, renderIndexHtml } = await import('../../dist/emit/html.js');
  const cfg = { node: { id: 'EMPTY', name: 'Empty node', description: {} }, pathSets: { default: true, v1: true } };
  const ctx = /** @type {any} */ ({ catalog: { epds: [] }, cfg, builtAt: new Date('2026-01-02T00:00:00Z') });
  const html = renderIndexHtml(ctx);
  assert.match(html, '<p>No EPDs published.</p>');
  assert.not.match(html, '<table');
  assert.not.match(html, 'rel="preload"');
  const ix = JSON.parse(renderCatalogueIndex(ctx));
  assert.equal(validateWithSchema('catalogue-index', ix), []);
  assert.equal([ix.count, ix.epds], [0, []]);
});

site.run();
