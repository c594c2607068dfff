import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bodyFactsOf, readIndexOnly, splitProcess } from '../../dist/parse/body.js';
import { extractDataset } from '../../dist/parse/extract.js';
import { decodeXml } from '../../dist/parse/safety.js';
import { parseXml } from '../../dist/parse/xml.js';
import { EXAMPLE_DATA, REAL_EPDS, success } from '../helpers/index.js';

function full(text) {
  const parsed = success(parseXml(text));
  const r = extractDataset(parsed.root);
  assert.ok(r.ok);
  return { header: r.dataset, body: bodyFactsOf(parsed.root) };
}

function quick(text) {
  const q = readIndexOnly(text);
  if (!q) return undefined;
  const r = extractDataset(q.root);
  assert.ok(r.ok);
  r.dataset.references = q.references(r.dataset.references);
  return { header: r.dataset, body: q.body };
}

const real = (epd) => {
  const d = decodeXml(readFileSync(join(EXAMPLE_DATA, epd.file)));
  assert.ok(d.ok);
  return d.text;
};

for (const epd of REAL_EPDS) {
  test(`index-only read of ${epd.uuid} equals the full parse (index, references with XPaths, links, LCIA modules)`, () => {
    const text = real(epd);
    const q = quick(text);
    assert.ok(q, 'a real EPD export is read index-only, not by the fallback');
    const f = full(text);
    assert.equal(q.header, f.header);
    assert.equal(q.body, f.body);
    assert.ok(
      f.header.references.some((r) => r.xpath.startsWith('/processDataSet/exchanges/exchange[')),
      'body references are part of the comparison',
    );
    assert.ok(f.body.amountModules.length > 0);
  });
}

test('head ends where the body starts; the body is most of an EPD', () => {
  const text = real(REAL_EPDS[0]);
  const s = splitProcess(text);
  assert.ok(s.head.endsWith('</processDataSet>'));
  assert.ok(parseXml(s.head).ok);
  assert.ok(s.head.length < text.length / 3, `head ${s.head.length} of ${text.length} chars`);
});

// A small process whose body has what real exports have, and what they rarely have: comments, CDATA,
// several exchanges (positions in XPaths), redeclared prefixes, a second reference flow, entities in attributes.
const doc = (
  body,
  {
    root = '<processDataSet xmlns="http://lca.jrc.it/ILCD/Process" xmlns:common="http://lca.jrc.it/ILCD/Common" xmlns:ep="http://www.iai.kit.edu/EPD/2013" version="1.1">',
  } = {},
) => `<?xml version="1.0"?>
${root}
  <processInformation>
    <dataSetInformation><common:UUID>0a1b2c3d-0000-4000-8000-000000000001</common:UUID><name><baseName xml:lang="en">Test</baseName></name></dataSetInformation>
    <quantitativeReference><referenceToReferenceFlow>2</referenceToReferenceFlow></quantitativeReference>
  </processInformation>
  <modellingAndValidation><LCIMethodAndAllocation><typeOfDataSet>EPD</typeOfDataSet></LCIMethodAndAllocation></modellingAndValidation>
  <administrativeInformation><publicationAndOwnership><common:dataSetVersion>01.00.000</common:dataSetVersion></publicationAndOwnership></administrativeInformation>
${body}
</processDataSet>
<!-- trailing comment -->
`;
const BODY = `  <exchanges>
    <!-- <exchange dataSetInternalID="9"> in a comment is not an element -->
    <exchange dataSetInternalID="1"><referenceToFlowDataSet type="flow data set" refObjectId="11111111-0000-4000-8000-000000000001" uri="../flows/a.xml?x=1&amp;y=2"/></exchange>
    <exchange dataSetInternalID='2'>
      <referenceToFlowDataSet type="flow data set" refObjectId="11111111-0000-4000-8000-000000000002" version="01.00.000"><common:shortDescription>b</common:shortDescription></referenceToFlowDataSet>
      <meanAmount>1.5</meanAmount>
      <common:other><ep:amount xmlns:ep="http://www.iai.kit.edu/EPD/2013" ep:module="A1-A3">1</ep:amount></common:other>
      <![CDATA[ <not-a-tag refObjectId="x" type="flow data set"> ]]>
    </exchange>
  </exchanges>
  <LCIAResults>
    <LCIAResult><referenceToLCIAMethodDataSet type="LCIA method data set" refObjectId="22222222-0000-4000-8000-000000000001"/><common:other><e:amount xmlns:e="http://www.iai.kit.edu/EPD/2013" e:module="C4">2</e:amount><ep:amount ep:module="X9"/></common:other></LCIAResult>
    <LCIAResult><referenceToLCIAMethodDataSet type="LCIA method data set" refObjectId="22222222-0000-4000-8000-000000000002"/><common:other><ep:amount/></common:other></LCIAResult>
  </LCIAResults>`;

