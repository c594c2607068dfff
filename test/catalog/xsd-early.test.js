// Level 3 by xmllint over the inputs' own paths from the start of the read (src/catalog/pool.ts,
// src/validate/xsd-stream.ts) must give every file exactly the outcome the per-chunk XSD gives: same findings, same order.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readAll } from '../../dist/catalog/pool.js';
import { DEFAULT_SHAPE_LIMITS } from '../../dist/parse/wellformed.js';
import { discoverInputs } from '../../dist/read/inputs.js';
import { DEFAULT_ZIP_LIMITS, expandZips } from '../../dist/read/zip.js';
import { cleanup, EXAMPLE_DATA, FIXTURES, REAL_EPDS, tmp } from '../helpers/index.js';
import { zipExports } from '../helpers/zip.js';

test.after.each(cleanup);

const hasXmllint = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;
const now = new Date('2026-01-02T03:04:05Z');
const GOOD = REAL_EPDS[0];
const goodXml = readFileSync(join(EXAMPLE_DATA, GOOD.file), 'utf8');
const REF_FLOW = '<referenceToReferenceFlow>0<';
const variant = (n, edit) => edit(goodXml.replaceAll(GOOD.uuid, `11111111-2222-4333-8444-${String(n).padStart(12, '0')}`));

test('early XSD over real paths: the same outcomes as XSD per chunk (valid, invalid, not well-formed, timed out, ZIP, odd paths)', async () => {
  if (!hasXmllint) {
    console.log('  (skipped: the early run needs the system xmllint)');
    return;
  }
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  cpSync(join(FIXTURES, 'tiangong'), join(dir, 'tiangong'), { recursive: true });
  mkdirSync(join(dir, 'crafted'));
  const attrs = Array.from({ length: 100_000 }, (_, i) => `a${i}="1"`).join(' ');
  const crafted = {
    // An XSD error (XPath from the line xmllint names); with an ECO rule error too: findings of both levels.
    'element.xml': variant(2, (x) => x.replace('</processInformation>', '<unexpected/></processInformation>')),
    'invalid.xml': variant(1, (x) =>
      x.replace('</processInformation>', '<unexpected/></processInformation>').replace(REF_FLOW, '<referenceToReferenceFlow>999<'),
    ),
    // Not well-formed: rejected at level 1, no XSD findings on either path.
    'malformed.xml': variant(3, (x) => x.replace('</processInformation>', '')),
    'doctype.xml': variant(4, (x) => x.replace('?>', '?>\n<!DOCTYPE processDataSet>')),
    // Paths xmllint would escape, and a process that is not an EPD (another schema): validated in their chunk.
    'with space.xml': variant(5, (x) => x.replace('</processInformation>', '<unexpected/></processInformation>')),
    'ilcd-process.xml': variant(6, (x) => x.replace(/<typeOfDataSet>EPD</, '<typeOfDataSet>LCI result<')),
    // 100,000 attributes keep libxml2 busy for tens of seconds: xsd-timeout after 4 s + 1 s/MB.
    'slow.xml': variant(7, (x) => x.replace('<common:class level="0" classId="3">', `<common:class level="0" classId="3" ${attrs}>`)),
  };
  for (const [name, text] of Object.entries(crafted)) writeFileSync(join(dir, 'crafted', name), text);
  mkdirSync(join(dir, 'zips'));
  mkdirSync(join(dir, 'export', 'one', 'ILCD', 'processes'), { recursive: true });
  writeFileSync(join(dir, 'export', 'one', 'ILCD', 'processes', 'bad.xml'), crafted['element.xml']);
  zipExports(join(dir, 'export'), join(dir, 'zips'));
  const found = await discoverInputs([join(dir, 'data'), join(dir, 'tiangong'), join(dir, 'crafted'), join(dir, 'zips')], dir);
  const files = (await expandZips(found.files, DEFAULT_ZIP_LIMITS)).files.filter((f) => f.kind === 'xml');
  const shape = { ...DEFAULT_SHAPE_LIMITS, maxAttributes: 1_000_000, maxTokenKB: 4096 };
  const collect = async (o) => {
    const out = [];
    await readAll(files, { maxFileSize: 5e7, now, shape, xsdBatchSize: 7, xsdTimeoutSeconds: 4, ...o }, (i, r) => (out[i] = r));
    return out;
  };
  const chunked = await collect({ threads: 1, earlyXsd: false });
  // Two workers, two xmllint processes, batches of 7: reports and outcomes meet in every order.
  const early = await collect({ threads: 2, xsdProcesses: 2 });
  assert.is(early.length, files.length);
  assert.equal(early, chunked);
  const of = (name) => early[files.findIndex((f) => f.path.endsWith(name))].findings.map((f) => f.ruleId);
  assert.ok(of('crafted/invalid.xml').includes('xsd-invalid'));
  assert.equal([...new Set(of('crafted/invalid.xml'))], ['eco-reference-flow', 'xsd-invalid'], 'rejected by level 4, still validated');
  assert.ok(
    early[files.findIndex((f) => f.path.endsWith('element.xml'))].findings.some((f) => f.ruleId === 'xsd-invalid' && f.xpath),
    'an XPath from the line xmllint names',
  );
  assert.ok(of('with space.xml').includes('xsd-invalid'));
  assert.equal(of('slow.xml'), ['xsd-timeout']);
  assert.not.ok(of('malformed.xml').includes('xsd-invalid'));
  const entry = files.findIndex((f) => f.entry?.endsWith('bad.xml'));
  assert.ok(entry >= 0 && early[entry].findings.some((f) => f.ruleId === 'xsd-invalid'), 'a ZIP entry, validated in its chunk');
});

test.run();
