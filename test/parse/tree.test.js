// The hand-built tree of checked documents (src/parse/tree.ts) must equal fast-xml-parser's, converted by xml.ts,
// on every XML file the project carries and on crafted documents with each case where the two could part; what the
// builder leaves to fast-xml-parser must really go there.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeXml, viewXml } from '../../dist/parse/safety.js';
import { buildTree } from '../../dist/parse/tree.js';
import { checkWellFormed } from '../../dist/parse/wellformed.js';
import { parseChecked, parseFxp, parseXml } from '../../dist/parse/xml.js';
import { EXAMPLES, FIXTURES, success, walkFiles } from '../helpers/index.js';

/** JSON, not deep equality: the order of attributes and children counts as well. */
const json = (root) => JSON.stringify(root);

/** The builder on the text and on a latin1 view of its bytes, each equal to fast-xml-parser's tree. */
function same(text, what = text) {
  assert.ok(checkWellFormed(text).ok, `well-formed: ${what}`);
  const want = json(success(parseFxp(text)).root);
  const tree = buildTree(text);
  assert.ok(tree, `built, not left to fast-xml-parser: ${what}`);
  assert.is(json(tree), want, `text: ${what}`);
  assert.is(json(success(parseXml(text, { checked: true })).root), want, `parseXml: ${what}`);
  const view = viewXml(Buffer.from(text));
  if (view) assert.is(json(success(parseChecked(view)).root), want, `bytes: ${what}`);
  return tree;
}

/** A document the builder leaves to fast-xml-parser: parseXml still gives fast-xml-parser's answer. */
function left(text, what) {
  assert.ok(checkWellFormed(text).ok, `well-formed: ${what}`);
  assert.is(buildTree(text), undefined, `left to fast-xml-parser: ${what}`);
  assert.is(json(parseXml(text, { checked: true })), json(parseFxp(text)), what);
  const view = viewXml(Buffer.from(text));
  assert.is(buildTree(view.text, true), undefined, `bytes left to fast-xml-parser: ${what}`);
  assert.is(json(parseChecked(view)), json(parseFxp(text)), `bytes: ${what}`);
}

test('every XML file of the examples and fixtures: the same tree as fast-xml-parser, on the text and on the bytes', () => {
  const files = [...walkFiles(EXAMPLES), ...walkFiles(FIXTURES)].filter((f) => f.endsWith('.xml'));
  let compared = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    const d = decodeXml(bytes);
    if (!d.ok || !checkWellFormed(d.text).ok) continue;
    const want = json(success(parseFxp(d.text)).root);
    const tree = buildTree(d.text);
    assert.ok(tree, `built: ${file}`);
    assert.is(json(tree), want, file);
    const view = viewXml(bytes);
    if (view) assert.is(json(buildTree(view.text, true)), want, `bytes: ${file}`);
    compared++;
  }
  assert.ok(compared > 250, `${compared} documents compared`);
});

const NS = 'xmlns="urn:d" xmlns:p="urn:p"';

test('namespaces: default and prefixed, redeclared and restored, attributes, xml:lang, declarations dropped', () => {
  const t = same(
    `<r ${NS} a="1" p:b="2" xml:lang="de"><p:c xmlns:p="urn:q" p:x="3"><d/></p:c><p:c p:x="4"/>` +
      `<e xmlns=""><f/></e><g xmlns:z="urn:z"><z:h z:y=" 5 "/></g><p:i xmlns:p="urn:p"/></r>`,
  );
  assert.equal(t.attrs, { a: '1', '{urn:p}b': '2', '{http://www.w3.org/XML/1998/namespace}lang': 'de' });
  assert.is(t.children[0].ns, 'urn:q');
  assert.equal(t.children[0].attrs, { '{urn:q}x': '3' });
  assert.is(t.children[1].ns, 'urn:p');
  assert.is(t.children[2].children[0].ns, '');
  const amounts = same(
    '<r xmlns:e="urn:1"><a xmlns:e="urn:2" e:m="1"><e:x/></a><a xmlns:e="urn:2" e:m="2"/><a xmlns:e="urn:3" e:m="3">' +
      '<e:x xmlns:e="urn:2"/></a><a xmlns:e="urn:2" xmlns:f="urn:f" f:n="4"/><e:y e:m="5"/></r>',
    'siblings repeating a declaration, with another URI, with two',
  ).children;
  assert.equal(
    amounts.map((a) => [a.ns, Object.keys(a.attrs)[0], a.children[0]?.ns]),
    [
      ['', '{urn:2}m', 'urn:2'],
      ['', '{urn:2}m', undefined],
      ['', '{urn:3}m', 'urn:2'],
      ['', '{urn:f}n', undefined],
      ['urn:1', '{urn:1}m', undefined],
    ],
  );
  same(`<p:r xmlns:p=" urn:p "><p:a/></p:r>`, 'a declared URI with spaces (trimmed like every value)');
  same(`<r xmlns="urn:&amp;d"><a/></r>`, 'an entity in a declared URI');
});

