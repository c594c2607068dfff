// HTTP helpers for the hosting and serve tests: plain node:http (no automatic decompression), free ports,
// the list of API URLs every host must answer, and real-server process control.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { EXAMPLE_DATA, REAL_EPDS } from './index.js';

/** GET (or another method) without Accept-Encoding unless given; resolves { status, headers, body: Buffer }. */
export function httpGet(port, path, headers = {}, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error(`timeout on ${path}`)));
    req.end();
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

export async function waitForPort(port, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise((r) => {
      const c = connect(port, '127.0.0.1');
      c.on('connect', () => (c.destroy(), r(true)));
      c.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
}

/** A real server binary, or null. */
export function findBinary(...candidates) {
  for (const c of candidates) if (existsSync(c)) return c;
  return null;
}

/** Start a foreground server process; stop() sends SIGTERM to that pid only and waits for the exit. */
export async function startProcess(bin, args, port, logFile) {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((r) => child.on('exit', (code, sig) => r({ code, sig })));
  const early = exited.then((e) => {
    const log = logFile && existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    throw new Error(`${bin} exited (${e.code ?? e.sig}) before listening:\n${output}${log}`);
  });
  await Promise.race([waitForPort(port), early]);
  early.catch(() => {});
  return {
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A test document with spaces and non-ASCII characters in its name, put below a published source of the example. */
export const ODD_DOC = {
  source: 'c36cdafa-45ef-40ed-bccf-ee5184b21c3e',
  name: 'Prüfbericht Ä  (2020) ½ 50% #1+2.pdf',
  bytes: Buffer.from('%PDF-1.4\n% po-node test document\n'),
};

export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

/**
 * Every URL of both path sets with the answer a host must give: status, kind of content type, body bytes.
 * EPD bodies are compared with the source files, not with the built copies.
 */
/** The Content-Type a host must give a document below a dataset URL: by extension, any case. */
export function documentType(name) {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  return (
    { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', zip: 'application/zip' }[ext] ??
    'application/octet-stream'
  );
}

/** Does a Content-Type header fit an expected kind ('xml', 'json' or a full MIME type)? */
export function typeMatches(kind, ct) {
  if (kind === 'xml' || kind === 'json') return new RegExp(`^application/${kind}(;\\s*charset=utf-8)?$`, 'i').test(ct);
  return ct.split(';')[0].trim().toLowerCase() === kind;
}

/** `paged`: the host routes on the query (nginx, Apache, CloudFront, serve), so pre-paged lists answer pages. */
export function apiExpectations(out, { paged = true } = {}) {
  const file = (p) => readFileSync(join(out, p));
  const xmlList = file('resource/processes/index.xml');
  const jsonList = file('resource/processes/index.json');
  const nodeinfo = file('nodeinfo/index.xml');
  const health = file('healthz/index.json');
  const v1 = file('v1/epds/index.json');
  const e = [];
  const add = (url, kind, body, status = 200, method = 'GET') => e.push({ url, kind, body, status, method });
  for (const u of [
    '/resource/processes',
    '/resource/processes/',
    '/resource/processes?format=xml',
    '/resource/processes?format=XML',
    '/resource/processes/?format=xml',
  ])
    add(u, 'xml', xmlList);
  // openLCA's first page: pre-paged where the build wrote page files (the default) and the host routes, else the whole list.
  const page = join(out, 'resource/processes/pages/1000/0.xml');
  add('/resource/processes?pageSize=1000&startIndex=0', 'xml', paged && existsSync(page) ? readFileSync(page) : xmlList);
  for (const u of [
    '/resource/processes?format=json',
    '/resource/processes?format=JSON',
    '/resource/processes/?format=Json',
    '/resource/processes?search=true&format=json',
  ])
    add(u, 'json', jsonList);
  for (const u of ['/nodeinfo', '/nodeinfo/', '/resource/nodeinfo', '/resource/nodeinfo/']) add(u, 'xml', nodeinfo);
  for (const u of ['/healthz', '/healthz/', '/v1/healthz', '/v1/healthz/']) add(u, 'json', health);
  for (const u of ['/v1/epds', '/v1/epds/']) add(u, 'json', v1);
  for (const d of REAL_EPDS) {
    const src = readFileSync(join(EXAMPLE_DATA, d.file));
    add(`/resource/processes/${d.uuid}`, 'xml', src);
    add(`/v1/epds/${d.uuid}`, 'xml', src);
    // The page of each EPD: a folder index, as every static host serves one.
    if (existsSync(join(out, 'epd', d.uuid))) add(`/epd/${d.uuid}/`, 'text/html', file(`epd/${d.uuid}/index.html`));
  }
  for (const folder of ['flows', 'flowproperties', 'unitgroups', 'contacts', 'sources', 'lciamethods']) {
    const dir = join(out, 'resource', folder);
    if (!existsSync(dir)) continue;
    for (const u of readdirSync(dir).filter((n) => /^[0-9a-f-]{36}$/.test(n)))
      add(`/resource/${folder}/${u}`, 'xml', file(`resource/${folder}/${u}`));
  }
  // The lists of the other types, like the process list.
  for (const folder of ['flows', 'flowproperties', 'unitgroups', 'contacts', 'sources', 'lciamethods']) {
    if (!existsSync(join(out, 'resource', folder, 'index.xml'))) continue;
    const xml = file(`resource/${folder}/index.xml`);
    const json = file(`resource/${folder}/index.json`);
    for (const u of ['', '/', '?format=xml']) add(`/resource/${folder}${u}`, 'xml', xml);
    for (const u of ['?format=json', '/?format=JSON']) add(`/resource/${folder}${u}`, 'json', json);
  }
  // Below dataset URLs: the files of <uuid>_files/ (docs/dependencies.md); the query is ignored.
  const procs = join(out, 'resource/processes');
  for (const d of existsSync(procs) ? readdirSync(procs).filter((n) => n.endsWith('_files')) : []) {
    const uuid = d.slice(0, 36);
    const has = (n) => existsSync(join(procs, d, n));
    if (has('zipexport.zip')) {
      add(`/resource/processes/${uuid}/zipexport`, 'application/zip', file(`resource/processes/${d}/zipexport.zip`));
      add(
        `/resource/processes/${uuid}/zipexport?format=zip&version=00.00.000`,
        'application/zip',
        file(`resource/processes/${d}/zipexport.zip`),
      );
    }
    if (has('epd.pdf')) {
      add(`/resource/processes/${uuid}/epd`, 'application/pdf', file(`resource/processes/${d}/epd.pdf`));
      add(`/resource/processes/${uuid}/epd`, 'application/pdf', null, 200, 'HEAD');
    } else {
      add(`/resource/processes/${uuid}/epd`, null, null, 404);
      add(`/resource/processes/${uuid}/epd`, null, null, 404, 'HEAD');
    }
  }
  const srcs = join(out, 'resource/sources');
  for (const d of existsSync(srcs) ? readdirSync(srcs).filter((n) => n.endsWith('_files')) : []) {
    for (const name of readdirSync(join(srcs, d)))
      add(`/resource/sources/${d.slice(0, 36)}/${encodeURIComponent(name)}`, documentType(name), file(`resource/sources/${d}/${name}`));
    add(`/resource/sources/${d.slice(0, 36)}/no-such-file.pdf`, null, null, 404);
  }
  add(`/resource/processes/${UNKNOWN_UUID}/zipexport`, null, null, 404);
  add(`/resource/processes/${UNKNOWN_UUID}`, null, null, 404);
  add(`/v1/epds/${UNKNOWN_UUID}`, null, null, 404);
  add(`/resource/flows/${UNKNOWN_UUID}`, null, null, 404);
  add(`/epd/${UNKNOWN_UUID}/`, null, null, 404);
  return e;
}

/** Fetch every expectation (body null: not compared); returns a list of readable mismatches (empty when all answers are right). */
export async function checkApi(port, expectations) {
  const problems = [];
  for (const x of expectations) {
    const method = x.method ?? 'GET';
    const url = method === 'GET' ? x.url : `${method} ${x.url}`;
    const r = await httpGet(port, x.url, {}, method);
    const ct = String(r.headers['content-type'] ?? '');
    if (r.status !== x.status) {
      problems.push(`${url}: status ${r.status}, expected ${x.status}`);
      continue;
    }
    if (x.status !== 200) continue;
    if (!typeMatches(x.kind, ct)) problems.push(`${url}: Content-Type "${ct}", expected ${x.kind}`);
    if (x.body && !r.body.equals(x.body)) problems.push(`${url}: body differs (${r.body.length} bytes, expected ${x.body.length})`);
    if (x.kind === 'application/zip' && !r.body.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1')))
      problems.push(`${url}: not a ZIP (starts ${r.body.subarray(0, 4).toString('hex')})`);
    if (method === 'HEAD' && (r.body.length !== 0 || !(Number(r.headers['content-length']) > 0)))
      problems.push(`${url}: HEAD body ${r.body.length} bytes, Content-Length ${r.headers['content-length']}`);
    if (r.headers['access-control-allow-origin'] !== '*')
      problems.push(`${url}: Access-Control-Allow-Origin "${r.headers['access-control-allow-origin']}"`);
  }
  return problems;
}
