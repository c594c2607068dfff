import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { extractDataset } from '../../dist/parse/extract.js';
import { decodeXml } from '../../dist/parse/safety.js';
import { parseXml } from '../../dist/parse/xml.js';
import { RULES } from '../../dist/rules/index.js';
import { validateDocument } from '../../dist/validate/run.js';
import { EXAMPLE_DATA, REAL_EPDS, success } from '../helpers/index.js';

const IBU = readFileSync(join(EXAMPLE_DATA, REAL_EPDS.find((e) => e.file.startsWith('ibu')).file), 'utf8');
const NOW = new Date('2026-06-01T00:00:00Z');

/** Level-2 + level-4 findings of one document text, ECO rules only. */
function eco(text, now = NOW) {
  const d = success(decodeXml(new TextEncoder().encode(text)));
  const p = success(parseXml(d.text));
  const e = extractDataset(p.root);
  assert.ok(e.ok, 'fixture must stay a dataset');
  return validateDocument({ file: 'x.xml', text: d.text, root: p.root, dataset: e.dataset }, { now }).filter((f) =>
    f.ruleId.startsWith('eco-'),
  );
}
const only = (fs, id) => fs.filter((f) => f.ruleId === id);
const lineOf = (text, needle) => text.slice(0, text.indexOf(needle)).split('\n').length;

test('registry: one module per rule, unique kebab-case ids, level 4, documented in docs/rules.md', () => {
  const doc = readFileSync(new URL('../../docs/rules.md', import.meta.url), 'utf8');
  const ids = RULES.map((r) => r.id);
  assert.is(new Set(ids).size, ids.length);
  for (const r of RULES) {
    assert.match(r.id, /^eco-[a-z0-9-]+$/);
    assert.is(r.level, 4);
    assert.ok(['error', 'warning'].includes(r.severity));
    assert.ok(r.description && r.source);
    assert.match(doc, `\`${r.id}\``);
  }
});

test('the IBU EPD passes every ECO rule at a date before it expires', () => {
  assert.equal(eco(IBU, new Date('2024-01-01T00:00:00Z')), []);
});

test('eco-uuid: upper-case UUID is a warning with line', () => {
  const t = IBU.replace('<common:UUID>2eb43850-0ab2-4068-afe5-218d69a096f8', '<common:UUID>2EB43850-0AB2-4068-AFE5-218D69A096F8');
  const [f] = only(eco(t), 'eco-uuid');
  assert.is(f.severity, 'warning');
  assert.is(f.line, lineOf(t, '<common:UUID>'));
});

test('eco-version: NN.NN without the third part', () => {
  const t = IBU.replace(/<common:dataSetVersion>[^<]*</, '<common:dataSetVersion>00.01<');
  const [f] = only(eco(t), 'eco-version');
  assert.match(f.message, '00.01.000');
});

test('eco-publication-date: missing is a warning, malformed is an error', () => {
  const missing = IBU.replace(/<epd2:publicationDateOfEPD[^>]*>[^<]*<\/epd2:publicationDateOfEPD>/, '');
  assert.is(only(eco(missing), 'eco-publication-date')[0].severity, 'warning');
  const bad = IBU.replace(/(<epd2:publicationDateOfEPD[^>]*>)[^<]*</, '$110.10.2022<');
  const [f] = only(eco(bad), 'eco-publication-date');
  assert.is(f.severity, 'error');
  assert.is(f.line, lineOf(bad, '<epd2:publicationDateOfEPD'));
});

test('eco-valid-until: expired is a warning, not a year is an error', () => {
  const validUntil = /<common:dataSetValidUntil>([^<]*)</.exec(IBU)[1];
  const expired = only(eco(IBU, new Date(`${Number(validUntil) + 1}-01-01T00:00:00Z`)), 'eco-valid-until');
  assert.is(expired[0].severity, 'warning');
  assert.match(expired[0].message, `expired in ${validUntil}`);
  const bad = IBU.replace(/<common:dataSetValidUntil>[^<]*</, '<common:dataSetValidUntil>2030-12-31<');
  assert.is(only(eco(bad), 'eco-valid-until')[0].severity, 'error');
});