test('text: runs trimmed and joined; comments, CDATA, PIs and child elements between them', () => {
  assert.is(same('<r> a <!-- c --> b </r>').text, 'a  b', 'a comment joins the text around it');
  assert.is(same('<r> a <b/> c <d>e</d> f </r>').text, 'acf', 'child elements end runs');
  assert.is(same('<r> a <?pi x?> b </r>').text, 'ab', 'a PI ends a run');
  assert.is(same('<r> a <![CDATA[ b &amp; <c> ]]> d </r>').text, 'a b & <c> d', 'CDATA untrimmed, entities decoded');
  same('<r><![CDATA[]]>x<![CDATA[ ]]></r>', 'empty and blank CDATA');
  same('<r>\n  <!-- only a comment -->\n  <a> <!-- x --> </a>\n</r>', 'white-space runs around comments');
  same('<r> <!-- a -->x<!-- b --> <!-- c --> y</r>', 'white space between comments inside a run');
  same('<r>\u00a0 a\u00a0</r>', 'Unicode white space at the ends (JavaScript trim)');
  same('<r>Holzböden ☺ 😀 <a>é</a></r>', 'non-ASCII text');
  same('<r>&lt;&gt;&amp;&quot;&apos; &#233;&#x263A;&#x1F600; &#32;x&#32;</r>', 'entities and character references');
  same('<r> x > y ]] </r>', '">" in text');
});

test('line ends: CRLF and CR normalised in text and values, also across a comment', () => {
  assert.is(same('<r a="1\r\n2\r3">x\r\ny\rz</r>').text, 'x\ny\nz');
  assert.is(same('<r>a\r<!-- c -->\nb</r>').text, 'a\n\nb', 'a CR before a comment and a LF after it stay two');
  same('<r><![CDATA[a\r\nb]]></r>', 'CRLF in CDATA');
  same('<?xml version="1.0"?>\r\n<r\r\n  a="1"\r\n>\r\n<b/>\r\n</r>\r\n', 'CRLF everywhere');
});

test('tags: quoting, ">" and quotes in values, white space, empty elements', () => {
  const t = same(`<r a='say "hi"' b="it's" c="x > y" d = "1"\n\te\t=\t'2' f="  spaced  " g="multi\nline\tvalue"/>`);
  assert.equal(t.attrs, { a: 'say "hi"', b: "it's", c: 'x > y', d: '1', e: '2', f: 'spaced', g: 'multi\nline\tvalue' });
  same('<r><a/><b /><c x="1"/><d x="1" /><e></e><f>\n</f><g\n/></r>', 'empty elements');
  same('<r a="&lt;&amp;&#233;" b="&#x20;x"/>', 'entities in values, decoded after trimming');
  same('<r __proto__="x" constructor="y" toString="z"/>', 'attributes named like JavaScript properties');
  same('<r><a.b-c_d/><_x/><A1/></r>', 'names with . - _ and digits');
  same('<r>é<ä ö="ü"/></r>', 'non-ASCII names');
});

test('prolog and epilogue: declaration, comments, PIs, white space; a BOM on the bytes', () => {
  same('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<!-- c -->\n<?pi a="b"?>\n<r/>\n<!-- d --><?e?>\n');
  same("<?xml version='1.0' encoding='utf-8'?><r>x</r>");
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<?xml version="1.0"?><r a="é">ü</r>')]);
  const view = viewXml(bom);
  assert.is(json(buildTree(view.text, true)), json(success(parseFxp(success(decodeXml(bom)).text)).root));
});

test('depth: built to fast-xml-parser limit, left to it beyond (where it fails)', () => {
  const nest = (n) => '<a>'.repeat(n) + '<b/>' + '</a>'.repeat(n);
  same(nest(101), '101 levels');
  left(nest(102), '102 levels');
  assert.is(parseXml(nest(102), { checked: true }).ok, false);
});

test('what fast-xml-parser reads its own way is left to it', () => {
  left('<r><toString/></r>', 'an element it renames');
  assert.is(success(parseXml('<r><toString/></r>', { checked: true })).root.children[0].name, '__toString');
  left('<r><constructor/></r>', 'an element it refuses');
  left(`<r><?pi it's?>x</r>`, 'a PI with an unpaired quote');
  left('<r><?pi a="?>"?>x</r>', 'a PI with "?>" in quotes');
  left('<r><a\ufeffb/></r>', 'a name with U+FEFF (an XML NameChar, JavaScript white space)');
  same('<r><p:toString xmlns:p="urn:p"/><?pi a="b"?></r>', 'prefixed names and PIs with paired quotes are built');
});
test.run();
