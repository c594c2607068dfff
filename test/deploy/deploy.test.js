// po-node deploy against a real S3 API server (s3rver) on 127.0.0.1: content types, no-op second deploy, exactly the
// changed objects, dry run, --max-deletes, CloudFront invalidation (stand-in API), and a reader polling during a deploy.
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deploy, validateWithSchema } from '../../dist/index.js';
import { siteContentType } from '../../dist/site/routes.js';
import { invalidationPaths, urlsOf } from '../../dist/deploy/invalidation.js';
import { planDeploy } from '../../dist/deploy/plan.js';
import { parseTarget } from '../../dist/deploy/target.js';
import { BIN, EXAMPLE_CONFIG, EXAMPLE_DATA, ROOT, build, cleanup, tmp } from '../helpers/index.js';
import { S3_ENV, startFakeCloudFront, startS3, startS3Proxy } from '../helpers/s3.js';

const CHANGED = '2eb43850-0ab2-4068-afe5-218d69a096f8';
const REMOVED = 'a6ef2d29-49bd-4aaf-ac19-1e3975e4fa51';
const REMOVED_FILE = 'epditaly_without_a1a2a3/ILCD/processes/a6ef2d29-49bd-4aaf-ac19-1e3975e4fa51_00.00.039.xml';
const CHANGED_FILE = 'ibu_with_dependencies/ILCD/processes/2eb43850-0ab2-4068-afe5-218d69a096f8_00.01.000.xml';
const LATER_REMOVED_FILE = 'environdec_with_dependencies/ILCD/processes/daa1778e-be8f-4d2f-b1b3-c32ca2f0e90d_01.00.001.xml';
const XML = 'application/xml; charset=UTF-8';
const JSON_TYPE = 'application/json;charset=UTF-8';

/**
 * Build the example from a copy of its inputs after `edit(dir)`; fixed build time.
 * @param {(dir: string) => void} [edit]
 * @param {object} [extra] build options
 */
async function buildFrom(edit = () => {}, extra = {}) {
  const base = tmp();
  const data = join(base, 'ilcdlib');
  cpSync(EXAMPLE_DATA, data, { recursive: true });
  edit(data);
  const out = join(base, 'site');
  // With ZIP exports: their upload (application/zip) is deployed and checked too.
  const r = await build({ config: EXAMPLE_CONFIG, inputs: [data], out, now: new Date('2026-01-02T03:04:05Z'), zipExport: true, ...extra });
  assert.ok(r.ok, 'test site builds');
  return out;
}

/** A child process without blocking this one (the S3 server runs here); resolves { status, stdout, stderr }. */
function runChild(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: ROOT, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((ok) => child.on('close', (status) => ok({ status, stdout, stderr })));
}

const U = suite('deploy: plan, paths, target');

U('content types come from the one table: datasets XML, lists, health, documents by extension, host files none', () => {
  assert.is(siteContentType(`resource/processes/${CHANGED}`), XML);
  assert.is(siteContentType(`v1/epds/${CHANGED}`), XML);
  assert.is(siteContentType('resource/flows/index.json'), JSON_TYPE);
  assert.is(siteContentType('healthz/index.json'), JSON_TYPE);
  assert.is(siteContentType('nodeinfo/index.xml'), XML);
  assert.is(siteContentType('index.html'), 'text/html; charset=UTF-8');
  assert.is(siteContentType(`resource/processes/${CHANGED}_files/zipexport.zip`), 'application/zip');
  assert.is(siteContentType(`resource/sources/${CHANGED}_files/Report.PDF`), 'application/pdf');
  assert.is(siteContentType(`resource/sources/${CHANGED}_files/notes.odt`), 'application/octet-stream');
  assert.is(siteContentType('_redirects'), undefined);
  assert.is(siteContentType(`resource/other/${CHANGED}`), undefined, 'a UUID outside a dataset folder is no dataset');
});

