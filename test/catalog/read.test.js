// readChunk reads plain files into one buffer it reuses (src/catalog/read.ts readOneNow): what a chunk keeps of a file
// for later (the text its own XSD run reads, for the XPath of a finding) must be that file's, not the next one's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readChunk } from '../../dist/catalog/read.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';

test.after.each(cleanup);

const GOOD = REAL_EPDS[0];
const goodXml = readFileSync(join(EXAMPLE_DATA, GOOD.file), 'utf8');
const opts = { maxFileSize: 5e7, now: new Date('2026-01-02T03:04:05Z') };

test('a chunk keeps each file its own text: XSD findings (with XPaths from the text) as when read alone', async () => {
  const dir = tmp();
  mkdirSync(dir, { recursive: true });
  // The XSD error of `a` is on a line that, in the longer `b` read after it into the same buffer, is another element.
  const a = goodXml.replace('</processInformation>', '<unexpected/></processInformation>');
  const b = a
    .replace(/<processInformation>/, `${'\n'.repeat(40)}<processInformation>`)
    .replaceAll(GOOD.uuid, '11111111-2222-4333-8444-000000000002');
  /** @returns {import('../../dist/read/inputs.js').InputFile} */
  const file = (name, text) => {
    const abs = join(dir, name);
    writeFileSync(abs, text);
    return { abs, path: name, size: statSync(abs).size, kind: 'xml' };
  };
  const fa = file('a.xml', a);
  const fb = file('b.xml', b);
  const alone = (await readChunk([fa], opts)).outcomes[0];
  const xsdOf = (o) => o.findings.filter((f) => f.ruleId?.startsWith('xsd'));
  assert.ok(xsdOf(alone).length > 0, 'the crafted file has an XSD finding');
  assert.ok(
    xsdOf(alone).every((f) => f.xpath?.includes('unexpected')),
    JSON.stringify(xsdOf(alone)),
  );
  const both = await readChunk([fa, fb, fa], opts);
  assert.equal(both.outcomes[0], alone);
  assert.equal(both.outcomes[2], alone);
  assert.equal(both.outcomes[1], (await readChunk([fb], opts)).outcomes[0]);
});

test('with a sink, each outcome goes there once, when complete: the same outcomes, XSD findings of the chunk included', async () => {
  const dir = tmp();
  mkdirSync(dir, { recursive: true });
  const bad = goodXml.replace('</processInformation>', '<unexpected/></processInformation>');
  const files = [goodXml, bad, '<broken>', goodXml].map((text, k) => {
    const abs = join(dir, `${k}.xml`);
    writeFileSync(abs, text);
    return /** @type {import('../../dist/read/inputs.js').InputFile} */ ({ abs, path: `${k}.xml`, size: statSync(abs).size, kind: 'xml' });
  });
  const kept = await readChunk(files, opts);
  /** @type {[number, import('../../dist/catalog/read.js').ReadOutcome, unknown][]} */
  const seen = [];
  const left = await readChunk(files, opts, [], (j, o, xsd) => seen.push([j, o, xsd]));
  assert.equal(left.outcomes, [], 'nothing kept to the end of the chunk');
  assert.equal(seen.map(([j]) => j).sort(), [0, 1, 2, 3]);
  // The XSD of this chunk runs at its end: the files it validates come last, with their findings.
  assert.equal(seen.map(([j]) => j).slice(0, 1), [2]);
  for (const [j, o, xsd] of seen) {
    assert.equal(o, kept.outcomes[j]);
    assert.is(xsd, kept.xsd[j]);
  }
  assert.ok(
    seen.find(([j]) => j === 1)[1].findings.some((f) => f.ruleId?.startsWith('xsd')),
    'the XSD finding is there',
  );
});

test('jsonLengthBound: never below the JSON length, undefined past the limit (the index-size check skips JSON by it)', async () => {
  const { jsonLengthBound } = await import('../../dist/catalog/read.js');
  const { readDocument } = await import('../../dist/catalog/read.js');
  const values = [
    '',
    'plain',
    '"\\\u0000\u001f\u007f\u2028\ud800 ☃ 😀',
    [1, -0.000001234, 1e300, null, undefined, true, false, [], {}],
    { a: undefined, 'k"\u0001': ['x', { y: 'z' }], n: Number.MAX_VALUE },
    ...REAL_EPDS.map((e) => readDocument(readFileSync(join(EXAMPLE_DATA, e.file)), { path: e.file }, opts).outcome.header),
  ];
  for (const v of values) {
    const exact = JSON.stringify(v)?.length ?? 0;
    const bound = jsonLengthBound(v, 1e9);
    assert.ok(bound >= exact, `${bound} < ${exact} for ${JSON.stringify(v)?.slice(0, 80)}`);
    assert.is(jsonLengthBound(v, bound - 1), undefined);
  }
  assert.is(jsonLengthBound({ d: new Date(0) }, 1e9), undefined);
  // What JSON.stringify would call: an own toJSON, a class's (as a Date's); measured exactly, never bounded.
  assert.is(jsonLengthBound({ a: [{ toJSON: () => 'x'.repeat(100) }] }, 1e9), undefined);
  assert.is(
    jsonLengthBound(
      [
        new (class {
          toJSON() {
            return 1;
          }
        })(),
      ],
      1e9,
    ),
    undefined,
  );
  assert.ok(jsonLengthBound(Object.assign(Object.create(null), { a: 'b' }), 1e9) >= JSON.stringify({ a: 'b' }).length);
});

test('an outcome does not keep its document alive: references hold no slices of the byte view', () => {
  // Heap per kept outcome, measured in a child with a callable GC: references cut from the view kept all of it
  // (1.88x the documents' size before the fix, 0.85x after).
  const script = `
    import { readFileSync } from 'node:fs';
    const { readDocument } = await import(${JSON.stringify(new URL('../../dist/catalog/read.js', import.meta.url).href)});
    const docs = ${JSON.stringify(REAL_EPDS.map((e) => join(EXAMPLE_DATA, e.file)))}.map((f) => readFileSync(f));
    const opts = { validation: { structure: false, xsd: false, rules: true, disabledRules: [] }, now: new Date(0) };
    const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
    for (const d of docs) readDocument(Buffer.from(d), { path: 'x.xml' }, opts);
    const h0 = heap();
    const kept = [];
    for (let k = 0; k < 40; k++) for (const d of docs) kept.push(readDocument(Buffer.from(d), { path: 'x.xml' }, opts).outcome);
    const h1 = heap();
    if (!kept.every((o) => o.header)) throw new Error('a real EPD was not accepted');
    // Written, not logged: console.log colours a number when uvu forces colour (FORCE_COLOR, inherited).
    process.stdout.write(String((h1 - h0) / (40 * docs.reduce((s, d) => s + d.length, 0))));
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const ratio = Number(r.stdout.trim());
  assert.ok(ratio > 0 && ratio < 1.2, `outcomes keep ${ratio.toFixed(2)}x their documents' size`);
});

test.run();
