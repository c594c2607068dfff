// Pre-paged EPD lists on a 300-EPD corpus: real nginx and Apache, the CloudFront Function run in node, and `serve`
// (which pages dynamically and must give the bytes of the page files). Odd pages fall back to the whole list.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSiteServer, runCheck, validateWithSchema } from '../../dist/index.js';
import { buildReportJson } from '../../dist/report/json.js';
import { buildHostCorpus } from '../helpers/corpus.js';
import { httpGet } from '../helpers/http.js';
import { EXAMPLE_CONFIG, EXAMPLE_DATA, build, cleanup, tmp } from '../helpers/index.js';
import { APACHE, APACHE_MODULES, missing, NGINX, startApache, startNginx } from '../helpers/servers.js';

const N = 300;
const LIST = '/resource/processes';

let ctx;
async function setup() {
  if (ctx) return ctx;
  // Level 1 (and no ZIP exports, the default): the lists are what is tested, and the build stays fast.
  ctx = await buildHostCorpus('po-node-paging-', N);
  const r = ctx.result;
  assert.is(r.summary.epds, N);
  assert.ok(r.paging && r.paging.files === 18 && r.paging.bytes > 0, JSON.stringify(r.paging));
  return ctx;
}

const uuidsXml = (body) => [...body.toString().matchAll(/<serviceapi:uuid>([^<]+)</g)].map((m) => m[1]);
const attrsXml = (body) => {
  const m = /serviceapi:totalSize="(\d+)" serviceapi:startIndex="(\d+)" serviceapi:pageSize="(\d+)"/.exec(body.toString());
  return m ? { totalSize: +m[1], startIndex: +m[2], pageSize: +m[3] } : undefined;
};

/** What a host that routes on the query answers; `get(url)` gives {status, body}. Returns the problems. */
async function checkPaging(get, { file }, { dynamic = false } = {}) {
  const problems = [];
  const all = JSON.parse(file('resource/processes/index.json')).data.map((d) => d.uuid);
  const expect = async (url, want, what) => {
    const r = await get(url);
    if (r.status !== 200) return problems.push(`${url}: status ${r.status}`);
    if (!r.body.equals(want)) problems.push(`${url}: not ${what} (${r.body.length} bytes, expected ${want.length})`);
  };
  // The example, in XML and JSON, parameters in any order, with search=true and format.
  const r = await get(`${LIST}?startIndex=100&pageSize=100`);
  assert.equal(attrsXml(r.body), { totalSize: N, startIndex: 100, pageSize: 100 }, 'XML page attributes');
  assert.equal(uuidsXml(r.body), all.slice(100, 200), 'entries 100-199');
  const j = await get(`${LIST}?format=json&startIndex=100&pageSize=100`);
  const page = JSON.parse(j.body.toString());
  assert.equal([page.totalCount, page.startIndex, page.pageSize], [N, 100, 100]);
  assert.equal(
    page.data.map((d) => d.uuid),
    all.slice(100, 200),
  );
  const xml100 = file('resource/processes/pages/100/100.xml');
  const json100 = file('resource/processes/pages/100/100.json');
  for (const u of ['startIndex=100&pageSize=100', 'pageSize=100&startIndex=100', 'search=true&pageSize=100&startIndex=100&format=xml'])
    await expect(`${LIST}?${u}`, xml100, 'page 100/100 XML');
  for (const u of ['format=json&startIndex=100&pageSize=100', 'pageSize=100&format=JSON&search=true&startIndex=100'])
    await expect(`${LIST}?${u}`, json100, 'page 100/100 JSON');
  // ilcdlib's probe, openLCA's first page, soda4LCA's default size, a missing startIndex (0) and the empty page past the end.
  await expect(`${LIST}?format=xml&startIndex=0&pageSize=1&search=true`, file('resource/processes/pages/1/0.xml'), 'the probe');
  await expect(`${LIST}?pageSize=1000&startIndex=0`, file('resource/processes/pages/1000/0.xml'), 'page 1000/0');
  await expect(`${LIST}/?startIndex=0&pageSize=500&format=json`, file('resource/processes/pages/500/0.json'), 'page 500/0');
  await expect(`${LIST}?pageSize=100`, file('resource/processes/pages/100/0.xml'), 'page 100/0');
  await expect(`${LIST}?startIndex=300&pageSize=100&format=json`, file('resource/processes/pages/100/300.json'), 'the empty page');
  assert.equal(uuidsXml(file('resource/processes/pages/100/300.xml')), []);
  if (dynamic) return problems;
  // What no page file answers: the whole list, as before.
  const xml = file('resource/processes/index.xml');
  for (const u of ['startIndex=0&pageSize=37', 'startIndex=50&pageSize=100', 'startIndex=1&pageSize=1', 'startIndex=400&pageSize=100'])
    await expect(`${LIST}?${u}`, xml, 'the whole list');
  for (const u of ['search=true&name=x&startIndex=0&pageSize=100', 'startIndex=..%2F..%2F&pageSize=100', 'startIndex=0100&pageSize=100'])
    await expect(`${LIST}?${u}`, xml, 'the whole list');
  await expect(`${LIST}?format=json&startIndex=0&pageSize=37`, file('resource/processes/index.json'), 'the whole JSON list');
  return problems;
}

