// checkWellFormed: the one well-formedness gate of every published document. Each case's verdict is also checked
// against libxml2 (xmllint --noout) when it is installed, so the scanner agrees with the parser XSD validation uses.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readDocument } from '../../dist/catalog/read.js';
import { decodeXml, viewXml } from '../../dist/parse/safety.js';
import { checkWellFormed, DEFAULT_SHAPE_LIMITS } from '../../dist/parse/wellformed.js';
import { newToken, readToken } from '../../dist/parse/tokens.js';
import { position } from '../../dist/parse/xml.js';
import { cleanup, EXAMPLE_DATA, failure, success, tmp } from '../helpers/index.js';

const hasXmllint = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;

const GOOD = {
  minimal: '<a/>',
  declaration: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<a/>',
  'comments and PIs around the root': '<!-- c --><?pi x?><a/><!-- d -->\n',
  'references and CDATA': '<a b="&lt;&#x41;&#65;&quot;">x &amp; y <![CDATA[ <&> ]]> &gt;</a>',
  namespaces: '<p:a xmlns:p="urn:p" xmlns="urn:d" p:x="1" y="2"><b xmlns:q="urn:q" q:z="3"/></p:a>',
  'unicode names': '<ä é="1"><ß/></ä>',
  'single quotes, white space around =': '<a b = \'1\'\n c\t="2" />',
  'same local name, different namespaces': '<a xmlns:p="urn:p" xmlns:q="urn:q" p:x="1" q:x="2"/>',
  'text with > and ]]': '<a>a > b ]] c</a>',
  // The char-code paths of names, attributes and end tags, and where they hand over to the full rules.
  'end tags with white space before >': '<a><b></b \n></a\t>',
  'prefixed names and an empty element with white space': '<p:a xmlns:p="urn:p"><p:b-c.d_e p:x = "1" /></p:a>',
  'a name with a non-ASCII character after ASCII ones': '<a><bé xé="1"></bé></a>',
  'a prefix declared again on siblings': `<a>${'<p:b xmlns:p="urn:p" p:x="1">&lt;</p:b>'.repeat(20)}</a>`,
  // Repeated tags are taken from the check's memo (same text, same bindings): with a ">" in a value, and nested in
  // themselves.
  'repeated tags with ">" in a value': `<a>${'<b x="1>2" y="3"/><b x="1>2" y="3"/><b x="1>2"/><b x="1>2" z="4"/>'.repeat(3)}</a>`,
  'a repeated tag binding a prefix anew, then the outer binding used': `<a xmlns:p="urn:p">${'<b xmlns:p="urn:q"/><b xmlns:p="urn:q"><p:c/></b>'.repeat(2)}<p:c/></a>`,
  'a repeated tag nested in itself': `<a>${'<p:b xmlns:p="urn:p">'.repeat(5)}${'</p:b>'.repeat(5)}</a>`,
};

