import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { extractDataset } from '../../dist/parse/extract.js';
import { decodeXml } from '../../dist/parse/safety.js';
import { parseXml } from '../../dist/parse/xml.js';
import { EXAMPLE_DATA, REAL_EPDS, success } from '../helpers/index.js';

function extract(text) {
  const parsed = success(parseXml(text));
  return extractDataset(parsed.root);
}

for (const epd of REAL_EPDS) {
  test(`index fields of ${epd.uuid} match its XML`, () => {
    const decoded = decodeXml(readFileSync(join(EXAMPLE_DATA, epd.file)));
    assert.ok(decoded.ok);
    const r = extract(decoded.text);
    assert.ok(r.ok);
    const h = r.dataset;
    const p = h.process;
    assert.is(h.type, 'process');
    assert.is(h.uuid, epd.uuid);
    assert.is(h.version, epd.version);
    assert.equal(p.names, epd.names);
    assert.equal(p.classifications, epd.classifications);
    assert.is(p.location, epd.location);
    assert.is(p.referenceYear, epd.referenceYear);
    assert.is(p.validUntil, epd.validUntil);
    assert.is(p.publicationDate, epd.publicationDate);
    assert.is(p.typeOfDataSet, epd.typeOfDataSet);
    assert.is(p.subType, epd.subType);
    assert.is(p.registrationNumber, epd.registrationNumber);
    assert.is(p.owner?.uuid, epd.owner.uuid);
    assert.is(p.owner?.descriptions[0]?.value, epd.owner.name);
    assert.equal(
      p.compliance.map((c) => c.uuid),
      epd.compliance,
    );
    assert.is(p.formatVersion, epd.formatVersion);
  });
}

test('dependent dataset types are recognised from the root element and namespace', () => {
  const cases = [
    ['ibu_with_dependencies/ILCD/flows', 'flow'],
    ['ibu_with_dependencies/ILCD/contacts', 'contact'],
    ['ibu_with_dependencies/ILCD/sources', 'source'],
    ['ilcd_epd_ref/ILCD/flowproperties', 'flowproperty'],
    ['ilcd_epd_ref/ILCD/unitgroups', 'unitgroup'],
  ];
  for (const [folder, type] of cases) {
    const dir = join(EXAMPLE_DATA, folder);
    const name = readdirSorted(dir)[0];
    const r = extract(readFileSync(join(dir, name), 'utf8'));
    assert.ok(r.ok, `${folder}/${name}`);
    assert.is(r.dataset.type, type);
    assert.ok(name.startsWith(r.dataset.uuid), `${name} has UUID ${r.dataset.uuid}`);
    assert.ok(r.dataset.names.length > 0, `${name} has a name`);
  }
});

test('elements are matched by namespace URI, not by prefix', () => {
  // Same structure as a real dataset but every prefix renamed: matching must go by namespace URI.
  const xml = `<?xml version="1.0"?>
<x:processDataSet xmlns:x="http://lca.jrc.it/ILCD/Process" xmlns:c="http://lca.jrc.it/ILCD/Common" xmlns:e="http://www.iai.kit.edu/EPD/2013">
 <x:processInformation><x:dataSetInformation><c:UUID>0b1f3c9e-1a2b-4c3d-9e8f-0123456789ab</c:UUID>
  <x:name><x:baseName xml:lang="en">Concrete &amp; more &#x41;&#66;</x:baseName></x:name></x:dataSetInformation></x:processInformation>
 <x:modellingAndValidation><x:LCIMethodAndAllocation><x:typeOfDataSet>EPD</x:typeOfDataSet>
  <c:other><e:subType>specific dataset</e:subType></c:other></x:LCIMethodAndAllocation></x:modellingAndValidation>
 <x:administrativeInformation><x:publicationAndOwnership><c:dataSetVersion>01.00.000</c:dataSetVersion></x:publicationAndOwnership></x:administrativeInformation>
</x:processDataSet>`;
  const r = extract(xml);
  assert.ok(r.ok);
  assert.equal(r.dataset.names, [{ lang: 'en', value: 'Concrete & more AB' }]);
  assert.is(r.dataset.process.subType, 'specific dataset');
  // A lookalike element in the wrong namespace must not be read as the UUID.
  const wrong = xml.replace('<c:UUID>', '<x:UUID>').replace('</c:UUID>', '</x:UUID>');
  const w = extract(wrong);
  assert.not.ok(w.ok);
  assert.is(w.findings[0].ruleId, 'ilcd-uuid');
});

test('missing xml:lang means English (ILCD schema default)', () => {
  const xml = readFileSync(join(EXAMPLE_DATA, REAL_EPDS[2].file), 'utf8').replace('<baseName xml:lang="en">', '<baseName>');
  const r = extract(xml);
  assert.ok(r.ok);
  assert.equal(r.dataset.names, [{ lang: 'en', value: 'ECO-ESPANSO K100' }]);
});

test('UUID and version are validated before anything uses them', () => {
  const base = readFileSync(join(EXAMPLE_DATA, REAL_EPDS[0].file), 'utf8');
  for (const bad of ['../../etc/passwd', '2eb43850-0ab2-4068-afe5-218d69a096f8/..', '2eb43850%2f0ab2', '']) {
    const r = extract(base.replace('2eb43850-0ab2-4068-afe5-218d69a096f8</common:UUID>', `${bad}</common:UUID>`));
    assert.not.ok(r.ok, bad);
    assert.is(r.findings[0].ruleId, 'ilcd-uuid');
    assert.ok(r.findings[0].xpath.endsWith('common:UUID'));
  }
  const v = extract(base.replace('<common:dataSetVersion>00.01.000<', '<common:dataSetVersion>1.0<'));
  assert.not.ok(v.ok);
  assert.is(v.findings[0].ruleId, 'ilcd-version');
  assert.match(v.findings[0].message, '"1.0"');
});

test('an unknown root element is named with its namespace', () => {
  const r = extract('<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>');
  assert.not.ok(r.ok);
  assert.is(r.findings[0].ruleId, 'ilcd-root');
  assert.match(r.findings[0].message, '{http://www.w3.org/1999/xhtml}html');
});

function readdirSorted(dir) {
  return readdirSync(dir).sort();
}

test.run();
