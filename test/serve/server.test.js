// `createSiteServer` / `po-node serve`: every API URL of both path sets on the built example, and the soda4LCA
// list parameters computed from the built index.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSiteServer } from '../../dist/index.js';
import { child, childrenOf, parseXml } from '../../dist/parse/xml.js';
import { SAPI } from '../../dist/emit/soda4lca.js';
import { apiExpectations, checkApi, httpGet, ODD_DOC } from '../helpers/http.js';
import { BIN, buildExample, cleanup, REAL_EPDS, tmp } from '../helpers/index.js';

let site;
async function setup() {
  if (site) return site;
  const { out } = await buildExample({ zipExport: true });
  writeFileSync(join(out, `resource/sources/${ODD_DOC.source}_files/${ODD_DOC.name}`), ODD_DOC.bytes);
  const srv = createSiteServer(out, { port: 0 });
  const { port } = await srv.listen();
  const all = JSON.parse(readFileSync(join(out, 'resource/processes/index.json'), 'utf8')).data.map((d) => d.uuid);
  site = { out, srv, port, all };
  return site;
}

/** A served XML list page: its paging attributes and entry UUIDs. */
async function xmlPage(port, query) {
  const r = await httpGet(port, `/resource/processes?${query}`);
  assert.is(r.status, 200, `${query}: ${r.body}`);
  assert.is(r.headers['content-type'], 'application/xml; charset=UTF-8');
  const doc = parseXml(r.body.toString('utf8'));
  assert.ok(doc.ok);
  const a = (n) => Number(doc.root.attrs[`{${SAPI.serviceApi}}${n}`]);
  const uuids = childrenOf(doc.root, SAPI.process, 'process').map((p) => child(p, SAPI.serviceApi, 'uuid').text);
  return { totalSize: a('totalSize'), startIndex: a('startIndex'), pageSize: a('pageSize'), uuids };
}
async function jsonPage(port, query) {
  const r = await httpGet(port, `/resource/processes?${query}`);
  assert.is(r.status, 200, `${query}: ${r.body}`);
  assert.is(r.headers['content-type'], 'application/json;charset=UTF-8');
  const d = JSON.parse(r.body.toString('utf8'));
  return { ...d, uuids: d.data.map((x) => x.uuid) };
}

const S = suite('serve');
S.after(async () => {
  await site?.srv.close();
  await cleanup();
});

S('end to end: every URL of both path sets answers like the configured hosts (status, type, bytes, CORS, 404)', async () => {
  const { out, port } = await setup();
  // Requests with paging parameters get a computed page here (checked below), not the static document.
  const x = apiExpectations(out).map((e) => (/startIndex|pageSize|search/.test(e.url) ? { ...e, body: null } : e));
  const problems = await checkApi(port, x);
  assert.equal(problems, []);
  assert.ok(x.length > 150);
});

S('no list parameter: the published list documents, byte for byte', async () => {
  const { out, port } = await setup();
  assert.ok((await httpGet(port, '/resource/processes')).body.equals(readFileSync(join(out, 'resource/processes/index.xml'))));
  assert.ok(
    (await httpGet(port, '/resource/processes/?format=JSON')).body.equals(readFileSync(join(out, 'resource/processes/index.json'))),
  );
});

S('startIndex and pageSize page through the list; totalSize is the number of matches', async () => {
  const { port, all } = await setup();
  assert.is(all.length, 5);
  const p1 = await xmlPage(port, 'startIndex=0&pageSize=2');
  assert.equal([p1.totalSize, p1.startIndex, p1.pageSize], [5, 0, 2]);
  assert.equal(p1.uuids, all.slice(0, 2));
  const p3 = await xmlPage(port, 'startIndex=4&pageSize=2');
  assert.equal([p3.totalSize, p3.startIndex, p3.pageSize], [5, 4, 2]);
  assert.equal(p3.uuids, all.slice(4));
  const past = await xmlPage(port, 'startIndex=10&pageSize=2');
  assert.equal([past.totalSize, past.startIndex, past.pageSize, past.uuids.length], [5, 10, 2, 0]);
  const j = await jsonPage(port, 'format=json&startIndex=2&pageSize=2');
  assert.equal([j.startIndex, j.pageSize, j.totalCount], [2, 2, 5]);
  assert.equal(Object.keys(j), ['startIndex', 'pageSize', 'totalCount', 'data', 'uuids']);
  assert.equal(j.uuids, all.slice(2, 4));
  const jpast = await jsonPage(port, 'format=json&startIndex=5');
  assert.equal([jpast.totalCount, jpast.pageSize, jpast.data.length], [5, 500, 0]);
  // openLCA's request: pageSize 1000 from 0 gets everything in one page.
  const o = await xmlPage(port, 'pageSize=1000&startIndex=0');
  assert.equal([o.totalSize, o.pageSize, o.uuids], [5, 1000, all]);
});