const BAD = {
  'DOCTYPE inside the root element': ['<a><!DOCTYPE a></a>', 'xml-malformed'],
  'DOCTYPE in the prolog': ['<!DOCTYPE a><a/>', 'xml-doctype'],
  'ENTITY declaration in content': ['<a><!ENTITY x "y"></a>', 'xml-malformed'],
  'unbalanced tags': ['<a><b></a>', 'xml-malformed'],
  'unclosed root': ['<a><b/>', 'xml-malformed'],
  'stray <': ['<a>1 < 2</a>', 'xml-malformed'],
  'bare &': ['<a>fish & chips</a>', 'xml-malformed'],
  'undeclared entity': ['<a>&nbsp;</a>', 'xml-malformed'],
  'character reference to NUL': ['<a>&#0;</a>', 'xml-malformed'],
  'control character': ['<a>\u0001</a>', 'xml-malformed'],
  'duplicate attribute': ['<a x="1" x="2"/>', 'xml-malformed'],
  // Namespace well-formedness: libxml2 reports a "namespace error" and goes on; po-node cannot resolve such names.
  'duplicate attribute through two prefixes': ['<a xmlns:p="urn:p" xmlns:q="urn:p" p:x="1" q:x="2"/>', 'xml-malformed', 'ns'],
  'undeclared prefix': ['<p:a/>', 'xml-malformed', 'ns'],
  'undeclared attribute prefix': ['<a p:x="1"/>', 'xml-malformed', 'ns'],
  'unquoted attribute': ['<a x=1/>', 'xml-malformed'],
  'attributes without white space between': ['<a x="1"y="2"/>', 'xml-malformed'],
  '< in an attribute value': ['<a x="<"/>', 'xml-malformed'],
  'two root elements': ['<a/><b/>', 'xml-malformed'],
  'text after the root': ['<a/>x', 'xml-malformed'],
  'text before the root': ['x<a/>', 'xml-malformed'],
  ']]> in text': ['<a>]]></a>', 'xml-malformed'],
  '-- in a comment': ['<a><!-- a -- b --></a>', 'xml-malformed'],
  'XML declaration later on': ['<a><?xml version="1.0"?></a>', 'xml-malformed'],
  'CDATA outside the root': ['<![CDATA[x]]><a/>', 'xml-malformed'],
  'no root element': ['<!-- only a comment -->', 'xml-malformed'],
  'end tag with attributes': ['<a></a x="1">', 'xml-malformed'],
  'end tag longer than the open name': ['<a></ab>', 'xml-malformed'],
  'end tag of a prefix of the open name': ['<ab></a>', 'xml-malformed'],
  'end tag of the open name, then a non-ASCII character': ['<a></aé>', 'xml-malformed'],
  'attribute without a value': ['<a b/>', 'xml-malformed'],
  'attribute without a quote': ['<a b= c/>', 'xml-malformed'],
  '"/ >" ending a tag': ['<a / >', 'xml-malformed'],
  'start tag not closed': ['<a b="1"', 'xml-malformed'],
  // The check remembers where the next "<", "&" and "]]>" are and the prefixes of names it met: each fault after
  // many clean tags and texts, or in a later value of one tag.
  '< in the second value of a tag': ['<a x="1" y="2<3"/>', 'xml-malformed'],
  '< in a value after clean tags': [`<a>${'<b x="1">t</b>'.repeat(50)}<b x="1" y="<"/></a>`, 'xml-malformed'],
  'bare & after clean texts and a reference': [`<a>${'<b>t &amp; u</b>'.repeat(50)}<b>t & u</b></a>`, 'xml-malformed'],
  'bare & in a later value': ['<a x="&amp;" y="1 & 2"/>', 'xml-malformed'],
  ']]> in text after a CDATA section': ['<a><![CDATA[ x ]]> y ]]></a>', 'xml-malformed'],
  'a prefix met declared, then undeclared': ['<a><p:b xmlns:p="urn:p"/><p:b/></a>', 'xml-malformed', 'ns'],
  'an attribute prefix met declared, then undeclared': ['<a><b xmlns:p="urn:p" p:x="1"/><b p:x="1"/></a>', 'xml-malformed', 'ns'],
  // The same tag text met again under other bindings: the memo of checked tags must not carry the first verdict over.
  'a repeated tag, its prefix undeclared after the declaring siblings': [
    `<a>${'<p:b xmlns:p="urn:p" p:x="1">1</p:b>'.repeat(3)}<p:c/></a>`,
    'xml-malformed',
    'ns',
  ],
  'a repeated tag whose prefix went out of scope': ['<a><b xmlns:p="urn:p"><p:c/><p:c/></b><p:c/></a>', 'xml-malformed', 'ns'],
  'a repeated tag whose two prefixes come to mean one namespace': [
    '<a xmlns:p="urn:p" xmlns:q="urn:q"><e p:x="1" q:x="2"/><e p:x="1" q:x="2"/><b xmlns:q="urn:p"><e p:x="1" q:x="2"/></b></a>',
    'xml-malformed',
    'ns',
  ],
  'a repeated tag whose two prefixes come to mean one namespace in a repeated parent': [
    '<a xmlns:p="urn:p" xmlns:q="urn:q"><b xmlns:q="urn:r"><e p:x="1" q:x="2"/></b><b xmlns:q="urn:p"><e p:x="1" q:x="2"/></b></a>',
    'xml-malformed',
    'ns',
  ],
  'two attributes of one prefixed name through two prefixes, third attribute': [
    '<a xmlns:p="urn:p" xmlns:q="urn:p" xml:lang="en" p:x="1" q:x="2"/>',
    'xml-malformed',
    'ns',
  ],
};

