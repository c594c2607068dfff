import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { extractDataset } from '../../dist/parse/extract.js';
import { decodeXml } from '../../dist/parse/safety.js';
import { parseXml } from '../../dist/parse/xml.js';
import { schemaFor, validateXsd, XSD_ENTRY, XSD_ROOT } from '../../dist/validate/xsd.js';
import { EXAMPLE_DATA, FIXTURES, REAL_EPDS, success } from '../helpers/index.js';

function item(abs) {
  const d = success(decodeXml(readFileSync(abs)));
  const p = success(parseXml(d.text));
  const e = success(extractDataset(p.root));
  return { file: abs, text: d.text, header: e.dataset };
}

const TIANGONG = join(FIXTURES, 'tiangong');
const tiangong = readdirSync(TIANGONG)
  .filter((f) => f.endsWith('.xml'))
  .sort()
  .map((f) => item(join(TIANGONG, f)));
const epds = REAL_EPDS.map((e) => item(join(EXAMPLE_DATA, e.file)));

test('the five real programme-operator EPDs are valid against InData v1.2 (EPD_DataSet.xsd)', async () => {
  for (const it of epds) assert.is(schemaFor(it.header), XSD_ENTRY.epd);
  const r = await validateXsd(epds);
  assert.equal([...r.values()].flat(), []);
});

test('system xmllint and the bundled wasm build give the same findings (files on disk and in memory)', async () => {
  // CI installs libxml2-utils; elsewhere the native engine may be absent and there is nothing to compare.
  const has = spawnSync('xmllint', ['--version']).status === 0;
  if (!has && process.env.CI) assert.unreachable('xmllint must be installed in CI (.ci/run installs libxml2-utils)');
  if (!has) return;
  const broken = {
    ...epds[0],
    abs: undefined,
    file: 'memory.xml',
    text: epds[0].text.replace('<common:dataSetVersion>', '<common:dataSetVersion>x'),
  };
  const malformed = { ...epds[1], abs: undefined, file: 'bad.xml', text: epds[1].text.replace('</processInformation>', '') };
  const all = [...tiangong.map((t) => ({ ...t, abs: t.file })), ...epds.map((e) => ({ ...e, abs: e.file })), broken, malformed];
  const native = await validateXsd(all, { engine: 'native' });
  const wasm = await validateXsd(all, { engine: 'wasm' });
  // libxml2 versions differ in how many follow-up errors they report after a well-formedness error: the first counts.
  const norm = (m) =>
    [...m.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([i, fs]) => [i, (i === all.length - 1 ? fs.slice(0, 1) : fs).map((f) => [f.ruleId, f.severity, f.line, f.xpath])]);
  assert.equal(norm(native), norm(wasm));
  assert.ok(native.get(all.length - 2)?.some((f) => f.message.includes('dataSetVersion')));
  assert.ok(
    native.get(all.length - 1)?.every((f) => f.severity === 'error'),
    'not well-formed: an error whatever the dataset',
  );
});

