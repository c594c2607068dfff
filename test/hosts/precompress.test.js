// Precompressed siblings (<file>.gz, <file>.br) on a 300-EPD corpus: the build writes them deterministically next to the
// lists, pages and HTML (never next to datasets), and real nginx and Apache and `serve` answer with them when the client
// accepts the encoding: Content-Encoding, Vary, the document's own Content-Type, bytes that decompress to the file.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSiteServer, runCheck, validateWithSchema } from '../../dist/index.js';
import { acceptedEncodings, isPrecompressedSibling, largeCompressedDocuments } from '../../dist/emit/precompress.js';
import { fillTemplate } from '../../dist/hosts/template.js';
import { buildReportJson } from '../../dist/report/json.js';
import { buildHostCorpus, makeCorpus } from '../helpers/corpus.js';
import { httpGet } from '../helpers/http.js';
import { build, cleanup, tmp } from '../helpers/index.js';
import { APACHE, APACHE_MODULES, missing, NGINX, NGINX_BROTLI, startApache, startNginx } from '../helpers/servers.js';

const N = 300;
const P = suite('hosts: precompressed .gz/.br siblings');

let ctx;
async function setup() {
  if (ctx) return ctx;
  const c = await buildHostCorpus('po-node-precompress-', N, { deploy: { nginxBrotli: Boolean(NGINX_BROTLI) } });
  assert.is(c.result.summary.epds, N);
  const uuid = JSON.parse(c.file('resource/processes/index.json').toString()).data[0].uuid;
  ctx = { ...c, uuid };
  return ctx;
}

/** Every file below dir, relative, `/` separators. */
function walk(dir, rel = '') {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const r = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? walk(dir, r) : [r];
  });
}

P('siblings: lists, pages and HTML above 1 KiB, none for datasets or health; both decompress to the file', async () => {
  const { out, file, result } = await setup();
  const all = walk(out);
  const siblings = all.filter((f) => /\.(gz|br)$/.test(f));
  for (const f of siblings) {
    assert.ok(isPrecompressedSibling(f), f);
    const doc = f.slice(0, -3);
    const back = f.endsWith('.gz') ? gunzipSync(file(f)) : brotliDecompressSync(file(f));
    assert.ok(back.equals(file(doc)), `${f} decompresses to ${doc}`);
  }
  for (const f of ['resource/processes/index.xml', 'resource/processes/index.json', 'v1/epds/index.json', 'index.html']) {
    assert.ok(siblings.includes(`${f}.gz`) && siblings.includes(`${f}.br`), f);
  }
  assert.ok(siblings.includes('resource/processes/pages/100/100.xml.br'));
  assert.ok(siblings.includes('index.html.gz') && siblings.includes('epd/index.json.br'), 'the catalogue and its index');
  assert.not.ok(
    siblings.some((f) => /^epd\/[^/]+\/index\.html\./.test(f)),
    'no copies of the pages per EPD',
  );
  assert.not.ok(siblings.some((f) => /\/[0-9a-f-]{36}\.(gz|br)$/.test(f) || f.startsWith('healthz/') || f.startsWith('v1/healthz/')));
  // Below the threshold: none (the probe page of one entry is about 1 KB in XML; nodeinfo is smaller).
  assert.not.ok(existsSync(join(out, 'nodeinfo/index.xml.gz')));
  // gzip header: no name, mtime 0, no extra flag (level 8: zlib sets 2 only at level 9), Unix: the same bytes on every build.
  assert.equal([...file('resource/processes/index.xml.gz').subarray(0, 10)], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const bytes = siblings.reduce((n, f) => n + file(f).length, 0);
  assert.equal(result.precompressed, { encodings: ['gzip', 'br'], files: siblings.length, bytes });
  const report = JSON.parse(buildReportJson(result));
  assert.equal(validateWithSchema('build-report', report), []);
  // Paging counts its page files alone.
  assert.is(result.paging.files, 18);
});

P('accepted encodings: q values, q=0 refuses, * stands for the others, brotli first on a tie', () => {
  /** @type {import('../../dist/config/load.js').Encoding[]} */
  const both = ['gzip', 'br'];
  assert.equal(acceptedEncodings(undefined, both), []);
  assert.equal(acceptedEncodings('gzip, deflate, br', both), ['br', 'gzip']);
  assert.equal(acceptedEncodings('gzip;q=1.0, br;q=0.5', both), ['gzip', 'br']);
  assert.equal(acceptedEncodings('gzip;q=0, br;q=0', both), []);
  assert.equal(acceptedEncodings('br;q=0, *', both), ['gzip']);
  assert.equal(acceptedEncodings('identity', both), []);
  assert.equal(acceptedEncodings('x-gzip', both), ['gzip']);
  assert.equal(acceptedEncodings('GZIP ; Q=0.8', both), ['gzip']);
});

P('config: precompress false writes none; hosts that compress on their own get none by default; minBytes', async () => {
  const { out: o1, result: r1 } = await buildExample({ precompress: false });
  assert.not.ok(walk(o1).some((f) => /\.(gz|br)$/.test(f)));
  assert.is(r1.precompressed, undefined);
  const { out: o2 } = await buildExample({ hosts: ['github-pages', 'netlify'] });
  assert.not.ok(
    walk(o2).some((f) => /\.(gz|br)$/.test(f)),
    'GitHub Pages and Netlify compress themselves',
  );
  const { out: o4 } = await buildExample({ hosts: ['s3-cloudfront'] });
  assert.not.ok(
    walk(o4).some((f) => /\.(gz|br)$/.test(f)),
    'with CloudFront: only documents above 10,000,000 bytes',
  );
  const { out: o3 } = await buildExample({ precompress: { encodings: ['gzip'], minBytes: 0 } });
  const s3 = walk(o3).filter((f) => /\.(gz|br)$/.test(f));
  assert.ok(s3.includes('nodeinfo/index.xml.gz') && !s3.some((f) => f.endsWith('.br')));
  const bad = await buildExample({ precompress: { encodings: ['zstd'] } }).catch((e) => e);
  assert.match(String(bad?.message), /precompress/);
});

async function buildExample(extra) {
  const dir = tmp('po-node-precompress-cfg-');
  makeCorpus(join(dir, 'corpus'), 3);
  const cfg = { inputs: [join(dir, 'corpus')], out: join(dir, 'site'), zipExport: false, ...extra };
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify(cfg));
  const result = await build({ config: join(dir, 'po-node.config.json') });
  return { out: cfg.out, result };
}

