// `po-node check` against the example node over real HTTP, and against deliberately broken copies:
// each break must fail the right checklist item with evidence naming what is wrong.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../dist/cli.js';
import { runCheck, validateWithSchema } from '../../dist/index.js';
import { buildExample, cleanup, REAL_EPDS, tree } from '../helpers/index.js';
import { startFront } from './servers.js';

const FAST = { retries: 1, backoffMs: 10, timeoutS: 5, paths: /** @type {const} */ ('both'), now: new Date('2026-01-02T04:00:00Z') };
const running = [];

/**
 * Build the example node with its base URL set to a fresh front server, serve it, optionally break it.
 * @param {{ hook?: Parameters<typeof startFront>[0], breakSite?: (out: string) => void }} [options]
 */
async function node({ hook, breakSite } = {}) {
  const front = await startFront(hook);
  running.push(front);
  const { out } = await buildExample({ baseUrl: front.url });
  if (breakSite) {
    breakSite(out);
    // An edit by hand leaves the precompressed copies as built, and a host sends those: the broken site has none.
    for (const f of Object.keys(tree(out))) if (/\.(gz|br)$/.test(f)) rmSync(join(out, f));
  }
  await front.serve(out);
  return { front, out };
}

function item(report, id) {
  const it = report.items.find((i) => i.id === id);
  assert.ok(it, `item ${id}`);
  return it;
}

/** Only the named items fail, each with evidence matching its pattern. */
function failsWith(report, expected) {
  assert.is(report.ready, false);
  assert.equal(validateWithSchema('check-report', report), []);
  for (const [id, pattern] of Object.entries(expected)) {
    const it = item(report, id);
    assert.is(it.ok, false, `${id} should fail`);
    assert.ok(
      it.evidence.some((e) => pattern.test(e)),
      `${id} evidence ${JSON.stringify(it.evidence)} should match ${pattern}`,
    );
  }
}

const EPD = REAL_EPDS[0];
const check = suite('po-node check');
check.after.each(async () => {
  for (const s of running.splice(0)) await s.close();
});
check.after(() => cleanup());

check('the example node over HTTP is ready: every item passes, report is schema-valid', async () => {
  const { front } = await node();
  const r = await runCheck(front.url, FAST);
  assert.equal(validateWithSchema('check-report', r), []);
  for (const it of r.items) assert.ok(it.ok, `${it.id}: ${it.evidence.join(' | ')}`);
  assert.is(r.ready, true);
  assert.equal(r.epds, { listed: 5, retrieved: 5, valid: 5 });
  assert.equal(r.pathSets, ['default', 'v1']);
  // Static hosts cannot page: the note says so (ilcdlib reads the list twice).
  assert.ok(
    r.notes.some((n) => /\/resource\/processes: the host ignores paging/.test(n)),
    r.notes.join('\n'),
  );
  // Every EPD fetched at both dataset paths, an unknown UUID asked once per path set.
  for (const e of REAL_EPDS) {
    assert.ok(front.stats.paths.includes(`/resource/processes/${e.uuid}`));
    assert.ok(front.stats.paths.includes(`/v1/epds/${e.uuid}`));
  }
  assert.ok(front.stats.paths.some((p) => /^\/resource\/processes\/00000000-/.test(p)));
  assert.is(r.timing.failed, 0);
  assert.ok(r.timing.worstMs >= r.timing.medianMs);
  // All but the 404s: the two unknown-UUID probes and the ZIP export (built without --zip-export).
  assert.is(r.caching.responses, r.timing.requests - 3);
});

check('never more requests in flight than --concurrency', async () => {
  const { front } = await node();
  const r = await runCheck(front.url, { ...FAST, concurrency: 2 });
  assert.is(r.ready, true);
  assert.ok(front.stats.maxInFlight <= 2, `max in flight ${front.stats.maxInFlight}`);
  assert.ok(front.stats.maxInFlight >= 2, 'the EPD fetches did overlap');
});

check('a listed EPD missing -> list fails, naming the UUID and the 404', async () => {
  const { front } = await node({ breakSite: (out) => rmSync(join(out, 'resource/processes', EPD.uuid)) });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { list: new RegExp(`/resource/processes/${EPD.uuid} is listed but not retrievable: .*HTTP 404`), health: /says "ok" but/ });
  assert.is(r.epds.retrieved, 5); // still retrievable under /v1/epds
  assert.ok(item(r, 'epds-valid').ok);
});

