import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MESSAGES } from '../../dist/messages/catalog.js';
import { finding, findingOf, renderMessage } from '../../dist/messages/finding.js';
import { extractDataset } from '../../dist/parse/extract.js';
import { parseXml } from '../../dist/parse/xml.js';
import { RULES } from '../../dist/rules/index.js';
import { validateDocument } from '../../dist/validate/run.js';
import { RULES_DOC, renderRulesDoc, table } from '../../scripts/rules-doc.js';
import { EXAMPLE_DATA, REAL_EPDS, ROOT, success } from '../helpers/index.js';

test('docs/rules.md lists every code of the catalogue as generated (run `npm run docs:rules` after editing it)', () => {
  const doc = readFileSync(RULES_DOC, 'utf8');
  assert.fixture(renderRulesDoc(doc), doc);
  for (const code of Object.keys(MESSAGES)) assert.ok(doc.includes(`| \`${code}\` |`), code);
});

test('a stale table of codes is detected', () => {
  const doc = readFileSync(RULES_DOC, 'utf8');
  const stale = doc.replace(/^\| `eco-name-en` \|.*\n/m, '');
  assert.is.not(stale, doc);
  assert.is(renderRulesDoc(stale), doc);
  assert.ok(table('rules').includes('`eco-name-en`'));
});

test('every catalogued code is reported somewhere (no stale entries)', () => {
  const src = join(ROOT, 'dist');
  const code = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js') && !f.startsWith(join('messages', '')))
    .map((f) => readFileSync(join(src, f), 'utf8'))
    .join('\n');
  for (const c of Object.keys(MESSAGES)) assert.ok(code.includes(`'${c}'`), `${c} is never created`);
});

test('every level-4 rule is catalogued with its severity, and every catalogued rule runs', () => {
  const rules = Object.entries(MESSAGES).filter(([, e]) => e.section === 'rules');
  assert.equal(rules.map(([code]) => code).sort(), RULES.map((r) => r.id).sort());
  for (const r of RULES) assert.is(MESSAGES[r.id].severity, r.severity, r.id);
});

test('a finding carries its code and params; its message is rendered from them', () => {
  const f = finding('xml-malformed', { detail: 'unclosed tag' }, { file: 'a.xml', line: 3 });
  assert.equal(Object.keys(f), ['ruleId', 'severity', 'file', 'line', 'message', 'params']);
  assert.is(f.ruleId, 'xml-malformed');
  assert.is(f.severity, 'error');
  assert.is(f.message, 'The XML is not well-formed: unclosed tag.');
  assert.equal(f.params, { detail: 'unclosed tag' });
  assert.is(renderMessage(f), f.message);
  const params = /** @type {const} */ ({ case: 'identical', published: 'b.xml', uuid: 'u', version: '1' });
  assert.is(finding('dataset-duplicate', params, { severity: 'warning' }).severity, 'warning');
  assert.throws(() => findingOf('xml-malformed', { case: 'no-such-case' }), /No message for xml-malformed \(no-such-case\)/);
  assert.throws(() => findingOf('no-such-code', {}), /No message for no-such-code/);
});

test('rule findings from a real EPD render the same text from their params', () => {
  const file = REAL_EPDS.find((e) => e.file.startsWith('ibu')).file;
  const text = readFileSync(join(EXAMPLE_DATA, file), 'utf8')
    .replace('dataSetValidUntil>2027<', 'dataSetValidUntil>2013<')
    .replace('location="RER"', 'location="Germany"')
    .replace(/xml:lang="en"/g, 'xml:lang="de"');
  const parsed = success(parseXml(text), 'parse');
  const dataset = success(extractDataset(parsed.root), 'extract').dataset;
  const findings = validateDocument({ file, text, root: parsed.root, dataset }, { now: new Date('2026-01-01') });
  const codes = findings.map((f) => f.ruleId);
  for (const code of ['eco-valid-until', 'eco-location', 'eco-name-en']) assert.ok(codes.includes(code), code);
  for (const f of findings) {
    assert.ok(f.params, f.ruleId);
    assert.is(renderMessage(f), f.message);
    assert.not.match(f.message, /undefined/);
  }
  assert.equal(findings.find((f) => f.ruleId === 'eco-valid-until').params, { case: 'expired', year: '2013' });
});

test.run();