/**
 * The answers of a host to the lists, a page and the catalogue, with and without Accept-Encoding; returns
 * the problems. `encodings`: those the host serves from siblings.
 */
async function checkEncodings(get, c, encodings) {
  const problems = [];
  const urls = {
    '/resource/processes': 'resource/processes/index.xml',
    '/resource/processes?format=json': 'resource/processes/index.json',
    '/resource/processes?startIndex=100&pageSize=100': 'resource/processes/pages/100/100.xml',
    '/resource/processes?format=json&pageSize=100&startIndex=100': 'resource/processes/pages/100/100.json',
    '/v1/epds': 'v1/epds/index.json',
    '/': 'index.html',
  };
  const decode = { gzip: gunzipSync, br: brotliDecompressSync };
  for (const [url, rel] of Object.entries(urls)) {
    const want = c.file(rel);
    const plain = await get(url, {});
    if (plain.status !== 200 || plain.headers['content-encoding'] || !plain.body.equals(want)) {
      problems.push(`${url} without Accept-Encoding: ${plain.status} ${plain.headers['content-encoding'] ?? ''}, not the file`);
    }
    const type = plain.headers['content-type'];
    for (const e of encodings) {
      const r = await get(url, { 'accept-encoding': e === 'br' ? 'gzip, deflate, br' : 'gzip, deflate' });
      const what = `${url} with ${e}`;
      if (r.status !== 200) problems.push(`${what}: status ${r.status}`);
      else if (r.headers['content-encoding'] !== e) problems.push(`${what}: Content-Encoding ${r.headers['content-encoding']}`);
      else if (!decode[e](r.body).equals(want)) problems.push(`${what}: does not decompress to ${rel}`);
      if (r.headers['content-type'] !== type) problems.push(`${what}: Content-Type ${r.headers['content-type']}, plain ${type}`);
      if (!/accept-encoding/i.test(r.headers.vary ?? '')) problems.push(`${what}: Vary ${r.headers.vary}`);
    }
    // Refused by q=0: the file itself.
    const refused = await get(url, { 'accept-encoding': 'gzip;q=0, br;q=0' });
    if (refused.headers['content-encoding'] || !refused.body.equals(want))
      problems.push(`${url} with q=0: ${refused.headers['content-encoding']}`);
  }
  // A dataset has no sibling: its bytes as published (compressed on the fly where the server does that: mod_deflate).
  const ds = await get(`/resource/processes/${c.uuid}`, { 'accept-encoding': 'gzip' });
  const body = ds.headers['content-encoding'] === 'gzip' ? gunzipSync(ds.body) : ds.body;
  if (!body.equals(c.file(`resource/processes/${c.uuid}`))) problems.push('dataset: not as published');
  return problems;
}

