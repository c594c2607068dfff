// Rule findings are located on the byte view (no whole-document decode): same line and column as on the decoded text.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globbySync } from 'globby';
import { locateElement, locateIn, positionAt } from '../../dist/parse/locate.js';
import { decodeXml, viewXml } from '../../dist/parse/safety.js';
import { ROOT } from '../helpers/index.js';

const enc = (s) => Buffer.from(s, 'utf8');

/** Every (name, nth) asked of both: same answer on the view and on the decoded text. */
function same(bytes, names) {
  const view = viewXml(bytes);
  assert.ok(view, 'the document has a byte view');
  const decoded = decodeXml(bytes);
  assert.ok(decoded.ok);
  for (const name of names) {
    for (let nth = 0; nth < 4; nth++) {
      assert.equal(locateIn(view, name, nth), locateElement(decoded.text, name, nth), `${name}[${nth}]`);
      assert.equal(locateIn(decoded.text, name, nth), locateElement(decoded.text, name, nth));
    }
  }
  return view;
}

test('non-ASCII text before the element on its line: the column counts characters, not bytes', () => {
  const doc = '<?xml version="1.0"?>\n<r xmlns:c="urn:c"><n>Größe ✓ 𝄞</n><c:name>x</c:name><name/>\n  <name a="é"/></r>';
  const view = same(enc(doc), ['name', 'n', 'r', 'missing']);
  const at = locateIn(view, 'name');
  assert.equal(at, { line: 2, col: doc.split('\n')[1].indexOf('<c:name') + 1 });
  // The byte offset would be further right: 'ö', '✓' and '𝄞' take 2, 3 and 4 bytes (𝄞 is 2 UTF-16 units).
  assert.ok(view.text.split('\n')[1].indexOf('<c:name') + 1 > at.col);
});

test('a BOM, CRLF line ends and repeated elements', () => {
  const doc = '\ufeff<r>\r\n<a>ä</a>\r\n<x>ü</x><a/>\r\n<b>ß</b>ø<a>\u00a0</a></r>';
  same(enc(doc), ['a', 'b', 'x', 'r']);
});

test('only XML white space ends a name: a non-ASCII space after one is not a tag, on the text or the view', () => {
  // U+00A0 and U+3000 after a name in a comment: JavaScript's \s would have taken them for white space.
  const doc = '<r><!-- <name\u00a0 <name\u3000 --><name>é</name></r>';
  const view = same(enc(doc), ['name']);
  assert.equal(locateIn(view, 'name'), { line: 1, col: doc.indexOf('<name>') + 1 });
});

test('the real EPDs of the examples: every element of the rules located the same on the view', () => {
  const files = globbySync('examples/ilcdlib/*/ILCD/processes/*.xml', { cwd: ROOT, absolute: true });
  assert.ok(files.length >= 5);
  const names = ['UUID', 'dataSetVersion', 'baseName', 'referenceYear', 'dataSetValidUntil', 'locationOfOperationsSupplyOrProduction'];
  for (const f of files)
    same(readFileSync(f), [...names, 'subType', 'classification', 'referenceToComplianceSystem', 'exchange', 'amount']);
});

test('the tag search is the pattern it stands for: every place of every name, on crafted and real documents', () => {
  // The search before it, kept here as the reference.
  const byPattern = (text, localName) => {
    const re = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${localName.replace(/[.-]/g, '\\$&')}(?=[ \\t\\r\\n/>])`, 'g');
    const at = [];
    for (let m; (m = re.exec(text));) at.push(m.index);
    return at;
  };
  const crafted = [
    '<a:b:name/><name\t/><:name/><1p:name/><_p:name><p.1-x:name\n><pname/><p :name/><<name>',
    '<x:name:name/><name.name/><name-x/><namename/>name/><:name>< name/><a:<name/>',
    '<name',
    'name>',
    '<p:name',
    ':name/',
    '<n.a-me/><x:n.a-me\r><nXa-me/>',
  ];
  const real = globbySync('examples/ilcdlib/*/ILCD/processes/*.xml', { cwd: ROOT, absolute: true }).map((f) => readFileSync(f, 'utf8'));
  for (const text of [...crafted, ...real]) {
    for (const name of ['name', 'n.a-me', 'dataSetValidUntil', 'exchange', 'amount', 'UUID', 'classification']) {
      const at = byPattern(text, name);
      for (let nth = 0; nth <= at.length; nth++) {
        const expected = at[nth] === undefined ? undefined : positionAt(text, at[nth]);
        assert.equal(locateElement(text, name, nth), expected, `${name}[${nth}] in ${text.slice(0, 40)}`);
      }
    }
  }
});

test.run();