/** libxml2's verdict: 'ok', 'ns' (a namespace error, parsed on) or 'error'. */
function libxml2(text) {
  const dir = tmp();
  const file = join(dir, 'x.xml');
  writeFileSync(file, text);
  const r = spawnSync('xmllint', ['--noout', '--nonet', file], { encoding: 'utf8' });
  if (r.status !== 0) return 'error';
  return /namespace error/.test(r.stderr) ? 'ns' : 'ok';
}

test.after.each(cleanup);

for (const [name, text] of Object.entries(GOOD)) {
  test(`well-formed: ${name}`, () => {
    success(checkWellFormed(text), name);
    if (hasXmllint) assert.is(libxml2(text), 'ok', 'libxml2 agrees');
  });
}

for (const [name, [text, ruleId, libxml2Verdict = 'error']] of Object.entries(BAD)) {
  test(`not well-formed: ${name}`, () => {
    const r = checkWellFormed(text);
    assert.not.ok(r.ok, 'refused');
    assert.is(r.ruleId, ruleId);
    assert.ok(r.offset >= 0 && r.offset <= text.length);
    // A DOCTYPE in the prolog is well-formed XML, refused for safety; everything else libxml2 refuses too.
    if (hasXmllint && ruleId !== 'xml-doctype') assert.is(libxml2(text), libxml2Verdict, 'libxml2 agrees');
  });
}

// The build checks the bytes (a latin1 view, viewXml) and decodes only what it cannot judge there: its findings must
// be those of the decoded check, on every case above and on what only the view could get wrong (non-ASCII).
const NON_ASCII = {
  'non-ASCII text and attribute values': '<a b="é€😀">Holzböden € 😀</a>',
  'non-ASCII name': '<ä é="1"><ß/></ä>',
  'non-ASCII name after ASCII': '<aä/>',
  'middle dot starting a name (NameChar, not NameStartChar)': '<\u00b7a/>',
  'non-ASCII attribute name after ASCII ones': '<a x="1" ü="2"/>',
  'non-ASCII PI target': '<?pï x?><a/>',
  'U+FFFE in text': '<a>\ufffe</a>',
  'U+FFFF in an attribute': '<a b="\uffff"/>',
  'character reference to a non-ASCII character': '<a b="&#233;">&#x1F600;</a>',
  'BOM, then a declaration': '\ufeff<?xml version="1.0" encoding="utf-8"?><a/>',
  'non-ASCII white space before the root': '\u3000<a/>',
  'non-ASCII text after the root': '<a/>é',
  'text of many multi-byte characters at the token limit': `<a>${'€'.repeat(1000)}</a>`,
};

test('the byte view refuses every character the check refuses (so the check need not look for them on a view)', () => {
  for (let c = 0; c < 0x20; c++) {
    const doc = `<a b="x${String.fromCharCode(c)}">t</a>`;
    const allowed = c === 0x09 || c === 0x0a || c === 0x0d;
    assert.is(viewXml(Buffer.from(doc)) !== undefined, allowed, `U+${c.toString(16).padStart(4, '0')}`);
    assert.is(checkWellFormed(doc).ok, allowed, `U+${c.toString(16).padStart(4, '0')} decoded`);
  }
  for (const ch of ['\ufffe', '\uffff']) assert.is(viewXml(Buffer.from(`<a>${ch}</a>`)), undefined);
  // Refused by the view, reported by the decoded check: at its line, as before.
  const got = readDocument(Buffer.from('<a>\n<b>\u0007</b></a>'), { path: 'x.xml' }, {}).outcome.findings;
  assert.equal(
    got.map((f) => [f.ruleId, f.line]),
    [['xml-malformed', 2]],
  );
});