test('eco-location: missing and non-code values', () => {
  const free = IBU.replace(/(<locationOfOperationSupplyOrProduction[^>]*location=")[^"]*"/, '$1Germany"');
  assert.match(only(eco(free), 'eco-location')[0].message, '"Germany"');
  const none = IBU.replace(
    /<locationOfOperationSupplyOrProduction[^>]*\/>|<locationOfOperationSupplyOrProduction[\s\S]*?<\/locationOfOperationSupplyOrProduction>/,
    '',
  );
  assert.match(only(eco(none), 'eco-location')[0].message, 'No location');
});

test('eco-subtype: unknown value is an error', () => {
  const t = IBU.replace(/(<epd:subType[^>]*>)[^<]*</, '$1specific<');
  const [f] = only(eco(t), 'eco-subtype');
  assert.is(f.severity, 'error');
  assert.is(f.line, lineOf(t, '<epd:subType'));
});

test('eco-registration-number: required for specific EPDs, not for generic ones', () => {
  const t = IBU.replace(/<common:registrationNumber>[^<]*<\/common:registrationNumber>/, '');
  assert.is(only(eco(t), 'eco-registration-number').length, 1);
  const generic = t.replace(/(<epd:subType[^>]*>)[^<]*</, '$1generic dataset<');
  assert.is(only(eco(generic), 'eco-registration-number').length, 0);
});

test('eco-compliance: no EN 15804 declaration', () => {
  const t = IBU.replace(
    /c0016b33-8cf7-415c-ac6e-deba0d21440d|b00f9ec0-7874-11e3-981f-0800200c9a66|d4aa3ec7-b1d7-4a4a-a6cb-37af88dcc902/g,
    '11111111-1111-4111-8111-111111111111',
  );
  const [f] = only(eco(t), 'eco-compliance');
  assert.is(f.severity, 'warning');
  assert.match(f.message, 'c0016b33-8cf7-415c-ac6e-deba0d21440d');
});

test('eco-reference-flow: dangling reference is an error at the reference line', () => {
  const t = IBU.replace(/<referenceToReferenceFlow>[^<]*</, '<referenceToReferenceFlow>999<');
  const [f] = only(eco(t), 'eco-reference-flow');
  assert.is(f.severity, 'error');
  assert.match(f.message, 'exchange 999');
  assert.is(f.line, lineOf(t, '<referenceToReferenceFlow>'));
});

test('eco-classification: none present', () => {
  const t = IBU.replace(/<classificationInformation>[\s\S]*?<\/classificationInformation>/, '');
  assert.is(only(eco(t), 'eco-classification').length, 1);
});

test('eco-lcia-modules: invalid module codes and missing amounts', () => {
  const t = IBU.replace(/epd:module="A1-A3"/g, 'epd:module="A1-3"');
  assert.match(only(eco(t), 'eco-lcia-modules')[0].message, 'A1-3');
  const none = IBU.replace(/<epd:amount[^>]*>[^<]*<\/epd:amount>|<epd:amount[^>]*\/>/g, '');
  assert.match(only(eco(none), 'eco-lcia-modules')[0].message, 'no per-module values');
});

test('eco-name-en: German-only name', () => {
  const t = IBU.replace(/<baseName xml:lang="en">[^<]*<\/baseName>/, '');
  const [f] = only(eco(t), 'eco-name-en');
  assert.match(f.message, 'found: de');
});

test('rules are skipped for non-EPD processes and can be disabled', () => {
  const d = success(decodeXml(new TextEncoder().encode(IBU)));
  const p = success(parseXml(d.text));
  const e = success(extractDataset(p.root));
  const t = IBU.replace(/<common:registrationNumber>[^<]*<\/common:registrationNumber>/, '');
  const p2 = success(parseXml(t));
  const e2 = success(extractDataset(p2.root));
  const off = validateDocument({ file: 'x', text: t, root: p2.root, dataset: e2.dataset }, { rules: false, now: NOW });
  assert.equal(
    off.filter((f) => f.ruleId.startsWith('eco-')),
    [],
  );
  const dis = validateDocument(
    { file: 'x', text: t, root: p2.root, dataset: e2.dataset },
    { disabledRules: ['eco-registration-number'], now: NOW },
  );
  assert.equal(only(dis, 'eco-registration-number'), []);
  e.dataset.process.typeOfDataSet = 'LCI result';
  assert.equal(
    validateDocument({ file: 'x', text: d.text, root: p.root, dataset: e.dataset }, { now: new Date('2100-01-01') }).filter((f) =>
      f.ruleId.startsWith('eco-'),
    ),
    [],
  );
});

test.run();
