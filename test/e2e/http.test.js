// End to end: build the example node, serve the tree over real HTTP, fetch every endpoint of both path sets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildExample, cleanup, EXAMPLE_DATA, REAL_EPDS, sha256 } from '../helpers/index.js';
import { createSiteServer } from '../../dist/index.js';

const e2e = suite('e2e over HTTP');
let server;
e2e.before(async () => {
  const { out } = await buildExample({ zipExport: true });
  const site = createSiteServer(out, { port: 0 });
  const { url } = await site.listen();
  server = { base: url, close: () => site.close() };
});
e2e.after(async () => {
  await server?.close();
  await cleanup();
});

async function get(path) {
  const res = await fetch(server.base + path);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

e2e('default set: /resource/processes answers the XML list, format=json the JSON list', async () => {
  for (const path of ['/resource/processes', '/resource/processes/', '/resource/processes?pageSize=1000&startIndex=0']) {
    const r = await get(path);
    assert.is(r.status, 200, path);
    assert.match(r.type, /^application\/xml/);
    assert.match(r.body.toString(), 'serviceapi:totalSize="5"');
  }
  const j = await get('/resource/processes?format=json');
  assert.is(j.status, 200);
  assert.match(j.type, /^application\/json/);
  assert.is(JSON.parse(j.body.toString()).totalCount, 5);
});

e2e('default and v1 sets: every EPD by UUID, byte-identical, as XML', async () => {
  for (const epd of REAL_EPDS) {
    const src = sha256(readFileSync(join(EXAMPLE_DATA, epd.file)));
    for (const path of [`/resource/processes/${epd.uuid}`, `/v1/epds/${epd.uuid}`]) {
      const r = await get(path);
      assert.is(r.status, 200, path);
      assert.match(r.type, /^application\/xml/);
      assert.is(sha256(r.body), src, path);
    }
  }
});

e2e('nodeinfo at both paths, health at both paths, v1 list', async () => {
  const a = await get('/nodeinfo');
  const b = await get('/resource/nodeinfo');
  assert.is(a.status, 200);
  assert.match(a.type, /^application\/xml/);
  assert.is(a.body.toString(), b.body.toString());
  assert.match(a.body.toString(), '<nodeID>PO_NODE_EXAMPLE</nodeID>');
  for (const path of ['/healthz', '/v1/healthz']) {
    const h = await get(`${path}?format=json`);
    assert.is(h.status, 200, path);
    const doc = JSON.parse(h.body.toString());
    assert.is(doc.status, 'ok');
    assert.is(doc.epds.listed, 5);
  }
  const v1 = await get('/v1/epds?format=json');
  assert.is(JSON.parse(v1.body.toString()).data.length, 5);
});

e2e('every dependency an EPD references by UUID and type is served where present', async () => {
  const list = JSON.parse((await get('/resource/processes?format=json')).body.toString());
  let fetched = 0;
  for (const item of list.data) {
    for (const c of item.compliance) {
      const r = await get(`/resource/sources/${c.uuid}`);
      if (r.status === 200) {
        fetched++;
        assert.match(r.body.toString(), c.uuid);
      }
    }
  }
  assert.ok(fetched >= 5, `fetched ${fetched} compliance sources`);
});

e2e('unknown UUID answers 404', async () => {
  assert.is((await get('/resource/processes/00000000-0000-0000-0000-000000000000')).status, 404);
  assert.is((await get('/v1/epds/00000000-0000-0000-0000-000000000000')).status, 404);
});

e2e.run();