test('the byte view agrees with the decoded check: verdict, rule and position of every case', () => {
  const cases = [...Object.values(GOOD), ...Object.values(BAD).map(([t]) => t), ...Object.values(NON_ASCII)];
  const lim = { ...DEFAULT_SHAPE_LIMITS, maxTokenKB: 1 };
  for (const text of cases) {
    const bytes = Buffer.from(text);
    const dec = decodeXml(bytes);
    const ref = dec.ok ? checkWellFormed(dec.text, lim) : undefined;
    const view = viewXml(bytes);
    // The view passes only what the decoded text passes.
    if (view && checkWellFormed(view.text, lim, true).ok) assert.ok(ref?.ok, text);
    // And the findings of a read are the decoded check's.
    const got = readDocument(bytes, { path: 'x.xml' }, { shape: lim }).outcome.findings;
    if (!dec.ok)
      assert.equal(
        got.map((f) => f.ruleId),
        [/** @type {{ finding: { ruleId: string } }} */ (dec).finding.ruleId],
        text,
      );
    else if (ref && !ref.ok) {
      const bad = /** @type {{ ruleId: string, offset: number }} */ (ref);
      assert.equal(got.length, 1, text);
      assert.equal([got[0].ruleId, got[0].line, got[0].col], [bad.ruleId, ...Object.values(position(dec.text, bad.offset))], text);
    } else
      assert.not.ok(
        got.some((f) => f.ruleId.startsWith('xml-')),
        text,
      );
  }
});

// Names, attributes and end tags are read by char codes, handing over to the full rules where those decide: the
// findings (message and offset) are the ones the regular-expression scanner gave.
/** @type {[string, string, number][]} */
const FINDINGS = [
  ['<a></ab>', 'end tag </ab> does not match <a>', 3],
  ['<ab></a>', 'end tag </a> does not match <ab>', 4],
  ['<a></aé>', 'end tag </aé> does not match <a>', 3],
  ['<a></a x>', 'end tag </a> not closed by ">"', 3],
  ['<a b/>', 'start tag <a> malformed (attributes are name="value", separated by white space)', 2],
  ['<a b= c/>', 'start tag <a> malformed (attributes are name="value", separated by white space)', 2],
  ['<a / >', 'start tag <a> malformed (attributes are name="value", separated by white space)', 2],
  ['<a b="1"', 'start tag <a> malformed (attributes are name="value", separated by white space)', 8],
  ['<a x="1"y="2"/>', 'start tag <a> malformed (attributes are name="value", separated by white space)', 8],
  ['<p:a xmlns:p="urn:p"></p:b>', 'end tag </p:b> does not match <p:a>', 21],
  ['<a xmlns:p="urn:p" xmlns:q="urn:p" xml:lang="en" p:x="1" q:x="2"/>', 'attribute {urn:p}x repeated on <a>', 56],
  ['<a x="1" x="2"/>', 'attribute x repeated on <a>', 8],
  // Beyond the first four prefixed attributes (compared pair by pair) a set finds the repeat; a prefix before the local name.
  ['<a xmlns:p="urn:p" xmlns:q="urn:p" p:a="1" p:b="1" p:c="1" p:d="1" p:e="1" q:e="2"/>', 'attribute {urn:p}e repeated on <a>', 74],
  ['<a xmlns:p="urn:p" xmlns:q="urn:p" p:a="1" p:b="1" p:c="1" p:d="1" q:b="2"/>', 'attribute {urn:p}b repeated on <a>', 66],
  ['<a xmlns:p="urn:p" xmlns:q="urn:p" p:ab="1" q:b="1" q:a="1" p:b="1"/>', 'attribute {urn:p}b repeated on <a>', 59],
  ['<a><b></a>', 'end tag </a> does not match <b>', 6],
];

