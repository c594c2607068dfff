// The EPD pages read the LCIA results from the LCIAResults element alone (cut out by the body scanner): they must
// equal those of a full parse, whatever the document hides around the body.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { extractLciaResults, readLciaResults } from '../../dist/parse/lcia.js';
import { parseXml } from '../../dist/parse/xml.js';
import { EXAMPLE_DATA, REAL_EPDS, success } from '../helpers/index.js';

const full = (text) => extractLciaResults(success(parseXml(text)).root);
const quick = (text) => readLciaResults(Buffer.from(text));
const ibu = readFileSync(join(EXAMPLE_DATA, REAL_EPDS[0].file), 'utf8');

test('the five real EPDs: the same results as a full parse, values as written', () => {
  for (const e of REAL_EPDS) {
    const text = readFileSync(join(EXAMPLE_DATA, e.file), 'utf8');
    const r = quick(text);
    assert.ok(r.length === 7 || r.length === 19, `${e.uuid}: ${r.length} indicators`);
    assert.equal(r, full(text), e.uuid);
  }
  const gwp = quick(ibu)[0];
  assert.is(gwp.method, '6a37f984-a4b3-458a-a20a-64418c145fa2');
  assert.equal(gwp.amounts.slice(0, 2), [
    { module: 'A1-A3', value: '6.529' },
    { module: 'A5', value: '0.2576' },
  ]);
  assert.equal(gwp.amounts.at(-1), { module: 'D', scenario: 'S2', value: '-0.2187' });
});

test('a look-alike LCIAResults in a comment before the body is not taken for the real one', () => {
  // Right before the body: the scanner's search for the body's first element lands in the comment.
  const tricky = ibu.replace(/(<exchanges>)/, '<!-- <LCIAResults></LCIAResults> -->$1');
  assert.is.not(tricky, ibu);
  assert.equal(quick(tricky), full(ibu));
  const inBody = ibu.replace(/(<LCIAResults>)/, '<!-- <LCIAResults></LCIAResults> -->$1');
  assert.is.not(inBody, ibu);
  assert.equal(quick(inBody), full(ibu));
});

test('no LCIAResults: no results; bytes that do not decode: none either', () => {
  const none = ibu.replace(/<LCIAResults>[\s\S]*<\/LCIAResults>/, '');
  assert.equal(quick(none), []);
  assert.equal(readLciaResults(new Uint8Array([0xff, 0xfe, 0x3c, 0])), []);
});

test.run();
