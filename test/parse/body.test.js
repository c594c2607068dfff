import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bodyFactsOf, readIndexOnly, splitProcess } from '../../dist/parse/body.js';
import { extractDataset } from '../../dist/parse/extract.js';
import { decodeXml, viewXml } from '../../dist/parse/safety.js';
import { parseXml } from '../../dist/parse/xml.js';
import { EXAMPLE_DATA, EXAMPLES, REAL_EPDS, success, walkFiles } from '../helpers/index.js';

function full(text) {
  const parsed = success(parseXml(text));
  const r = extractDataset(parsed.root);
  assert.ok(r.ok);
  return { header: r.dataset, body: bodyFactsOf(parsed.root) };
}

/** The index-only read of the build: on the bytes (a latin1 view), decoding only what it reads. */
function quick(text) {
  return quickOf(text, false) ?? undefined;
}

/** Index-only read of the text, or (bytes) of a latin1 view of its UTF-8 bytes; both must equal the full parse. */
function quickOf(text, bytes) {
  const src = bytes ? viewXml(Buffer.from(text)) : text;
  assert.ok(src, 'the view reads the document');
  const q = readIndexOnly(src);
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

// Crafted variants of the synthetic body: each is read index-only on the text and on the bytes, and both equal the
// full parse of the decoded text (index, references with XPaths, links, LCIA facts).
const VARIANTS = {
  'non-ASCII values and a character reference to one': BODY.replace('uri="../flows/a.xml?x=1&amp;y=2"', 'uri="../flows/é€😀.xml?&#233;"'),
  'a BOM': BODY,
  'CRLF line ends': BODY.replace(/\n/g, '\r\n'),
  'attributes with > inside': BODY.replace('dataSetInternalID="1"', 'dataSetInternalID="1" note="a > b"'),
  'PIs and comments between elements': BODY.replace('<meanAmount>', '<?pi x > y?><!-- c --><meanAmount>'),
  'entities in text and attributes': BODY.replace('<meanAmount>1.5', '<meanAmount>&#x31;.5&#32;').replace(
    'type="flow data set"',
    'type="flow&#32;data set"',
  ),
  'white space inside tags': BODY.replace('<exchange dataSetInternalID="1">', '<exchange\n  dataSetInternalID = "1"\t>').replace(
    '</exchanges>',
    '</exchanges\n>',
  ),
  // epd:amount tags are read once per distinct tag and scope: repeats, with and without their own declaration.
  'repeated epd:amount tags in several scopes': BODY.replace(
    '<ep:amount ep:module="X9"/>',
    '<ep:amount ep:module="X9"/><ep:amount ep:module="X9"/><e:amount xmlns:e="http://www.iai.kit.edu/EPD/2013" e:module="C4">3</e:amount>',
  ).replace('<common:other><ep:amount/>', '<common:other xmlns:e="http://www.iai.kit.edu/EPD/2013"><e:amount e:module="C4"/><ep:amount/>'),
  'a default namespace redeclared in the body': BODY.replace(
    '<meanAmount>1.5</meanAmount>',
    '<x:meanAmount xmlns:x="http://lca.jrc.it/ILCD/Process">1.5</x:meanAmount>',
  ),
};

for (const [name, body] of Object.entries(VARIANTS)) {
  test(`index-only read on text and bytes equals the full parse: ${name}`, () => {
    const text = (name === 'a BOM' ? '\ufeff' : '') + doc(body);
    const dec = decodeXml(Buffer.from(text));
    assert.ok(dec.ok);
    const f = full(dec.text);
    for (const bytes of [false, true]) {
      const q = quickOf(bytes ? text : dec.text, bytes);
      assert.ok(q, `read index-only (${bytes ? 'bytes' : 'text'})`);
      assert.equal(q.header, f.header, name);
      assert.equal(q.body, f.body, name);
    }
  });
}

test('a prefixed root and non-ASCII element names: read on the bytes as the full parse, or left to it', () => {
  const prefixed = doc(BODY.replace(/<(\/?)(exchanges|exchange|meanAmount|LCIAResults|LCIAResult)\b/g, '<$1p:$2'), {
    root: '<processDataSet xmlns="http://lca.jrc.it/ILCD/Process" xmlns:p="http://lca.jrc.it/ILCD/Process" xmlns:common="http://lca.jrc.it/ILCD/Common" xmlns:ep="http://www.iai.kit.edu/EPD/2013">',
  });
  const named = doc(BODY.replace('<meanAmount>1.5</meanAmount>', '<meanAmount>1.5</meanAmount><größe/>'));
  for (const text of [prefixed, named]) {
    const f = full(text);
    for (const bytes of [false, true]) {
      const q = quickOf(text, bytes);
      if (q) assert.equal([q.header, q.body], [f.header, f.body]);
    }
  }
  assert.ok(quickOf(prefixed, true), 'prefixed names are read');
  assert.is(quickOf(named, true), undefined, 'a non-ASCII name in the body: the full parse reads the document');
});

test('every process dataset of the examples: index-only read of the bytes equals the full parse', () => {
  let n = 0;
  for (const p of walkFiles(EXAMPLES).filter((f) => f.endsWith('.xml'))) {
    const bytes = readFileSync(p);
    const dec = decodeXml(bytes);
    if (!dec.ok || !/<(\w+:)?processDataSet[\s>]/.test(dec.text)) continue;
    const q = quickOf(dec.text, true);
    assert.ok(q, p);
    const f = full(dec.text);
    assert.equal([q.header, q.body], [f.header, f.body], p);
    n++;
  }
  assert.ok(n >= 5, `${n} processes`);
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