test('TianGong processes fail with the libxml2 errors VALIDATION.md describes, as warnings (not EPDs)', async () => {
  const r = await validateXsd(tiangong);
  const by = Object.fromEntries(tiangong.map((t, i) => [t.header.uuid, r.get(i) ?? []]));
  for (const list of Object.values(by)) {
    assert.ok(list.length > 0);
    for (const f of list) {
      assert.is(f.ruleId, 'xsd-invalid');
      assert.is(f.severity, 'warning');
      assert.match(f.message, 'ilcd-1.1-libxml2/ILCD_ProcessDataSet.xsd');
    }
  }
  // generalComment placed before classificationInformation
  assert.is(by['000333f8-f13a-4805-9515-2f1e870e8cfb'][0].line, 12);
  assert.match(by['000333f8-f13a-4805-9515-2f1e870e8cfb'][0].message, "Element 'classificationInformation': This element is not expected");
  assert.is(
    by['000333f8-f13a-4805-9515-2f1e870e8cfb'][0].xpath,
    '/processDataSet/processInformation/dataSetInformation/classificationInformation',
  );
  // element order in quantitativeReference
  assert.is(by['bb998fb2-6566-4ba5-88e0-0283c39b0ce4'][0].line, 23);
  assert.match(by['bb998fb2-6566-4ba5-88e0-0283c39b0ce4'][0].message, "Element 'referenceToReferenceFlow': This element is not expected");
  assert.is(
    by['bb998fb2-6566-4ba5-88e0-0283c39b0ce4'][0].xpath,
    '/processDataSet/processInformation/quantitativeReference/referenceToReferenceFlow',
  );
  assert.ok(
    by['c3c2bc89-cf07-4d8d-a73d-04b9f2d51b5b'].some(
      (f) => f.xpath === '/processDataSet/administrativeInformation/dataGenerator/common:other[2]',
    ),
  );
  // common:other carries text and xml:lang
  const c3 = by['c3c2bc89-cf07-4d8d-a73d-04b9f2d51b5b'].map((f) => f.message).join('\n');
  assert.match(c3, "attribute 'xml:lang'");
  assert.match(c3, 'Character content other than whitespace is not allowed');
});

test('batches of any size give the same findings (schemas compiled per batch, results mapped back per file)', async () => {
  const all = [...epds, ...tiangong];
  const big = await validateXsd(all);
  const small = await validateXsd(all, { batchSize: 2 });
  assert.equal([...small.entries()].sort(), [...big.entries()].sort());
  assert.is(big.size, 3);
});

test('every dataset of the example node is valid except the EPD International flow with an empty common:other', async () => {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.xml')) files.push(join(d, e.name));
    }
  };
  walk(EXAMPLE_DATA);
  const items = files.map(item).filter((i) => i.header);
  assert.ok(items.length > 250);
  const r = await validateXsd(items);
  const bad = [...new Set([...r.values()].flat().map((f) => f.file.slice(f.file.lastIndexOf('/') + 1)))];
  assert.equal(bad, ['47e70177-462e-4ea9-bbde-34e0ed56c59b_00.00.002.xml']);
});

test('a broken EPD is an error with the line of the offending element', async () => {
  const it = epds[0];
  // Move common:dataSetVersion before common:dateOfLastRevision's neighbour: drop it entirely.
  const text = it.text.replace(/<common:dataSetVersion>[^<]*<\/common:dataSetVersion>/, '');
  const r = await validateXsd([{ ...it, text }]);
  const [f] = r.get(0);
  assert.is(f.severity, 'error');
  assert.ok(f.line > 1);
  assert.match(f.message, 'dataSetVersion');
});

test('schemas import xml.xsd from the local copy, never by URL', () => {
  const dirs = ['v1.2-libxml2', 'ilcd-1.1-libxml2', 'wrappers'];
  for (const d of dirs) {
    for (const f of readdirSync(new URL(`${d}/`, XSD_ROOT))) {
      const s = readFileSync(new URL(`${d}/${f}`, XSD_ROOT), 'utf8');
      assert.not.match(s, /schemaLocation="https?:/, `${d}/${f}`);
    }
  }
});

const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;
test('agrees with native xmllint --schema (libxml2-utils) on EPDs and TianGong files', async () => {
  if (!hasXmllint) {
    console.log('  (skipped: xmllint not installed)');
    return;
  }
  const xsdDir = fileURLToPath(XSD_ROOT);
  for (const it of [...epds, ...tiangong]) {
    const wasm = (await validateXsd([it])).get(0) ?? [];
    const native = spawnSync('xmllint', ['--nonet', '--noout', '--schema', join(xsdDir, schemaFor(it.header)), it.file], {
      encoding: 'utf8',
    });
    const lines = native.stderr
      .split('\n')
      .filter((l) => l.includes('Schemas validity error'))
      .map((l) => Number(l.split(':')[1]));
    assert.is(native.status === 0, wasm.length === 0, it.file);
    assert.equal(
      wasm.map((f) => f.line),
      lines,
      it.file,
    );
  }
});

test.run();
