// References cross from a read worker to the main thread as numbers into a table per worker (src/catalog/ref-codec.ts):
// what arrives must be the references the reader found, in order, whatever the table's size, and each distinct one
// interned once.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readChunk } from '../../dist/catalog/read.js';
import { RefDecoder, RefEncoder, refKey, sameRef } from '../../dist/catalog/ref-codec.js';
import { Interner } from '../../dist/catalog/intern.js';
import { EXAMPLE_DATA } from '../helpers/index.js';

/** Every XML file of the example node (EPDs and the datasets they reference). */
function exampleFiles() {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const st = statSync(abs);
      if (st.isDirectory()) walk(abs);
      else if (name.endsWith('.xml')) out.push({ abs, path: abs, size: st.size, kind: 'xml' });
    }
  };
  walk(EXAMPLE_DATA);
  return out;
}

const clone = (v) => structuredClone(v);

/** The worker's loop (src/catalog/read-worker.ts) and the pool's (runIn), messages passed through structuredClone. */
function roundTrip(outcomes, limit, intern) {
  const enc = new RefEncoder(limit);
  const dec = new RefDecoder(intern);
  const messages = [];
  let part = [];
  const flush = () => {
    if (part.length) messages.push(clone({ refs: enc.take(), part }));
    part = [];
  };
  for (const o of outcomes) {
    const mine = clone(o);
    if (enc.full(mine)) {
      flush();
      enc.clear();
    }
    enc.encode(mine);
    if (part.push(mine) >= 3) flush();
  }
  flush();
  const got = [];
  for (const m of messages) {
    if (m.refs) dec.add(m.refs);
    for (const o of m.part) got.push(dec.decode(o));
  }
  return { got, messages };
}

const outcomes = (await readChunk(exampleFiles(), { maxFileSize: 5e7, now: new Date('2026-01-02T03:04:05Z') })).outcomes;

test('the references that arrive are those read, in order, with a table of any size', () => {
  const withRefs = outcomes.filter((o) => o.header?.references.length);
  assert.ok(withRefs.length > 20, `${withRefs.length} outcomes with references`);
  const most = Math.max(...withRefs.map((o) => o.header.references.length));
  for (const limit of [most, most + 7, 200, 65_536]) {
    const { got, messages } = roundTrip(outcomes, limit);
    assert.equal(got, outcomes, `limit ${limit}`);
    const resets = messages.filter((m) => m.refs?.reset).length;
    if (limit === most) assert.ok(resets > 5, `the table started again ${resets} times`);
    if (limit === 65_536) assert.is(resets, 0);
    // Each distinct reference crosses once per table: fewer than the references of all outcomes.
    const sent = messages.reduce((n, m) => n + (m.refs?.refs.length ?? 0), 0);
    const all = withRefs.reduce((n, o) => n + o.header.references.length, 0);
    if (limit === 65_536) assert.is(sent, new Set(withRefs.flatMap((o) => o.header.references.map(refKey))).size);
    assert.ok(sent < all, `${sent} sent of ${all}`);
  }
});

test('each distinct reference is interned once and shared by the outcomes that hold it', () => {
  const interner = new Interner();
  let calls = 0;
  const { got } = roundTrip(outcomes, 65_536, (r) => (calls++, interner.ref(r)));
  const byKey = new Map();
  for (const o of got)
    for (const r of o.header?.references ?? []) {
      const k = refKey(r);
      if (byKey.has(k)) assert.ok(byKey.get(k) === r, 'the same object');
      byKey.set(k, r);
    }
  assert.is(calls, byKey.size);
  // Interning the outcome afterwards (catalog/build.ts) keeps the references as they are.
  const first = got.find((o) => o.header?.references.length);
  const before = [...first.header.references];
  interner.outcome(first);
  assert.ok(first.header.references.every((r, i) => r === before[i]));
});

test('the encoder numbers references as their keys tell them apart (field by field, no key made)', () => {
  const base = { type: 'flow data set', uuid: 'u', version: '01.00.000', uri: '../flows/u.xml', xpath: '/a/b[2]', descriptions: [] };
  const desc = (value, lang = 'en') => [{ lang, value }];
  const variants = [
    base,
    { ...base },
    { ...base, type: undefined },
    { ...base, type: '' },
    { descriptions: [], xpath: base.xpath, uuid: 'u' },
    { ...base, version: undefined },
    { ...base, uri: '../flows/v.xml' },
    { ...base, xpath: '/a/b[3]' },
    { ...base, uuid: undefined },
    { ...base, uuid: '' },
    { ...base, descriptions: desc('EPD') },
    { ...base, descriptions: desc('EPD') },
    { ...base, descriptions: desc('EPD', 'de') },
    { ...base, descriptions: [...desc('EPD'), ...desc('x')] },
    { ...base, uuid: 'u\u0000x' },
  ];
  for (const a of variants) for (const b of variants) assert.is(sameRef(a, b), refKey(a) === refKey(b), `${refKey(a)} / ${refKey(b)}`);
  const enc = new RefEncoder();
  const o = /** @type {any} */ ({ findings: [], header: { references: variants.map((r) => ({ ...r })) } });
  enc.encode(o);
  const firstOf = new Map();
  variants.forEach((r, i) => firstOf.set(refKey(r), firstOf.get(refKey(r)) ?? i));
  const ids = o.header.references;
  variants.forEach((r, i) => assert.is(ids[i], ids[firstOf.get(refKey(r))]));
  assert.is(new Set(ids).size, firstOf.size);
  assert.is(enc.take().refs.length, firstOf.size);
});

test('one UUID and XPath under many references (hostile input: their list becomes a map by key): numbered as their keys tell', () => {
  const enc = new RefEncoder();
  const ref = (v, x = '/a') => ({ uuid: 'u', version: String(v), xpath: x, descriptions: [] });
  // 40 versions of one UUID (the list becomes a map past 16), then each again and a few new ones: old numbers kept.
  const first = Array.from({ length: 40 }, (_, v) => ref(v));
  const again = [...Array.from({ length: 40 }, (_, v) => ref(v)), ref(40), ref(3, '/b'), ref(3)];
  const o1 = /** @type {any} */ ({ findings: [], header: { references: first } });
  const o2 = /** @type {any} */ ({ findings: [], header: { references: again } });
  enc.encode(o1);
  enc.encode(o2);
  assert.equal(
    o1.header.references,
    Array.from({ length: 40 }, (_, v) => v),
  );
  assert.equal(o2.header.references, [...Array.from({ length: 40 }, (_, v) => v), 40, 41, 3]);
  assert.is(enc.take().refs.length, 42);
});

test('a number the table does not hold is an error, not a wrong reference', () => {
  const dec = new RefDecoder();
  dec.add({ refs: [{ descriptions: [], xpath: '/a', uuid: 'u' }] });
  /** An outcome as the worker posts it: the header's references are numbers. */
  const posted = (ids) => /** @type {any} */ ({ findings: [], header: { references: ids } });
  assert.is(dec.decode(posted([0])).header?.references[0]?.xpath, '/a');
  assert.throws(() => dec.decode(posted([0, 1])), /reference 1 not in/);
  dec.add({ reset: true, refs: [] });
  assert.throws(() => dec.decode(posted([0])), /reference 0 not in/);
});

test.run();