const Paging = suite('hosts: pre-paged lists on a 300-EPD corpus');

/** The example node with `extra` config keys, built into a temp folder. */
async function buildExampleWith(extra) {
  const dir = tmp('po-node-paging-cfg-');
  const cfg = { ...JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8')), inputs: [EXAMPLE_DATA], out: join(dir, 'site'), ...extra };
  delete cfg.$schema;
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify(cfg));
  const result = await build({ config: join(dir, 'po-node.config.json') });
  return { dir, out: cfg.out, result };
}

Paging('paging.pageSizes chooses the sizes; [] writes none; the JSON report carries the bytes', async () => {
  const { out, result } = await buildExampleWith({ paging: { pageSizes: [2] } });
  assert.equal(readdirSync(join(out, 'resource/processes/pages')), ['2']);
  // 5 EPDs in pages of 2: 0, 2, 4 (one entry) and the empty page at 6.
  // The page files (their precompressed .gz/.br copies aside: test/hosts/precompress.test.js).
  const files = readdirSync(join(out, 'resource/processes/pages/2'))
    .filter((f) => !/\.(gz|br)$/.test(f))
    .sort();
  assert.equal(files, ['0.json', '0.xml', '2.json', '2.xml', '4.json', '4.xml', '6.json', '6.xml']);
  const report = JSON.parse(buildReportJson(result));
  assert.equal(validateWithSchema('build-report', report), []);
  assert.equal([report.paging.files, report.paging.pageSizes], [8, [2]]);
  assert.ok(report.paging.bytes > 0);
  const none = await buildExampleWith({ paging: { pageSizes: [] } });
  assert.not.ok(existsSync(join(none.out, 'resource/processes/pages')));
  assert.is(none.result.paging, undefined);
  const bad = await buildExampleWith({ paging: { pageSizes: [0] } }).catch((e) => e);
  assert.match(String(bad?.message), /pageSizes/);
});

Paging('the build writes exact pages of both lists and reports their bytes', async () => {
  const { file } = await setup();
  const full = JSON.parse(file('resource/processes/index.json'));
  const p = JSON.parse(file('resource/processes/pages/500/0.json'));
  assert.equal([p.startIndex, p.pageSize, p.totalCount, p.data.length], [0, 500, N, N]);
  assert.equal(p.data, full.data);
  assert.equal(attrsXml(file('resource/processes/pages/1/0.xml')), { totalSize: N, startIndex: 0, pageSize: 1 });
  // A page is the whole list's document with its own attributes and fewer entries.
  const whole = file('resource/processes/index.xml').toString();
  const entries = whole.split('<process:process ').slice(1);
  const one = file('resource/processes/pages/100/200.xml').toString();
  assert.is(one.split('<process:process ').slice(1).join('<process:process '), entries.slice(200, 300).join('<process:process '));
});

if (!NGINX) missing(Paging, 'nginx', 'nginx pages');
else
  Paging('nginx answers pages from the page files and the whole list otherwise', async () => {
    const c = await setup();
    const server = await startNginx(c.dir, c.deploy, c.port);
    try {
      const problems = await checkPaging((u) => httpGet(c.port, u), c);
      assert.equal(problems, [], problems.join('\n'));
      // check reads the list page by page from the page files and says that the node pages.
      const r = await runCheck(`http://127.0.0.1:${c.port}`, { paths: 'default', pageSize: 100, retries: 0, timeoutS: 10 });
      assert.equal(r.epds.listed, N);
      assert.ok(r.notes.includes('/resource/processes: the host honours startIndex/pageSize'), r.notes.join('\n'));
    } finally {
      await server.stop();
    }
  });

if (!APACHE || !APACHE_MODULES) missing(Paging, 'apache2', 'Apache pages');
else
  Paging('Apache answers pages from the page files and the whole list otherwise', async () => {
    const c = await setup();
    const server = await startApache(c.dir, c.deploy, c.port);
    try {
      const problems = await checkPaging((u) => httpGet(c.port, u), c);
      assert.equal(problems, [], `${problems.join('\n')}\n${server.output()}`);
    } finally {
      await server.stop();
    }
  });

Paging('the CloudFront Function maps pages onto the page files', async () => {
  const c = await setup();
  const handler = runInNewContext(`${readFileSync(join(c.deploy, 's3-cloudfront/cloudfront-function.js'), 'utf8')}\nhandler`, {});
  const get = (url) => {
    const u = new URL(url, 'http://x');
    const querystring = {};
    for (const [k, v] of u.searchParams) querystring[k] ??= { value: v };
    const req = handler({ request: { method: 'GET', uri: u.pathname, querystring, headers: {} } });
    try {
      return { status: 200, body: c.file(req.uri.slice(1)) };
    } catch {
      return { status: 404, body: Buffer.alloc(0) };
    }
  };
  const problems = await checkPaging(get, c);
  assert.equal(problems, [], problems.join('\n'));
});

Paging('serve pages dynamically with the bytes of the page files', async () => {
  const c = await setup();
  const srv = createSiteServer(c.out, { port: 0 });
  const { port } = await srv.listen();
  try {
    const problems = await checkPaging((u) => httpGet(port, u), c, { dynamic: true });
    assert.equal(problems, [], problems.join('\n'));
  } finally {
    await srv.close();
  }
});

Paging.after(cleanup);
Paging.run();