test('synthetic body: comments, CDATA, positions, prefixes and entities give what the full parse gives', () => {
  const text = doc(BODY);
  const q = quick(text);
  assert.ok(q);
  const f = full(text);
  assert.equal(q.header, f.header);
  assert.equal(q.body, f.body);
  assert.equal(q.body, { lciaResults: 2, amountModules: ['C4', 'X9', undefined] });
  assert.equal(
    q.header.references.map((r) => r.xpath),
    [
      '/processDataSet/exchanges/exchange[1]/referenceToFlowDataSet',
      '/processDataSet/exchanges/exchange[2]/referenceToFlowDataSet',
      '/processDataSet/LCIAResults/LCIAResult[1]/referenceToLCIAMethodDataSet',
      '/processDataSet/LCIAResults/LCIAResult[2]/referenceToLCIAMethodDataSet',
    ],
  );
  assert.is(q.header.references[0].uri, '../flows/a.xml?x=1&y=2');
  assert.is(q.header.links.referenceFlow.ref.uuid, '11111111-0000-4000-8000-000000000002');
  assert.is(q.header.links.referenceFlow.meanAmount, '1.5');
});

const fallbacks = {
  'unclosed element in the body': BODY.replace('</exchange>\n  </exchanges>', '\n  </exchanges>'),
  'mismatched end tag': BODY.replace('</LCIAResults>', '</LCIAResult>'),
  'bare ampersand': BODY.replace('<meanAmount>1.5', '<meanAmount>1.5 & more'),
  'bare < in text': BODY.replace('<meanAmount>1.5', '<meanAmount>1 < 5'),
  'undeclared prefix': BODY.replace('<common:other><ep:amount/>', '<common:other><zz:amount/>'),
  'prefix bound to two namespaces': BODY.replace('xmlns:e="http://www.iai.kit.edu/EPD/2013"', 'xmlns:common="urn:other"'),
  'reference to a source (descriptions needed)': BODY.replace(
    'type="flow data set" refObjectId="11111111-0000-4000-8000-000000000001"',
    'type="source data set" refObjectId="11111111-0000-4000-8000-000000000001"',
  ),
  'duplicate attribute': BODY.replace('dataSetInternalID="1"', 'dataSetInternalID="1" dataSetInternalID="3"'),
};
for (const [name, body] of Object.entries(fallbacks)) {
  test(`falls back to the full parse: ${name}`, () => {
    assert.is(readIndexOnly(doc(body)), undefined);
  });
}

test('falls back: content after the root, no body, not a process, prefixed root with text after', () => {
  assert.is(readIndexOnly(doc(BODY).replace('<!-- trailing comment -->', '<extra/>')), undefined);
  assert.is(readIndexOnly(doc('')), undefined);
  assert.is(readIndexOnly('<flowDataSet xmlns="http://lca.jrc.it/ILCD/Flow"><exchanges/></flowDataSet>'), undefined);
  assert.is(readIndexOnly('<processDataSet xmlns="urn:not-ilcd"><exchanges/></processDataSet>'), undefined);
});

test('a head that does not parse (body start inside a comment) falls back', () => {
  const text = doc(BODY).replace('<modellingAndValidation>', '<!-- <exchanges> --><modellingAndValidation>');
  assert.is(readIndexOnly(text), undefined);
  assert.ok(parseXml(text).ok, 'the document itself is fine: the full parse reads it');
});

test.run();