check('a wrong total -> list fails with the reported and actual counts', async () => {
  const { front } = await node({
    breakSite: (out) => {
      const p = join(out, 'resource/processes/index.xml');
      writeFileSync(p, readFileSync(p, 'utf8').replace('serviceapi:totalSize="5"', 'serviceapi:totalSize="6"'));
    },
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { list: /\/resource\/processes reports total 6 but holds 5 entries/ });
  assert.ok(item(r, 'endpoints').ok);
  assert.ok(item(r, 'epds-valid').ok);
});

check('an invalid EPD -> epds-valid fails with the rule and the URL path', async () => {
  const { front } = await node({
    breakSite: (out) => {
      const p = join(out, 'resource/processes', EPD.uuid);
      writeFileSync(p, readFileSync(p, 'utf8').replace(/^(<\?xml[^>]*\?>)/, '$1<!DOCTYPE processDataSet>'));
    },
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { 'epds-valid': new RegExp(`/resource/processes/${EPD.uuid}: 1 error\\(s\\), first: \\[xml-doctype\\]`) });
  assert.ok(r.findings.some((f) => f.ruleId === 'xml-doctype' && f.file === `/resource/processes/${EPD.uuid}`));
  assert.is(r.epds.valid, 4);
});

check('an EPD that breaks the ILCD+EPD schema -> epds-valid fails with the libxml2 error (same XSD as build)', async () => {
  const { front } = await node({
    breakSite: (out) => {
      const p = join(out, 'resource/processes', EPD.uuid);
      // Well-formed, right UUID and version, but an element the schema does not allow at this position.
      writeFileSync(
        p,
        readFileSync(p, 'utf8').replace('<common:dataSetVersion>', '<common:bogusElement>x</common:bogusElement><common:dataSetVersion>'),
      );
    },
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { 'epds-valid': new RegExp(`/resource/processes/${EPD.uuid}: \\d+ error\\(s\\)`) });
  const xsd = r.findings.find((f) => f.ruleId === 'xsd-invalid' && f.file === `/resource/processes/${EPD.uuid}`);
  assert.ok(xsd, 'an xsd-invalid finding for the broken EPD');
  assert.match(xsd.message, 'bogusElement');
  assert.is(r.epds.valid, 4);
});

check('an EPD whose version differs from the list entry -> list fails', async () => {
  const { front } = await node({
    breakSite: (out) => {
      const p = join(out, 'v1/epds', EPD.uuid);
      writeFileSync(
        p,
        readFileSync(p, 'utf8').replace(
          `<common:dataSetVersion>${EPD.version}</common:dataSetVersion>`,
          '<common:dataSetVersion>09.09.999</common:dataSetVersion>',
        ),
      );
    },
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { list: new RegExp(`/v1/epds/${EPD.uuid}: the document's version is 09.09.999, the list says ${EPD.version}`) });
});

check('health claiming more EPDs than served -> health fails', async () => {
  const { front } = await node({
    breakSite: (out) => {
      for (const f of ['healthz/index.json', 'v1/healthz/index.json']) {
        const p = join(out, f);
        const doc = JSON.parse(readFileSync(p, 'utf8'));
        doc.epds.listed = 7;
        writeFileSync(p, JSON.stringify(doc));
      }
    },
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { health: /\/healthz claims 7 listed EPDs; the list holds 5/ });
  for (const id of ['endpoints', 'list', 'epds-valid', 'content-types', 'cors', 'base-url']) assert.ok(item(r, id).ok, id);
});

check('a wrong content type on the XML list -> content-types fails, naming the URL and the type', async () => {
  const { front } = await node({
    hook: (url) =>
      url.pathname === '/resource/processes' && !url.searchParams.has('format') ? { headers: { 'content-type': 'text/html' } } : undefined,
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { 'content-types': /\/resource\/processes\?startIndex=0&pageSize=500 answered Content-Type "text\/html"/ });
  for (const id of ['endpoints', 'list', 'epds-valid', 'health', 'cors', 'base-url']) assert.ok(item(r, id).ok, id);
});

check('a missing CORS header -> cors fails', async () => {
  const { front } = await node({
    hook: (url) => (url.pathname.startsWith('/v1/epds/') ? { headers: { 'access-control-allow-origin': '' } } : undefined),
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { cors: /5 of \d+ answers lack Access-Control-Allow-Origin/ });
});

check('a server answering 500 -> endpoints fails with HTTP 500, retried a bounded number of times', async () => {
  const { front } = await node({ hook: () => ({ status: 500, body: 'boom' }) });
  const r = await runCheck(front.url, FAST);
  failsWith(r, {
    endpoints: /\/nodeinfo: HTTP 500 after 2 attempts/,
    health: /\/healthz could not be read/,
    'epds-valid': /no list could be read/,
  });
  // 2 nodeinfo + 2 health + 3 lists + 2 unknown-UUID probes, each tried twice: nothing more.
  assert.ok(front.stats.requests <= 18, `${front.stats.requests} requests`);
});

check('a server that hangs -> endpoints fails with the timeout, and check still ends', async () => {
  const { front } = await node({ hook: () => 'hang' });
  const t0 = Date.now();
  const r = await runCheck(front.url, { ...FAST, timeoutS: 0.3, retries: 0 });
  failsWith(r, { endpoints: /\/nodeinfo: no response \(timeout after 0.3 s\)/ });
  assert.ok(Date.now() - t0 < 10_000, `took ${Date.now() - t0} ms`);
});

check('a node built for another base URL -> base-url fails, naming both', async () => {
  const front = await startFront();
  running.push(front);
  const { out } = await buildExample({ baseUrl: 'https://epd.example.org/node' });
  await front.serve(out);
  const r = await runCheck(front.url, FAST);
  failsWith(r, { 'base-url': new RegExp(`nodeinfo baseURL is https://epd.example.org/node/resource; expected ${front.url}/resource`) });
});

check('a host that pages: all pages are read until the total (pageSize 2)', async () => {
  // Serve the XML list paged, as a dynamic soda4LCA node does.
  let xml;
  const { front, out } = await node({
    hook: (url) => {
      if (url.pathname !== '/resource/processes' || url.searchParams.has('format')) return undefined;
      const start = Number(url.searchParams.get('startIndex') ?? 0);
      const size = Number(url.searchParams.get('pageSize') ?? 500);
      const entries = xml.match(/<process:process [\s\S]*?<\/process:process>\n/g);
      const page = entries.slice(start, start + size);
      const head = xml
        .slice(0, xml.indexOf('<process:process '))
        .replace('serviceapi:startIndex="0"', `serviceapi:startIndex="${start}"`)
        .replace(/serviceapi:pageSize="\d+"/, `serviceapi:pageSize="${size}"`);
      return { body: `${head}${page.join('')}</serviceapi:dataSetList>\n` };
    },
  });
  xml = readFileSync(join(out, 'resource/processes/index.xml'), 'utf8');
  const r = await runCheck(front.url, { ...FAST, pageSize: 2 });
  assert.is(r.ready, true, JSON.stringify(r.items.filter((i) => !i.ok)));
  for (const s of [0, 2, 4]) assert.ok(front.stats.paths.includes(`/resource/processes?startIndex=${s}&pageSize=2`), `page at ${s}`);
  assert.ok(r.notes.includes('/resource/processes: the host honours startIndex/pageSize'), r.notes.join('\n'));
});

check('health saying "fail", built in the future or too old -> health fails with each reason', async () => {
  const { front } = await node({
    breakSite: (out) => {
      const p = join(out, 'healthz/index.json');
      const doc = JSON.parse(readFileSync(p, 'utf8'));
      Object.assign(doc, { status: 'fail', reasons: ['disk full'], builtAt: '2027-01-01T00:00:00.000Z' });
      writeFileSync(p, JSON.stringify(doc));
    },
  });
  const r = await runCheck(front.url, { ...FAST, paths: 'default' });
  failsWith(r, { health: /\/healthz says status "fail": disk full/ });
  assert.ok(item(r, 'health').evidence.some((e) => /builtAt 2027-01-01T00:00:00.000Z is in the future/.test(e)));
  const { front: f2 } = await node();
  const old = await runCheck(f2.url, { ...FAST, now: new Date('2026-03-01T00:00:00Z'), maxAgeDays: 30 });
  failsWith(old, { health: /builtAt 2026-01-02T03:04:05.000Z is 57.9 days old, over --max-age 30/ });
});

check('XML and JSON lists that disagree -> list fails, naming the UUID', async () => {
  const { front } = await node({
    breakSite: (out) => {
      const p = join(out, 'resource/processes/index.json');
      const doc = JSON.parse(readFileSync(p, 'utf8'));
      doc.data = doc.data.filter((d) => d.uuid !== EPD.uuid);
      doc.totalCount = doc.data.length;
      writeFileSync(p, JSON.stringify(doc));
    },
  });
  const r = await runCheck(front.url, FAST);
  failsWith(r, { list: new RegExp(`/resource/processes\\?format=json lacks 1 EPD\\(s\\) listed by /resource/processes: ${EPD.uuid}`) });
});

check('CLI: check <folder> serves it locally; --json is schema-valid; exit 0', async () => {
  const { out } = await buildExample();
  const io = fakeIo();
  const code = await main(['node', 'po-node', 'check', out, '--json', '--paths', 'both'], io);
  assert.is(code, 0, io.err());
  const report = JSON.parse(io.out());
  assert.equal(validateWithSchema('check-report', report), []);
  assert.is(report.local, true);
  assert.match(report.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(report.items.find((i) => i.id === 'base-url').evidence.some((e) => e.includes('http://localhost:8080/resource')));
});

check('zip-export: informational, never part of readiness; says whether the node serves per-EPD ZIP exports', async () => {
  const without = (await buildExample()).out;
  const io = fakeIo();
  assert.is(await main(['node', 'po-node', 'check', without, '--json'], io), 0, io.err());
  const report = JSON.parse(io.out());
  assert.equal(validateWithSchema('check-report', report), []);
  assert.ok(report.ready, 'a node without ZIP exports is ready');
  const no = item(report, 'zip-export');
  assert.equal([no.ok, no.informational], [true, true]);
  assert.match(no.evidence[0], /^no: \/resource\/processes\/[0-9a-f-]{36}\/zipexport\?format=zip&version=[\d.]+ answered HTTP 404/);

  const withZip = (await buildExample({ zipExport: true })).out;
  const text = fakeIo();
  assert.is(await main(['node', 'po-node', 'check', withZip], text), 0, text.err());
  assert.match(text.out(), /INFO {2}Per-EPD ZIP exports/);
  assert.match(
    text.out(),
    /yes: \/resource\/processes\/[0-9a-f-]{36}\/zipexport\S*: HTTP 200, application\/zip, \d+ KB, the EPD and \d+ dependencies/,
  );
  assert.match(text.out(), /READY: all 7 checklist items pass/);
});

check('CLI: text checklist, exit 1 when not ready; exit 2 on usage errors', async () => {
  const { out } = await buildExample();
  rmSync(join(out, 'resource/processes', EPD.uuid));
  const io = fakeIo();
  assert.is(await main(['node', 'po-node', 'check', out], io), 1);
  assert.match(io.out(), /FAIL {2}List complete and consistent/);
  assert.match(io.out(), /PASS {2}CORS/);
  assert.match(io.out(), /NOT READY: \d of 7 checklist items fail: .*list/);
  const bad = fakeIo();
  assert.is(await main(['node', 'po-node', 'check', join(out, 'nope')], bad), 2);
  assert.match(bad.err(), /is not a built po-node site/);
  assert.is(await main(['node', 'po-node', 'check', out, '--paths', 'x'], fakeIo()), 2);
  assert.is(await main(['node', 'po-node', 'check', out, '--concurrency', '0'], fakeIo()), 2);
});

function fakeIo() {
  let o = '';
  let e = '';
  return {
    stdout: /** @type {any} */ ({ isTTY: false, write: (s) => ((o += s), true) }),
    stderr: /** @type {any} */ ({ isTTY: false, write: (s) => ((e += s), true) }),
    env: { NO_COLOR: '1' },
    out: () => o,
    err: () => e,
  };
}

check.run();