if (!NGINX) missing(P, 'nginx', 'nginx serves the siblings');
else
  P('nginx serves the siblings (gzip_static; brotli_static where the module is installed)', async () => {
    const c = await setup();
    const conf = readFileSync(join(c.deploy, 'nginx/po-node.conf'), 'utf8');
    assert.match(conf, NGINX_BROTLI ? /^ {4}brotli_static on;$/m : /^ {4}# brotli_static on;$/m);
    const server = await startNginx(c.dir, c.deploy, c.port, { modules: NGINX_BROTLI ? [NGINX_BROTLI] : [] });
    try {
      const problems = await checkEncodings((u, h) => httpGet(c.port, u, h), c, NGINX_BROTLI ? ['gzip', 'br'] : ['gzip']);
      assert.equal(problems, [], problems.join('\n'));
      // check says that the lists come back compressed.
      const r = await runCheck(`http://127.0.0.1:${c.port}`, { paths: 'default', pageSize: 100, retries: 0, timeoutS: 10 });
      const enc = NGINX_BROTLI ? 'br' : 'gzip';
      assert.ok(r.notes.includes(`/resource/processes: answered compressed (Content-Encoding: ${enc})`), r.notes.join('\n'));
    } finally {
      await server.stop();
    }
  });

if (!APACHE || !APACHE_MODULES) missing(P, 'apache2', 'Apache serves the siblings');
else
  P('Apache serves the siblings, with Debian mime.conf and mod_deflate enabled and no double compression', async () => {
    const c = await setup();
    // What Debian enables by default: .gz typed, .br a language (Breton), mod_deflate on XML, JSON and HTML.
    const server = await startApache(c.dir, c.deploy, c.port, {
      modules: ['filter', 'deflate'],
      server:
        'AddType application/x-gzip .gz .tgz\nAddLanguage br .br\nAddOutputFilterByType DEFLATE text/html application/xml application/json\n',
    });
    try {
      const problems = await checkEncodings((u, h) => httpGet(c.port, u, h), c, ['gzip', 'br']);
      assert.equal(problems, [], `${problems.join('\n')}\n${server.output()}`);
    } finally {
      await server.stop();
    }
  });

P('serve: the siblings by Accept-Encoding, HEAD, Range and an ETag per representation', async () => {
  const c = await setup();
  const srv = createSiteServer(c.out, { port: 0 });
  const { port } = await srv.listen();
  try {
    const get = (u, h, m) => httpGet(port, u, h, m);
    const problems = await checkEncodings(get, c, ['gzip', 'br']);
    assert.equal(problems, [], problems.join('\n'));
    const url = '/resource/processes?startIndex=100&pageSize=100';
    const gz = c.file('resource/processes/pages/100/100.xml.gz');
    const head = await get(url, { 'accept-encoding': 'gzip' }, 'HEAD');
    assert.equal([head.headers['content-encoding'], Number(head.headers['content-length']), head.body.length], ['gzip', gz.length, 0]);
    const part = await get(url, { 'accept-encoding': 'gzip', range: 'bytes=0-99' });
    assert.is(part.status, 206);
    assert.ok(part.body.equals(gz.subarray(0, 100)), 'a range of the compressed bytes');
    const tags = new Set();
    for (const ae of ['', 'gzip', 'br']) tags.add((await get(url, ae ? { 'accept-encoding': ae } : {})).headers.etag);
    assert.is(tags.size, 3, 'one ETag per representation');
    const etag = (await get(url, { 'accept-encoding': 'br' })).headers.etag;
    assert.is((await get(url, { 'accept-encoding': 'br', 'if-none-match': etag })).status, 304);
  } finally {
    await srv.close();
  }
});

P('CloudFront Function: the copy of a document above the limit the viewer accepts; others untouched', async () => {
  const c = await setup();
  const paths = ['resource/processes/index.xml', 'v1/epds/index.json', 'nodeinfo/index.xml'];
  const files = paths.map((path) => ({ path, contentType: '', source: { text: '' } }));
  // The limit is 10,000,000 bytes; 100,000 stands in for it on this corpus (the lists are larger, nodeinfo is not).
  const large = await largeCompressedDocuments(c.out, files, 100_000);
  assert.equal(large, { '/resource/processes/index.xml': ['.br', '.gz'], '/v1/epds/index.json': ['.br', '.gz'] });
  const code = fillTemplate('hosts/cloudfront-function.js', { LAST_PAGES: '{}', PRECOMPRESSED: JSON.stringify(large) });
  const handler = runInNewContext(`${code}\nhandler`, {});
  const uri = (url, ae) => {
    const headers = ae === undefined ? {} : { 'accept-encoding': { value: ae } };
    return handler({ request: { method: 'GET', uri: url, querystring: {}, headers } }).uri;
  };
  assert.is(uri('/resource/processes'), '/resource/processes/index.xml');
  assert.is(uri('/resource/processes', 'gzip, deflate, br'), '/resource/processes/index.xml.br');
  assert.is(uri('/resource/processes/', 'gzip'), '/resource/processes/index.xml.gz');
  assert.is(uri('/v1/epds', 'br;q=0, gzip;q=0.5'), '/v1/epds/index.json.gz');
  assert.is(uri('/v1/epds', 'gzip;q=0'), '/v1/epds/index.json');
  assert.is(uri('/nodeinfo', 'gzip, br'), '/nodeinfo/index.xml');
  // The emitted function (the real limit): nothing on this corpus is that large.
  const emitted = readFileSync(join(c.deploy, 's3-cloudfront/cloudfront-function.js'), 'utf8');
  assert.match(emitted, /^var PRECOMPRESSED = \{\};$/m);
});

P.after(cleanup);
P.run();