U('plan: phases in reader-safe order, unchanged files skipped by MD5, deletions only inside the site folders', () => {
  const f = (rel) => ({ rel, abs: `/x/${rel}`, size: 3, contentType: siteContentType(rel), inode: rel });
  const rels = ['healthz/index.json', 'resource/processes/index.xml', `resource/processes/${CHANGED}`, 'index.html', `v1/epds/${CHANGED}`];
  const local = rels.map(f);
  const md5 = new Map(local.map((l) => [l.rel, 'a'.repeat(32)]));
  const remote = new Map([
    ['index.html', { rel: 'index.html', key: 'p/index.html', size: 3, etag: `"${'a'.repeat(32)}"` }],
    [`v1/epds/${CHANGED}`, { rel: `v1/epds/${CHANGED}`, key: `p/v1/epds/${CHANGED}`, size: 3, etag: `"${'b'.repeat(32)}"` }],
    [`v1/epds/${REMOVED}`, { rel: `v1/epds/${REMOVED}`, key: `p/v1/epds/${REMOVED}`, size: 3, etag: '"x-2"' }],
    // Not po-node's: another node deployed below this prefix, a file put there by hand.
    ['other/index.html', { rel: 'other/index.html', key: 'p/other/index.html', size: 3, etag: '"x"' }],
    ['robots.txt', { rel: 'robots.txt', key: 'p/robots.txt', size: 3, etag: '"x"' }],
  ]);
  const plan = planDeploy(local, md5, remote, { keyOf: (r) => `p/${r}`, cacheControl: 'c' });
  assert.equal(
    plan.uploads.map((u) => [u.key, u.phase, u.reason]),
    [
      [`p/resource/processes/${CHANGED}`, 'datasets', 'new'],
      [`p/v1/epds/${CHANGED}`, 'datasets', 'changed'],
      ['p/resource/processes/index.xml', 'lists', 'new'],
      ['p/healthz/index.json', 'health', 'new'],
    ],
  );
  assert.is(plan.unchanged, 1);
  assert.equal(
    plan.deletions.map((d) => d.key),
    [`p/v1/epds/${REMOVED}`],
  );
  assert.is(plan.kept, 2, 'objects outside the site folders are never deleted');
  assert.is(planDeploy(local, md5, remote, { keyOf: (r) => r, cacheControl: 'c', force: true }).uploads.length, 5);
});

U('invalidation: both path forms of lists and documents, percent-encoded, /* beyond what CloudFront takes', () => {
  assert.equal(urlsOf('resource/processes/index.xml'), ['/resource/processes/index.xml', '/resource/processes', '/resource/processes/']);
  assert.equal(urlsOf('index.html'), ['/index.html', '/']);
  const pdf = `resource/processes/${CHANGED}_files/epd.pdf`;
  assert.equal(urlsOf(pdf), [`/${pdf}`, `/resource/processes/${CHANGED}/epd`]);
  const doc = invalidationPaths([`resource/sources/${CHANGED}_files/Prüf *1.pdf`]).paths;
  assert.ok(doc.includes(`/resource/sources/${CHANGED}/Pr%C3%BCf%20%2A1.pdf`), 'percent-encoded, * is no wildcard');
  const many = Array.from({ length: 3001 }, (_, i) => `resource/flows/index${i}.json`);
  assert.equal(invalidationPaths(many), { paths: ['/*'], wildcard: true });
});

