import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeXml } from '../../dist/parse/safety.js';
import { parseXml } from '../../dist/parse/xml.js';
import { failure } from '../helpers/index.js';

const enc = (s) => new TextEncoder().encode(s);

test('UTF-8 BOM is tolerated and stripped for parsing', () => {
  const r = decodeXml(Uint8Array.from([0xef, 0xbb, 0xbf, ...enc('<a/>')]));
  assert.ok(r.ok);
  assert.is(r.text, '<a/>');
});

test('UTF-16 is refused with a clear message', () => {
  const le = Buffer.from('\ufeff<?xml version="1.0" encoding="UTF-16"?><a/>', 'utf16le');
  const r = decodeXml(le);
  assert.not.ok(r.ok);
  assert.is(r.finding.ruleId, 'xml-encoding');
  assert.match(r.finding.message, 'UTF-16');
});

test('invalid UTF-8 names the byte offset', () => {
  const r = decodeXml(Uint8Array.from([...enc('<a>ok'), 0xff, ...enc('</a>')]));
  assert.not.ok(r.ok);
  assert.is(r.finding.ruleId, 'xml-encoding');
  assert.match(r.finding.message, 'offset 5');
});

test('a declared non-UTF-8 encoding is refused', () => {
  const r = decodeXml(enc('<?xml version="1.0" encoding="ISO-8859-1"?><a/>'));
  assert.not.ok(r.ok);
  assert.match(r.finding.message, 'ISO-8859-1');
});

test('empty and blank files are refused', () => {
  assert.is(failure(decodeXml(new Uint8Array())).finding.ruleId, 'xml-empty');
  assert.is(failure(decodeXml(enc('  \n '))).finding.ruleId, 'xml-empty');
});

test('billion laughs: DOCTYPE with entities is refused before any parser runs', () => {
  const lol = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<lolz>&lol3;</lolz>`;
  const r = decodeXml(enc(lol));
  assert.not.ok(r.ok);
  assert.is(r.finding.ruleId, 'xml-doctype');
  assert.is(r.finding.line, 2);
  assert.match(r.finding.message, 'entities');
});

test('external entity (file:///etc/passwd) is refused, never fetched', () => {
  const xxe = '<?xml version="1.0"?><!-- c --><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>';
  const r = decodeXml(enc(xxe));
  assert.not.ok(r.ok);
  assert.is(r.finding.ruleId, 'xml-doctype');
});

test('the parser itself never expands undeclared or custom entities; the check refuses them', () => {
  const p = parseXml('<a>&x; &amp; &#13;</a>', { checked: true });
  assert.ok(p.ok);
  assert.is(p.root.text, '&x; & \r');
  const checked = parseXml('<a>&x; &amp;</a>');
  assert.not.ok(checked.ok);
  assert.match(checked.message, '"&" not starting a reference');
});

test('malformed XML reports line and column', () => {
  const p = parseXml('<a>\n  <b>\n</a>');
  assert.not.ok(p.ok);
  assert.is(p.line, 3);
  assert.ok(p.col > 0);
});

test('a DOCTYPE-like string inside content is not mistaken for a DOCTYPE', () => {
  const r = decodeXml(enc('<a><![CDATA[<!DOCTYPE x>]]></a>'));
  assert.ok(r.ok);
});

test.run();