S('search=true with name: every term, any case, any language; name alone does not filter (soda4LCA)', async () => {
  const { port, all } = await setup();
  assert.equal((await xmlPage(port, 'search=true&name=PARQUET')).uuids, ['2eb43850-0ab2-4068-afe5-218d69a096f8']);
  assert.equal((await xmlPage(port, 'search=true&name=schicht-parkett')).uuids, ['2eb43850-0ab2-4068-afe5-218d69a096f8']);
  const fire = await jsonPage(port, 'search=true&name=fire%20curtain&format=json');
  assert.equal([fire.totalCount, fire.uuids], [1, ['ee8863aa-7276-4896-b07a-713937a3134d']]);
  const none = await xmlPage(port, 'search=true&name=fire+parquet');
  assert.equal([none.totalSize, none.uuids.length], [0, 0]);
  assert.equal((await xmlPage(port, 'name=parquet')).uuids, all);
  const paged = await xmlPage(port, 'search=true&name=a&startIndex=1&pageSize=1');
  assert.ok(paged.totalSize >= 3 && paged.uuids.length === 1, `${paged.totalSize} matches for "a"`);
});

S('format: xml/json in any case; an unknown format is a clear 400', async () => {
  const { port } = await setup();
  assert.is((await jsonPage(port, 'format=Json&pageSize=1')).data.length, 1);
  assert.is((await xmlPage(port, 'format=XML&pageSize=1')).uuids.length, 1);
  const bad = await httpGet(port, '/resource/processes?format=csv');
  assert.is(bad.status, 400);
  assert.match(bad.body.toString(), /Unknown format "csv": use format=xml \(the default\) or format=json/);
  assert.is(bad.headers['access-control-allow-origin'], '*');
  for (const q of ['startIndex=-1', 'pageSize=0', 'pageSize=ten'])
    assert.is((await httpGet(port, `/resource/processes?${q}`)).status, 400, q);
});

S('version on /<uuid>: the published version answers, any other is 404', async () => {
  const { port } = await setup();
  for (const d of REAL_EPDS) {
    const ok = await httpGet(port, `/resource/processes/${d.uuid}?version=${d.version}`);
    assert.is(ok.status, 200, d.uuid);
    assert.is((await httpGet(port, `/resource/processes/${d.uuid}?version=99.99.999`)).status, 404);
    assert.is((await httpGet(port, `/v1/epds/${d.uuid}?version=${d.version}`)).status, 200);
  }
});

S('HEAD, OPTIONS, other methods, hidden files, path escapes', async () => {
  const { port } = await setup();
  const h = await httpGet(port, '/resource/processes', {}, 'HEAD');
  assert.equal([h.status, h.body.length, h.headers['content-type']], [200, 0, 'application/xml; charset=UTF-8']);
  const o = await httpGet(port, '/v1/epds', {}, 'OPTIONS');
  assert.equal([o.status, o.headers['access-control-allow-origin'], o.headers.allow], [204, '*', 'GET, HEAD, OPTIONS']);
  for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'PROPFIND']) {
    const r = await httpGet(port, '/resource/processes', {}, m);
    assert.equal([r.status, r.headers.allow], [405, 'GET, HEAD, OPTIONS'], m);
  }
  assert.is((await httpGet(port, '/.po-node.json')).status, 404);
  assert.is((await httpGet(port, '/../../etc/passwd')).status, 404);
  assert.is((await httpGet(port, '/%2e%2e/%2e%2e/etc/passwd')).status, 404);
});