test('findings keep their message and offset: end tags, attributes, tag ends', () => {
  for (const [text, message, offset] of FINDINGS) {
    const r = failure(checkWellFormed(text));
    assert.equal([r.message, r.offset], [message, offset], text);
  }
});

test('every dataset of the examples passes', () => {
  let n = 0;
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.xml')) {
        const dec = decodeXml(readFileSync(p));
        if (!dec.ok) continue;
        success(checkWellFormed(dec.text), p);
        success(checkWellFormed(viewXml(readFileSync(p)).text, undefined, true), `${p} (bytes)`);
        n++;
      }
    }
  };
  walk(EXAMPLE_DATA);
  assert.ok(n > 200, `${n} files`);
});

test('shape limits: attributes, depth, nodes and token length each stop the scan with xml-limit', () => {
  const lim = { ...DEFAULT_SHAPE_LIMITS, maxAttributes: 3, maxDepth: 3, maxNodes: 10, maxTokenKB: 1 };
  assert.is(failure(checkWellFormed('<a w="1" x="1" y="1" z="1"/>', lim)).ruleId, 'xml-limit');
  assert.is(failure(checkWellFormed('<a><b><c><d></d></c></b></a>', lim)).ruleId, 'xml-limit');
  assert.is(failure(checkWellFormed(`<a>${'<b/>'.repeat(10)}</a>`, lim)).ruleId, 'xml-limit');
  assert.is(failure(checkWellFormed(`<a>${'x'.repeat(2000)}</a>`, lim)).ruleId, 'xml-limit');
  assert.is(failure(checkWellFormed(`<a x="${'x'.repeat(2000)}"/>`, lim)).ruleId, 'xml-limit');
  assert.ok(checkWellFormed('<a x="1" y="1"><b><c/></b></a>', lim).ok);
});

test('linear time: a 20 MB document without any & or markup in its text is scanned in well under a second or two', () => {
  // Searching for the next & or ]]> from every text node made such documents quadratic.
  const text = `<a>${'<b>text</b>'.repeat(2_000_000)}</a>`;
  const t = performance.now();
  assert.ok(checkWellFormed(text, { ...DEFAULT_SHAPE_LIMITS, maxNodes: 1e7 }).ok);
  assert.ok(performance.now() - t < 20_000, `${performance.now() - t} ms`);
});

/** The tokens checkWellFormed tells a sink, as [kind, lt, end, name, attributes as written, empty, xmlns]. */
function told(text, bytes = false) {
  const out = [];
  const wf = checkWellFormed(text, undefined, bytes, {
    open: (t) => out.push([0, t.lt, t.end, t.name, text.slice(t.from, t.to), t.empty, t.names.slice(0, t.count).join(' '), t.xmlns]),
    close: (lt, name, end) => out.push([1, lt, end, name]),
    markup: (lt, end) => out.push([2, lt, end]),
  });
  return wf.ok ? out : undefined;
}

/** The same from the scanners' own tokenizer (tokens.ts), walking from `<` to `<`; undefined where it cannot read a name. */
function readByTokenizer(text) {
  const out = [];
  const t = newToken();
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', t.end)) {
    if (!readToken(text, i, t)) return undefined;
    if (i === 0 && /^<\?xml[ \t\r\n?]/.test(text)) continue; // the XML declaration: not a PI, not told
    if (t.kind === 2) out.push([2, i, t.end]);
    else if (t.kind === 1) out.push([1, i, t.end, t.qname]);
    else out.push([0, i, t.end, t.qname, text.slice(t.attrsFrom, t.attrsTo), t.empty]);
  }
  return out;
}

