// Host files that cannot be served here for real: the CloudFront Function runs on sample events (it is plain JS),
// and `_redirects`/`_headers` are validated line by line, then replayed against the built tree for every API URL.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiExpectations, documentType, typeMatches } from '../helpers/http.js';
import { buildExample, cleanup } from '../helpers/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const builds = {};
async function built(host) {
  builds[host] ??= await buildExample({ hosts: [host], zipExport: true });
  return builds[host].out;
}

function splitUrl(url) {
  const [path, q = ''] = url.split('?');
  return { path, query: Object.fromEntries(new URLSearchParams(q)) };
}

/** The file S3 would return for a key, or null (S3 keys are flat: a "folder" key has no object). */
function s3Object(out, uri) {
  const p = join(out, decodeURIComponent(uri));
  return existsSync(p) && statSync(p).isFile() ? readFileSync(p) : null;
}

/** Content-Type the upload script gives a key: by extension (either case), extensionless datasets as XML. */
function s3Type(uri) {
  if (uri.endsWith('.json')) return 'json';
  if (uri.endsWith('.xml')) return 'xml';
  if (uri.endsWith('.html')) return 'text/html';
  if (UUID.test(uri.split('/').pop())) return 'xml';
  return documentType(decodeURIComponent(uri));
}

const S3 = suite('hosts: s3-cloudfront');
S3('the CloudFront Function maps every API URL and format onto a file with the right bytes and type', async () => {
  const out = await built('s3-cloudfront');
  const code = readFileSync(join(`${out}-deploy`, 's3-cloudfront/cloudfront-function.js'), 'utf8');
  const handler = runInNewContext(`${code}\nhandler`, {});
  const problems = [];
  for (const x of apiExpectations(out)) {
    const { path, query } = splitUrl(x.url);
    const querystring = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, { value: v }]));
    const req = handler({
      version: '1.0',
      context: { eventType: 'viewer-request' },
      viewer: { ip: '127.0.0.1' },
      request: { method: 'GET', uri: path, querystring, headers: {}, cookies: {} },
    });
    const body = s3Object(out, req.uri);
    if (x.status === 404) {
      if (body) problems.push(`${x.url}: expected no object, got ${req.uri}`);
      continue;
    }
    if (!body) problems.push(`${x.url} -> ${req.uri}: no such object`);
    else if (x.body && !body.equals(x.body)) problems.push(`${x.url} -> ${req.uri}: wrong bytes`);
    else if (s3Type(req.uri) !== x.kind) problems.push(`${x.url} -> ${req.uri}: uploaded as ${s3Type(req.uri)}`);
  }
  assert.equal(problems, []);
  const sample = handler({
    request: { uri: '/resource/processes/', querystring: { format: { value: 'Json' }, startIndex: { value: '0' } } },
  });
  assert.is(sample.uri, '/resource/processes/index.json');
  assert.equal(sample.querystring.startIndex, { value: '0' }, 'other parameters are kept');
  const zip = handler({
    request: { uri: '/resource/processes/ee8863aa-7276-4896-b07a-713937a3134d/zipexport', querystring: { format: { value: 'zip' } } },
  });
  assert.is(zip.uri, '/resource/processes/ee8863aa-7276-4896-b07a-713937a3134d_files/zipexport.zip');
  const doc = handler({ request: { uri: '/resource/sources/c36cdafa-45ef-40ed-bccf-ee5184b21c3e/Pr%C3%BCf%20x.pdf', querystring: {} } });
  assert.is(doc.uri, '/resource/sources/c36cdafa-45ef-40ed-bccf-ee5184b21c3e_files/Pr%C3%BCf%20x.pdf', 'kept percent-encoded for S3');
  assert.ok(apiExpectations(out).filter((x) => /\/(epd|zipexport)(\?|$)/.test(x.url)).length >= 15, 'sub-resource URLs are checked');
});

S3('upload script runs po-node deploy with the bucket, prefix and distribution; CORS policy allows *', async () => {
  const out = await built('s3-cloudfront');
  const sh = readFileSync(join(`${out}-deploy`, 's3-cloudfront/s3-upload.sh'), 'utf8');
  assert.ok(sh.startsWith('#!/usr/bin/env bash\n'));
  assert.match(sh, /args=\(deploy "\$SITE" --to "s3:\/\/\$BUCKET\$\{PREFIX:\+\/\$PREFIX\}"\)/);
  assert.match(sh, /--distribution-id "\$DISTRIBUTION_ID"/);
  assert.not.match(sh, /aws s3 sync/, 'no mtime-based sync, no /* invalidation');
  assert.not.match(sh, /\{\{/);
  const policy = JSON.parse(readFileSync(join(`${out}-deploy`, 's3-cloudfront/response-headers-policy.json'), 'utf8'));
  assert.equal(policy.CorsConfig.AccessControlAllowOrigins.Items, ['*']);
});
S3.run();

/** Parse and validate `_redirects`: `from [key=value] to 200[!]`; every target is a file of the tree. */
function parseRedirects(text, out, { queryAllowed }) {
  const rules = [];
  const problems = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const parts = line.trim().split(/\s+/);
    const [from, ...rest] = parts;
    const status = rest.pop();
    const to = rest.pop();
    const query = rest.map((q) => q.split('='));
    if (!from.startsWith('/') || !to?.startsWith('/')) problems.push(`line ${i + 1}: paths must start with /: ${line}`);
    if (!(queryAllowed ? /^200!?$/ : /^200$/).test(status)) problems.push(`line ${i + 1}: status ${status}`);
    if (query.length && !queryAllowed) problems.push(`line ${i + 1}: query matching is not supported here: ${line}`);
    if (query.some((q) => q.length !== 2 || !q[0] || !q[1])) problems.push(`line ${i + 1}: bad query condition`);
    if (!s3Object(out, to)) problems.push(`line ${i + 1}: target ${to} is not a file of the site`);
    rules.push({ from, to, query: Object.fromEntries(query) });
  });
  return { rules, problems };
}