U('target: s3://bucket[/prefix]; anything else is a usage error', () => {
  assert.equal(parseTarget('s3://epd-node'), { bucket: 'epd-node', prefix: '' });
  assert.equal(parseTarget('s3://epd-node/a/b/'), { bucket: 'epd-node', prefix: 'a/b' });
  for (const bad of ['epd-node', 'https://epd-node/x', 's3://a', 's3://epd-node/a//b', 's3://epd-node/../x']) {
    assert.throws(() => parseTarget(bad), /S3 URL|bucket name|segment/, bad);
  }
});
U('CLI: --help teaches; a bad --to is a usage error (exit 2, one line and a hint); --version and build never load the SDK', async () => {
  const help = await runChild(process.execPath, [BIN, 'deploy', '--help'], process.env);
  assert.is(help.status, 0);
  const taught = ['--to <s3-url>', '--distribution-id', '--endpoint-url', '--force-path-style', '--max-deletes', '--dry-run'];
  taught.push('Exit codes', 'Examples:');
  for (const s of taught) assert.match(help.stdout, s);
  const bad = await runChild(process.execPath, [BIN, 'deploy', 'site', '--to', 'epd-node'], { ...process.env, NO_COLOR: '1' });
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^po-node: --to "epd-node" is not an S3 URL\nhint: /);
  // A module hook that reports every @aws-sdk module resolved.
  const dir = tmp();
  const hook =
    'export async function resolve(s, c, next) {\n  const r = await next(s, c);\n' +
    "  if (r.url.includes('@aws-sdk')) process.stderr.write(`SDK ${r.url}\\n`);\n  return r;\n}\n";
  writeFileSync(join(dir, 'hook.mjs'), hook);
  const hookUrl = JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${hookUrl});\n`);
  // Credentials from the environment only: the SDK's chain must not go looking for an instance role.
  const env = { ...process.env, ...S3_ENV, AWS_EC2_METADATA_DISABLED: 'true' };
  const traced = (args) => runChild(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], env);
  const version = await traced(['--version']);
  assert.is(version.status, 0);
  assert.not.match(version.stderr, 'SDK ');
  const built = await traced(['build', '--config', EXAMPLE_CONFIG, '--out', join(dir, 'site'), '-q']);
  assert.is(built.status, 0, built.stderr);
  assert.not.match(built.stderr, 'SDK ');
  const nowhere = ['--endpoint-url', 'http://127.0.0.1:9', '--retries', '0'];
  const dry = await traced(['deploy', join(dir, 'site'), '--to', 's3://epd-node', ...nowhere]);
  assert.match(dry.stderr, 'SDK ', 'the hook does see the SDK when deploy loads it');
});
U.after(cleanup);
U.run();

const D = suite('deploy: against a real S3 API server');
const ctx = {};
const saved = {};
const ENV = { ...S3_ENV, AWS_ENDPOINT_URL_CLOUDFRONT: '' };

D.before(async () => {
  ctx.s3 = await startS3(['site']);
  ctx.proxy = await startS3Proxy(ctx.s3.port);
  ctx.cf = await startFakeCloudFront();
  ENV.AWS_ENDPOINT_URL_CLOUDFRONT = ctx.cf.endpoint;
  for (const [k, v] of Object.entries(ENV)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  ctx.site1 = await buildFrom();
  ctx.site2 = await buildFrom((d) => {
    rmSync(join(d, REMOVED_FILE));
    appendFileSync(join(d, CHANGED_FILE), '\n<!-- republished -->\n');
  });
});
D.after(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await ctx.proxy?.close();
  await ctx.cf?.close();
  await ctx.s3?.close();
  await cleanup();
});

const opts = (site, extra = {}) => ({ site, to: 's3://site/node', endpoint: ctx.proxy.endpoint, forcePathStyle: true, ...extra });

D('first deploy: every API object with its Content-Type and Cache-Control, hidden files never', async () => {
  const r = await deploy(opts(ctx.site1));
  ctx.first = r;
  assert.ok(r.ok);
  assert.equal(validateWithSchema('deploy-report', r), []);
  assert.is(r.uploads.length, r.files);
  assert.is(r.deletions.length, 0);
  const phases = r.uploads.map((u) => u.phase);
  const order = ['datasets', 'lists', 'health'];
  assert.equal(
    phases,
    [...phases].sort((a, b) => order.indexOf(a) - order.indexOf(b)),
    'uploaded phase by phase',
  );
  const expect = {
    [`resource/processes/${CHANGED}`]: XML,
    [`v1/epds/${CHANGED}`]: XML,
    'resource/processes/index.xml': XML,
    'resource/processes/index.json': JSON_TYPE,
    'resource/flows/index.xml': XML,
    'v1/epds/index.json': JSON_TYPE,
    'nodeinfo/index.xml': XML,
    'resource/nodeinfo/index.xml': XML,
    'healthz/index.json': JSON_TYPE,
    'v1/healthz/index.json': JSON_TYPE,
    'index.html': 'text/html; charset=UTF-8',
    'resource/processes/ee8863aa-7276-4896-b07a-713937a3134d_files/zipexport.zip': 'application/zip',
  };
  for (const [rel, type] of Object.entries(expect)) {
    const o = await ctx.s3.get('site', `node/${rel}`);
    assert.is(o.status, 200, rel);
    assert.is(o.headers['content-type'], type, rel);
    assert.is(o.headers['cache-control'], 'public, max-age=300', rel);
    assert.ok(o.body.equals(readFileSync(join(ctx.site1, rel))), `${rel}: bytes as built`);
  }
  const pdf = r.uploads.find((u) => u.key.endsWith('_files/epd.pdf'));
  assert.ok(pdf, 'the example has an EPD PDF');
  assert.is((await ctx.s3.get('site', pdf.key, 'HEAD')).headers['content-type'], 'application/pdf');
  assert.is((await ctx.s3.get('site', 'node/.po-node.json', 'HEAD')).status, 404, 'hidden files are not uploaded');
  // Precompressed siblings stay home: CloudFront compresses documents of this size on its own.
  assert.ok(r.precompressedLeftOut > 0, 'the example has siblings');
  assert.not.ok(r.uploads.some((u) => /\.(gz|br)$/.test(u.key)));
  assert.is((await ctx.s3.get('site', 'node/resource/processes/index.xml.gz', 'HEAD')).status, 404);
  assert.is((await ctx.s3.get('site', 'node/resource/processes/index.xml', 'HEAD')).headers['content-encoding'], undefined);
  assert.ok(!r.uploads.some((u) => u.key.split('/').some((s) => s.startsWith('.'))));
});

D('documents above the limit: their precompressed copies with Content-Encoding and the type of the document', async () => {
  // 10,000 bytes stands in for CloudFront's 10,000,000: the example's XML EPD list (10 kB) and catalogue are above it.
  const r = await deploy(opts(ctx.site1, { to: 's3://site/big', compressAbove: 10_000 }));
  assert.equal(validateWithSchema('deploy-report', r), []);
  const copies = r.uploads.filter((u) => u.contentEncoding);
  assert.ok(
    copies.some((u) => u.key === 'big/resource/processes/index.xml.gz'),
    JSON.stringify(copies.map((u) => u.key)),
  );
  for (const u of copies) {
    const rel = u.key.slice('big/'.length);
    const o = await ctx.s3.get('site', u.key);
    assert.is(o.headers['content-encoding'], u.contentEncoding, rel);
    assert.is(o.headers['content-type'], siteContentType(rel.replace(/\.(gz|br)$/, '')), rel);
    assert.ok(o.body.equals(readFileSync(join(ctx.site1, rel))), `${rel}: bytes as built`);
    assert.ok(readFileSync(join(ctx.site1, rel.replace(/\.(gz|br)$/, ''))).length > 10_000, rel);
  }
  assert.ok(r.precompressedLeftOut > 0, 'the smaller documents keep theirs home');
  assert.is((await ctx.s3.get('site', 'big/resource/processes/index.xml', 'HEAD')).headers['content-encoding'], undefined);
});

D('second deploy of the unchanged site writes nothing', async () => {
  ctx.proxy.log.length = 0;
  const r = await deploy(opts(ctx.site1, { distributionId: 'E2EXAMPLE' }));
  ctx.second = r;
  assert.is(r.uploads.length, 0);
  assert.is(r.deletions.length, 0);
  assert.is(r.unchanged, r.files);
  assert.is(r.invalidation, undefined, 'nothing changed, nothing to invalidate');
  assert.equal(ctx.proxy.writes(), []);
  assert.is(ctx.cf.calls.length, 0);
});

D('--dry-run prints the plan and changes nothing', async () => {
  ctx.proxy.log.length = 0;
  const r = await deploy(opts(ctx.site2, { dryRun: true, distributionId: 'E2EXAMPLE' }));
  assert.ok(r.dryRun && r.ok);
  assert.ok(r.uploads.some((u) => u.key === `node/resource/processes/${CHANGED}`));
  assert.ok(r.deletions.includes(`node/resource/processes/${REMOVED}`));
  assert.ok(r.invalidation.paths.includes('/resource/processes'));
  assert.equal(r.invalidation.ids, []);
  assert.equal(ctx.proxy.writes(), []);
  assert.is(ctx.cf.calls.length, 0);
});

D('--max-deletes refuses the whole deploy before any change (CLI: exit 1, report on stdout)', async () => {
  ctx.proxy.log.length = 0;
  const args = [BIN, 'deploy', ctx.site2, '--to', 's3://site/node', '--endpoint-url', ctx.proxy.endpoint, '--force-path-style'];
  args.push('--max-deletes', '1', '--json');
  const { status, stdout } = await runChild(process.execPath, args, { ...process.env, ...ENV });
  assert.is(status, 1);
  const r = JSON.parse(stdout);
  assert.is(r.ok, false);
  assert.match(r.refused, /more than --max-deletes 1; nothing was changed/);
  assert.ok(r.deletions.length > 1);
  assert.equal(ctx.proxy.writes(), []);
});

D('one EPD removed, one changed: only those objects change (both path sets); invalidation of exactly those URLs', async () => {
  ctx.proxy.log.length = 0;
  const r = await deploy(opts(ctx.site2, { distributionId: 'E2EXAMPLE' }));
  assert.ok(r.ok);
  const put = ctx.proxy
    .writes()
    .filter((w) => w.startsWith('PUT '))
    .map((w) => w.slice('PUT /site/node/'.length));
  const del = ctx.proxy
    .writes()
    .filter((w) => w.startsWith('DELETE '))
    .map((w) => w.slice('DELETE /site/node/'.length));
  const datasetPuts = put.filter((k) => /^(resource\/processes|v1\/epds)\/[0-9a-f-]{36}$/.test(k)).sort();
  assert.equal(datasetPuts, [`resource/processes/${CHANGED}`, `v1/epds/${CHANGED}`]);
  assert.ok(!put.some((k) => /^resource\/(?!processes)[a-z]+\/[0-9a-f-]{36}$/.test(k)), 'no dependency dataset rewritten');
  assert.ok(del.includes(`resource/processes/${REMOVED}`), 'the removed EPD is gone (default path set)');
  assert.ok(del.includes(`v1/epds/${REMOVED}`), 'the removed EPD is gone (v1 path set)');
  assert.ok(!del.some((k) => /^(resource\/processes|v1\/epds)\/[0-9a-f-]{36}$/.test(k) && !k.endsWith(REMOVED)), 'no other EPD deleted');
  for (const k of ['resource/processes/index.xml', 'resource/processes/index.json', 'v1/epds/index.json', 'healthz/index.json']) {
    assert.ok(put.includes(k), k);
  }
  assert.is((await ctx.s3.get('site', `node/resource/processes/${REMOVED}`)).status, 404);
  assert.ok((await ctx.s3.get('site', `node/v1/epds/${CHANGED}`)).body.toString().includes('<!-- republished -->'));
  // Writes in order: every dataset before the first list, health after the lists, deletions last.
  const w = ctx.proxy.writes();
  const firstList = w.findIndex((l) => l.includes('/index.'));
  assert.ok(
    w.slice(firstList).every((l) => !/\/[0-9a-f-]{36}$/.test(l) || l.startsWith('DELETE')),
    'datasets before lists',
  );
  assert.ok(w.findIndex((l) => l.startsWith('DELETE')) > w.findLastIndex((l) => l.includes('healthz')), 'deletions after health');
  // One CloudFront request: the changed and deleted objects' URLs, lists in both forms.
  assert.is(ctx.cf.calls.length, 1);
  const paths = ctx.cf.calls[0].paths;
  assert.is(ctx.cf.calls[0].distributionId, 'E2EXAMPLE');
  assert.equal(paths, r.invalidation.paths);
  assert.equal(r.invalidation.ids, ['I1']);
  const want = ['/resource/processes', '/resource/processes/', '/resource/processes/index.xml', '/v1/epds', '/healthz'];
  for (const p of [...want, `/v1/epds/${CHANGED}`, `/resource/processes/${REMOVED}`]) assert.ok(paths.includes(p), p);
  assert.ok(!paths.includes('/*'));
  assert.ok(!paths.some((p) => p.includes('ee8863aa-7276-4896-b07a-713937a3134d')), 'an untouched EPD is not invalidated');
  ctx.changedReport = r;
});

D('a reader polling the list during a deploy never meets a listed EPD that answers 404', async () => {
  // Next version: the removed EPD is back, another one is gone. Writes are slowed so the reader sees the deploy midway.
  const site3 = await buildFrom((d) => rmSync(join(d, LATER_REMOVED_FILE)));
  const slow = await startS3Proxy(ctx.s3.port, { delayMs: 25 });
  const listed = (xml) => [...xml.matchAll(/<serviceapi:uuid>([^<]+)<\/serviceapi:uuid>/g)].map((m) => m[1]);
  const problems = [];
  const lists = new Set();
  let rounds = 0;
  let done = false;
  // s3rver writes an object's data and metadata in two steps and streams a file it may be overwriting, so a read
  // during an overwrite may answer 500 or more bytes than its Content-Length (Node: "Data after `Connection: close`";
  // an S3 PUT is atomic): a 5xx or a broken response is asked again, as any reader would; a 404 never is.
  const read = async (key, method) => {
    let o;
    for (let i = 0; i < 5 && (!o || o.status >= 500); i++) {
      if (i) await new Promise((ok) => setTimeout(ok, 20));
      o = await ctx.s3.get('site', key, method).catch((e) => ({ status: 599, headers: {}, body: Buffer.from(String(e)) }));
    }
    return o;
  };
  const round = async () => {
    rounds++;
    const list = await read('node/resource/processes/index.xml', 'GET');
    if (list.status !== 200) problems.push(`list answered ${list.status} ${list.status === 599 ? list.body : ''}`.trim());
    const uuids = listed(list.body.toString());
    lists.add(uuids.sort().join(','));
    for (const u of uuids) {
      for (const key of [`node/resource/processes/${u}`, `node/v1/epds/${u}`]) {
        const { status } = await read(key, 'HEAD');
        if (status !== 200) problems.push(`${key} listed but answered ${status}`);
      }
    }
  };
  // Bounded: stops with the deploy (then one last look), or after 2,000 rounds at most.
  // Its failure is a finding of the test, held until the deploy ends (an unhandled rejection would end the run).
  const reader = (async () => {
    while (!done && rounds < 2000) await round();
    await round();
  })().catch((e) => problems.push(`the reader failed: ${e.stack ?? e}`));
  try {
    // A request left unanswered fails after 15 s and is retried instead of holding the test (a full run once hung in
    // this test, before deploy had a timeout).
    const r = await deploy(opts(site3, { endpoint: slow.endpoint, concurrency: 2, requestTimeout: 15 }));
    assert.ok(r.ok && r.uploads.length > 0 && r.deletions.length > 0);
  } finally {
    done = true;
    await reader;
    await slow.close();
  }
  assert.equal(problems, []);
  assert.ok(lists.size >= 2, `the reader saw the list before and after the deploy (${lists.size} versions in ${rounds} rounds)`);
});

D('the emitted s3-upload.sh runs po-node deploy: same order and safety; a second run uploads nothing', async () => {
  const site = await buildFrom(() => {}, { hosts: ['s3-cloudfront'] });
  const script = join(`${site}-deploy`, 's3-cloudfront/s3-upload.sh');
  /** @type {Record<string, string>} */
  const env = { ...process.env, ...ENV, PO_NODE: `${process.execPath} ${BIN}`, BUCKET: 'site', PREFIX: 'script' };
  env.DISTRIBUTION_ID = 'E3SCRIPT';
  const run = () => runChild('bash', [script, site, '--endpoint-url', ctx.s3.endpoint, '--force-path-style', '--json'], env);
  const first = await run();
  assert.is(first.status, 0, first.stderr);
  const r1 = JSON.parse(first.stdout);
  assert.is(r1.target, 's3://site/script');
  assert.is(r1.uploads.length, r1.files);
  assert.is(r1.invalidation.distributionId, 'E3SCRIPT');
  assert.is((await ctx.s3.get('site', `script/resource/processes/${CHANGED}`)).headers['content-type'], XML);
  const second = await run();
  assert.is(second.status, 0, second.stderr);
  assert.is(JSON.parse(second.stdout).uploads.length, 0);
  const noBucket = await runChild('bash', [script, site], { ...env, BUCKET: '' });
  assert.is.not(noBucket.status, 0);
  assert.match(noBucket.stderr, /set BUCKET/);
});

D('an S3 endpoint that accepts the connection and never answers fails the deploy after --request-timeout, not never', async () => {
  const { createServer } = await import('node:net');
  const sockets = [];
  // Reads the request, answers nothing: a stalled load balancer or a hung store.
  const hole = createServer((s) => (sockets.push(s), s.resume()));
  await new Promise((ok) => hole.listen(0, '127.0.0.1', () => ok(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (hole.address());
  const started = Date.now();
  let deadline;
  try {
    const outcome = await Promise.race([
      deploy(opts(ctx.site1, { endpoint: `http://127.0.0.1:${port}`, retries: 1, requestTimeout: 1 })).then(
        () => 'deployed',
        (e) => e,
      ),
      new Promise((ok) => (deadline = setTimeout(() => ok('still waiting after 30 s'), 30_000))),
    ]);
    assert.instance(outcome, Error, String(outcome));
    assert.match(outcome.message, /timed out|timeout/i);
    assert.match(outcome.hint ?? '', /--request-timeout/);
    assert.ok(Date.now() - started < 20_000, `failed after ${Date.now() - started} ms`);
  } finally {
    clearTimeout(deadline);
    for (const s of sockets) s.destroy();
    await new Promise((ok) => hole.close(ok));
  }
});

D('a deploy to the bucket root leaves the nodes deployed below it alone', async () => {
  const r = await deploy({ ...opts(ctx.site1), to: 's3://site', maxDeletes: 0, dryRun: true });
  assert.ok(r.ok, r.refused);
  assert.equal(r.deletions, []);
  assert.ok(r.kept > r.files, `objects under node/ and script/ kept (${r.kept})`);
});

D.run();