S('static files: strong ETag and Last-Modified, alike for GET and HEAD; If-None-Match / If-Modified-Since give 304', async () => {
  const { port } = await setup();
  const url = `/resource/processes/${REAL_EPDS[0].uuid}`;
  const g = await httpGet(port, url);
  const h = await httpGet(port, url, {}, 'HEAD');
  const { etag, 'last-modified': lm } = g.headers;
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/, 'strong: no W/');
  assert.ok(!Number.isNaN(Date.parse(lm)), lm);
  assert.equal([h.headers.etag, h.headers['last-modified'], h.headers['content-length']], [etag, lm, String(g.body.length)]);
  assert.equal([g.headers['accept-ranges'], g.headers['cache-control']], ['bytes', 'no-cache']);
  const status = async (headers, method) => (await httpGet(port, url, headers, method)).status;
  const nm = await httpGet(port, url, { 'If-None-Match': etag });
  assert.equal([nm.status, nm.body.length, nm.headers.etag, nm.headers['last-modified']], [304, 0, etag, lm]);
  assert.is(await status({ 'If-None-Match': etag }, 'HEAD'), 304);
  assert.is(await status({ 'If-None-Match': `"nope", W/${etag}` }), 304, 'weak comparison, list');
  assert.is(await status({ 'If-None-Match': '*' }), 304);
  assert.is(await status({ 'If-None-Match': '"nope"' }), 200);
  assert.is(await status({ 'If-Modified-Since': lm }), 304);
  assert.is(await status({ 'If-Modified-Since': new Date(Date.parse(lm) + 3600e3).toUTCString() }), 304);
  assert.is(await status({ 'If-Modified-Since': new Date(Date.parse(lm) - 1000).toUTCString() }), 200);
  assert.is(await status({ 'If-Modified-Since': 'not a date' }), 200);
  // RFC 9110 §13.2.2: If-None-Match decides, If-Modified-Since is then ignored.
  assert.is(await status({ 'If-None-Match': '"nope"', 'If-Modified-Since': lm }), 200);
  assert.is(await status({ 'If-Match': '"nope"' }), 412);
  assert.is(await status({ 'If-Match': etag }), 200);
  assert.is(await status({ 'If-Unmodified-Since': new Date(Date.parse(lm) - 1000).toUTCString() }), 412);
  // Each representation has its own tag: the .gz copy is another file.
  const { out } = site;
  const u = REAL_EPDS[3].uuid;
  writeFileSync(join(out, 'resource/processes', `${u}.gz`), gzipSync(readFileSync(join(out, 'resource/processes', u))));
  const plain = await httpGet(port, `/resource/processes/${u}`);
  const gz = await httpGet(port, `/resource/processes/${u}`, { 'Accept-Encoding': 'gzip' });
  assert.is.not(plain.headers.etag, gz.headers.etag);
  const gz304 = await httpGet(port, `/resource/processes/${u}`, { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag });
  assert.equal([gz304.status, gz304.headers.etag], [304, gz.headers.etag]);
});

S('Range: one byte range is a 206 with Content-Range; unsatisfiable is 416 bytes */size; several ranges get the whole body', async () => {
  const { port, out } = await setup();
  const u = REAL_EPDS[2].uuid;
  const url = `/resource/processes/${u}`;
  const bytes = readFileSync(join(out, 'resource/processes', u));
  const n = bytes.length;
  const part = async (range, extra = {}) => httpGet(port, url, { Range: range, ...extra });
  for (const [range, from, to] of /** @type {[string, number, number][]} */ ([
    ['bytes=0-9', 0, 9],
    ['bytes=10-', 10, n - 1],
    ['bytes=-10', n - 10, n - 1],
    [`bytes=5-${n * 10}`, 5, n - 1],
    [`bytes=-${n * 10}`, 0, n - 1],
    [`BYTES = ${n - 1}-${n - 1}`, n - 1, n - 1],
  ])) {
    const r = await part(range);
    assert.is(r.status, 206, range);
    assert.is(r.headers['content-range'], `bytes ${from}-${to}/${n}`, range);
    assert.is(r.headers['content-length'], String(to - from + 1), range);
    assert.ok(r.body.equals(bytes.subarray(from, to + 1)), range);
    assert.is(r.headers['content-type'], 'application/xml; charset=UTF-8');
  }
  for (const range of [`bytes=${n}-`, `bytes=${n + 5}-${n + 9}`, 'bytes=-0', `bytes=${'9'.repeat(40)}-`]) {
    const r = await part(range);
    assert.equal([r.status, r.headers['content-range']], [416, `bytes */${n}`], range);
  }
  // Not multipart here: the whole body, as RFC 9110 allows; malformed or other units are ignored the same way.
  for (const range of ['bytes=0-1,4-5', 'bytes=abc', 'bytes=9-2', 'items=0-1', 'bytes=']) {
    const r = await part(range);
    assert.equal([r.status, r.headers['content-range'], r.body.equals(bytes)], [200, undefined, true], range);
  }
  const { etag, 'last-modified': lm } = (await httpGet(port, url, {}, 'HEAD')).headers;
  assert.is((await part('bytes=0-9', { 'If-Range': etag })).status, 206);
  assert.is((await part('bytes=0-9', { 'If-Range': lm })).status, 206);
  assert.is((await part('bytes=0-9', { 'If-Range': '"old"' })).status, 200, 'changed since: whole body');
  assert.is((await part('bytes=0-9', { 'If-Range': `W/${etag}` })).status, 200, 'a weak tag never matches');
  const head = await httpGet(port, url, { Range: 'bytes=0-9' }, 'HEAD');
  assert.equal([head.status, head.headers['content-length'], head.body.length], [200, String(n), 0]);
  // The range applies to the bytes sent: those of the .gz copy for a gzip client, as nginx gzip_static.
  writeFileSync(join(out, 'resource/processes', `${u}.gz`), gzipSync(bytes));
  const gz = readFileSync(join(out, 'resource/processes', `${u}.gz`));
  const rg = await part('bytes=0-1', { 'Accept-Encoding': 'gzip' });
  const got = [rg.status, rg.headers['content-encoding'], rg.headers['content-range'], [...rg.body]];
  assert.equal(got, [206, 'gzip', `bytes 0-1/${gz.length}`, [0x1f, 0x8b]]);
  const bad = await part(`bytes=${gz.length}-`, { 'Accept-Encoding': 'gzip' });
  assert.equal([bad.status, bad.headers['content-encoding']], [416, undefined], 'an error text is not gzip');
});