/** Parse and validate `_headers`: a path line, then indented `Name: value` lines. */
function parseHeaders(text) {
  const rules = [];
  const problems = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    if (/^\S/.test(line)) {
      if (!line.startsWith('/')) problems.push(`line ${i + 1}: path must start with /`);
      rules.push({ path: line, headers: {} });
    } else {
      const m = /^ {2}([A-Za-z-]+): (.+)$/.exec(line);
      if (!m || !rules.length) problems.push(`line ${i + 1}: not "  Name: value": ${line}`);
      else rules[rules.length - 1].headers[m[1].toLowerCase()] = m[2];
    }
  });
  return { rules, problems };
}

const matchPath = (pattern, path) =>
  new RegExp(
    `^${pattern
      .replace(/[.]/g, '\\.')
      .replace(/\*/g, '.*')
      .replace(/:[a-z]+/g, '[^/]+')}$`,
  ).test(path);

/** Replay: first matching rule wins, else the file at the path; headers from every rule matching the URL or the file. */
function replay(out, redirects, headers, url) {
  const { path, query } = splitUrl(url);
  const rule = redirects.find((r) => r.from === path && Object.entries(r.query).every(([k, v]) => query[k] === v));
  // Both platforms answer a folder URL with its index.html (the EPD pages, epd/<uuid>/).
  const file = rule ? rule.to : path.endsWith('/') ? `${path}index.html` : path;
  const body = s3Object(out, file);
  const h = {};
  for (const r of headers) if (matchPath(r.path, path) || matchPath(r.path, file)) Object.assign(h, r.headers);
  const type =
    h['content-type'] ??
    (file.endsWith('.json')
      ? 'application/json'
      : file.endsWith('.xml')
        ? 'application/xml'
        : file.endsWith('.html')
          ? 'text/html'
          : documentType(decodeURIComponent(file)));
  return { body, type, cors: h['access-control-allow-origin'] };
}

for (const host of ['netlify', 'cloudflare-pages']) {
  const T = suite(`hosts: ${host}`);
  T('_redirects and _headers are valid line by line and answer every API URL', async () => {
    const out = await built(host);
    const red = parseRedirects(readFileSync(join(out, '_redirects'), 'utf8'), out, { queryAllowed: host === 'netlify' });
    const hdr = parseHeaders(readFileSync(join(out, '_headers'), 'utf8'));
    assert.equal([...red.problems, ...hdr.problems], []);
    assert.ok(red.rules.length >= 10 && hdr.rules.length >= 9);
    const problems = [];
    // Neither routes startIndex/pageSize onto the page files (docs/hosting.md): the whole list answers.
    for (const x of apiExpectations(out, { paged: false })) {
      const r = replay(out, red.rules, hdr.rules, x.url);
      if (x.status === 404) {
        if (r.body) problems.push(`${x.url}: expected 404`);
        continue;
      }
      // Cloudflare Pages cannot match query parameters: format=json gets the XML list; Netlify matches the
      // value exactly, so only format=json and format=JSON switch (both documented in docs/hosting.md).
      const fmt = splitUrl(x.url).query.format;
      const switched = fmt !== undefined && /^json$/i.test(fmt) && (host === 'cloudflare-pages' || !['json', 'JSON'].includes(fmt));
      const kind = switched ? 'xml' : x.kind;
      const body = kind === x.kind ? x.body : readFileSync(join(out, splitUrl(x.url).path, 'index.xml'));
      if (!r.body || (body && !r.body.equals(body))) problems.push(`${x.url}: wrong or no body`);
      if (!typeMatches(kind, r.type.replace(/;\s*charset=utf-8$/i, ''))) problems.push(`${x.url}: type ${r.type}`);
      if (r.cors !== '*') problems.push(`${x.url}: no CORS`);
    }
    assert.equal(problems, []);
  });
  T.run();
}

const Gh = suite('hosts: github-pages');
Gh('.nojekyll in the tree; index.xml and index.json side by side (Pages picks index.xml first)', async () => {
  const out = await built('github-pages');
  assert.is(readFileSync(join(out, '.nojekyll'), 'utf8'), '');
  assert.ok(existsSync(join(out, 'resource/processes/index.xml')) && existsSync(join(out, 'resource/processes/index.json')));
  assert.not.ok(existsSync(`${out}-deploy`), 'no deploy folder for a host that needs none');
});
Gh('unknown or clashing host names are refused with a hint', async () => {
  const { parseHosts } = await import('../../dist/hosts/index.js');
  assert.equal(parseHosts(['NGINX, apache', 'nginx']), ['nginx', 'apache']);
  assert.throws(() => parseHosts(['iis']), /Unknown host "iis"/);
  assert.throws(() => parseHosts(['netlify,cloudflare-pages']), /_redirects/);
});

Gh.after(cleanup);
Gh.run();