test('a sink is told every tag, comment, CDATA and PI in document order, as the tokenizer of the scanners reads them', () => {
  const docs = Object.entries(GOOD);
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.xml')) docs.push([p, readFileSync(p, 'utf8').replace(/^\uFEFF/, '')]);
    }
  };
  walk(EXAMPLE_DATA);
  let compared = 0;
  for (const [name, text] of docs) {
    const got = told(text);
    assert.ok(got, name);
    const view = viewXml(Buffer.from(text));
    // A view's offsets are those of the bytes: the same tokens, at offsets equal where the text is ASCII.
    const ascii = Buffer.byteLength(text) === text.length;
    const kept = (tokens) => (ascii ? tokens : tokens.map((t) => [t[0], t[3], t[5], t[6], t[7]]));
    if (checkWellFormed(view.text, undefined, true).ok) assert.equal(kept(told(view.text, true)), kept(got), `${name} (bytes)`);
    const want = readByTokenizer(text);
    if (!want) continue; // a name outside [A-Za-z_][\w.-]* (the tokenizer's)
    assert.equal(
      got.map((t) => t.slice(0, 6)),
      want,
      name,
    );
    compared++;
  }
  assert.ok(compared > 200, `${compared} documents compared`);
  assert.is(told('<a><b/></a'), undefined, 'nothing comes of a document that fails');
});

test('a sink is told which start tags declare namespaces, and whether any declaration changes a binding', () => {
  const text =
    '<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns:p="urn:p" x="1"/><c xmlns:p="urn:q"/><d xmlns:p="urn:p" xmlns:q="urn:q"/>' +
    '<e p:y=\'2\'/><f xmlns:p = \'urn:p\'/><g xmlns:p="urn:&#112;"/><h xmlns="urn:d"><i xmlns=""/></h></a>';
  const opens = told(text).filter((t) => t[0] === 0);
  assert.equal(
    opens.map((t) => [t[3], t[6], t[7]]),
    [
      ['a', 'xmlns xmlns:p', 2],
      ['b', 'xmlns:p x', 1],
      ['c', 'xmlns:p', 2],
      ['d', 'xmlns:p xmlns:q', 2],
      ['e', 'p:y', 0],
      ['f', 'xmlns:p', 1],
      // The same namespace written with a reference: a change as far as the check can tell without decoding.
      ['g', 'xmlns:p', 2],
      ['h', 'xmlns', 1],
      ['i', 'xmlns', 2],
    ],
  );
});

test('repeated tags (from the memo of checked tags): the same tokens, and the limits still count each one', () => {
  // Each told token is compared with the same document whose repeats differ in white space (no memo hit).
  const repeats = `<a xmlns:q="urn:q">${'<p:b xmlns:p="urn:p" p:x="1" q:y="2"><c/></p:b>'.repeat(4)}<p:b xmlns:p="urn:p"/></a>`;
  let k = 0;
  const unique = repeats.replace(/<p:b xmlns/g, () => `<p:b${' '.repeat(++k)}xmlns`).replace(/<c\/>/g, () => `<c${' '.repeat(++k)}/>`);
  const fields = (t) => [t[0], t[3], t[5] ?? null, t[6] ?? null, t[7] ?? null];
  assert.equal(told(repeats).map(fields), told(unique).map(fields));
  assert.equal(
    told(repeats)
      .filter((t) => t[0] === 0)
      .map((t) => t[7]),
    [2, 2, 0, 2, 0, 2, 0, 2, 0, 2],
    'each p:b still declares a binding that changes',
  );
  const spans = told(repeats).filter((t) => t[0] === 0 && t[3] === 'p:b');
  assert.equal(
    spans.map((t) => [t[4], repeats.slice(t[1], t[2])]),
    [...repeats.matchAll(/<p:b( [^>]*?)\/?>/g)].map((m) => [m[1], m[0]]),
  );
  const lim = (over) => ({ ...DEFAULT_SHAPE_LIMITS, ...over });
  const nodes = checkWellFormed(`<a>${'<b x="1"/>'.repeat(10)}</a>`, lim({ maxNodes: 20 }));
  assert.is(failure(nodes).ruleId, 'xml-limit', 'maxNodes over repeated tags');
  assert.ok(checkWellFormed(`<a>${'<b x="1"/>'.repeat(9)}</a>`, lim({ maxNodes: 20 })).ok);
  assert.is(failure(checkWellFormed(`${'<b>'.repeat(5)}${'</b>'.repeat(5)}`, lim({ maxDepth: 4 }))).ruleId, 'xml-limit');
  assert.ok(checkWellFormed(`${'<b>'.repeat(4)}${'</b>'.repeat(4)}`, lim({ maxDepth: 4 })).ok);
  // More binding states than the memo keeps: the verdicts do not change past its bound.
  const states = Array.from({ length: 300 }, (_, i) => `<p:b xmlns:p="urn:${i}"><p:c/></p:b>`).join('');
  assert.ok(checkWellFormed(`<a>${states}</a>`).ok);
  assert.is(failure(checkWellFormed(`<a>${states}<p:c/></a>`)).ruleId, 'xml-malformed');
});