S('paged lists and search: an ETag from the built lists and the parameters; If-None-Match gives 304', async () => {
  const { port } = await setup();
  const a = await httpGet(port, '/resource/processes?startIndex=0&pageSize=2');
  const etag = a.headers.etag;
  assert.match(etag, /^"p-[\w-]+"$/);
  assert.is((await httpGet(port, '/resource/processes?startIndex=0&pageSize=2', {}, 'HEAD')).headers.etag, etag);
  assert.is((await httpGet(port, '/resource/processes?pageSize=2&startIndex=0')).headers.etag, etag, 'same page, same tag');
  const others = ['startIndex=1&pageSize=2', 'startIndex=0&pageSize=2&format=json', 'search=true&name=a&pageSize=2'];
  for (const q of others) assert.is.not((await httpGet(port, `/resource/processes?${q}`)).headers.etag, etag, q);
  const c = await httpGet(port, '/resource/processes?startIndex=0&pageSize=2', { 'If-None-Match': etag });
  assert.equal([c.status, c.body.length, c.headers.etag], [304, 0, etag]);
});

S('precompressed .gz is sent to gzip clients only', async () => {
  const { out, port } = await setup();
  const u = REAL_EPDS[1].uuid;
  const plain = readFileSync(join(out, 'resource/processes', u));
  writeFileSync(join(out, 'resource/processes', `${u}.gz`), gzipSync(plain));
  const gz = await httpGet(port, `/resource/processes/${u}`, { 'Accept-Encoding': 'gzip' });
  assert.equal([gz.headers['content-encoding'], gunzipSync(gz.body).equals(plain)], ['gzip', true]);
  assert.ok((await httpGet(port, `/resource/processes/${u}`)).body.equals(plain));
});

S('a folder that is not a built site is refused with a hint', () => {
  assert.throws(
    () => createSiteServer(tmp()),
    (e) => e.name === 'InputError' && /not a built po-node site/.test(e.message),
  );
});

S('po-node serve (CLI) listens on 127.0.0.1 and stops on SIGTERM', async () => {
  const { out } = await setup();
  const child = spawn(process.execPath, [BIN, 'serve', out, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise((ok, fail) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /at (http:\/\/127\.0\.0\.1:(\d+))\//.exec(err);
      if (m) ok(m);
    });
    child.on('exit', () => fail(new Error(err)));
  });
  const r = await httpGet(Number(url[2]), '/healthz');
  assert.is(r.status, 200);
  assert.is(JSON.parse(r.body).status, 'ok');
  const exited = new Promise((ok) => child.on('exit', (code) => ok(code)));
  child.kill('SIGTERM');
  assert.is(await exited, 0);
});

S.run();