test('tags the memo files under one key (same length, same characters where it looks) are told apart by their text', () => {
  // p:a and q:a differ only where the memo's key does not look: a bound prefix must not pass for an unbound one.
  const ns = '<r xmlns:p="urn:p">';
  assert.ok(checkWellFormed(`${ns}<x p:a="1"/><x p:a="1"/></r>`).ok);
  assert.is(failure(checkWellFormed(`${ns}<x p:a="1"/><x q:a="1"/></r>`)).ruleId, 'xml-malformed');
  assert.match(failure(checkWellFormed(`${ns}<x p:a="1"/><x q:a="1"/></r>`)).message, /q/);
  // Thousands of distinct tags under one key (a document made to defeat the memo): every one checked, the same tokens
  // as when each differs where the key looks.
  const colliding = Array.from({ length: 5000 }, (_, i) => `<x a="${String(i).padStart(5, '0')}zz"/>`).join('');
  const apart = Array.from({ length: 5000 }, (_, i) => `<x a="zz${String(i).padStart(5, '0')}"/>`).join('');
  const a = told(`<r>${colliding}</r>`);
  const b = told(`<r>${apart}</r>`);
  assert.is(a.length, 5002);
  // Each tag's own span and attribute text: no tag was taken for another of its key.
  assert.equal(
    a.map((t) => [t[0], t[1], t[2], t[3], t[6]]),
    b.map((t) => [t[0], t[1], t[2], t[3], t[6]]),
  );
  assert.equal(
    a.filter((t) => t[0] === 0 && t[3] === 'x').map((t) => t[4]),
    Array.from({ length: 5000 }, (_, i) => ` a="${String(i).padStart(5, '0')}zz"`),
  );
  assert.is(
    failure(checkWellFormed(`<r>${colliding}<x a="00001zz" a="1"/></r>`)).ruleId,
    'xml-malformed',
    'a repeated attribute after them',
  );
});

test('a sink is told no tag beyond the shape limits: the check refuses it first', () => {
  const limits = { ...DEFAULT_SHAPE_LIMITS, maxTokenKB: 1, maxDepth: 3, maxNodes: 6 };
  const opened = (text) => {
    const names = [];
    const wf = checkWellFormed(text, limits, false, { open: (t) => names.push(t.name), close() {}, markup() {} });
    return ['ruleId' in wf ? wf.ruleId : 'ok', names];
  };
  assert.equal(opened(`<a><b x="${'y'.repeat(2000)}"/></a>`), ['xml-limit', ['a']], 'a start tag over maxTokenKB');
  assert.equal(opened('<a><b><c><d></d></c></b></a>'), ['xml-limit', ['a', 'b', 'c']], 'nested deeper than maxDepth');
  assert.equal(opened('<a x="1" y="2"><b z="3"/><c/><d/></a>'), ['xml-limit', ['a', 'b', 'c']], 'more nodes than maxNodes');
  assert.equal(opened('<a><b/></a>'), ['ok', ['a', 'b']]);
});

test.run();
