// `serve` against hostile requests and an unlucky disk: files that cannot be read or that turned into something
// else after startup, malformed request targets, and a rebuild of the site while it is served (issue 12).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSiteServer } from '../../dist/index.js';
import { httpGet } from '../helpers/http.js';
import {
  BIN,
  EXAMPLE_CONFIG,
  EXAMPLE_DATA,
  IS_ROOT,
  REAL_EPDS,
  SETPRIV,
  build,
  buildExample,
  cleanup,
  nodeAsNobody,
  tmp,
} from '../helpers/index.js';

/** One raw request line, as a client that does not normalise the target sends it; resolves { status, body }. */
function raw(port, target, method = 'GET') {
  return new Promise((ok, fail) => {
    const c = connect(port, '127.0.0.1');
    let data = '';
    c.setTimeout(5000, () => c.destroy(new Error(`timeout on ${target}`)));
    c.on('connect', () => c.write(`${method} ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
    c.on('data', (d) => (data += d.toString('latin1')));
    c.on('error', fail);
    c.on('end', () => {
      const [head, ...body] = data.split('\r\n\r\n');
      ok({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: body.join('\r\n\r\n') });
    });
  });
}

/**
 * `po-node serve` in a child process, so a crash or a blocked event loop shows as a failed request, not a hung
 * test. As root (CI) it runs as nobody: mode 000 stops nobody, not root, so EACCES is real.
 */
async function serveChild(site) {
  const cmd = nodeAsNobody();
  const child = spawn(cmd[0], [...cmd.slice(1), BIN, 'serve', site, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise((ok) => child.on('exit', (code, sig) => ok(code ?? sig)));
  const port = await new Promise((ok, fail) => {
    child.stderr.on('data', () => {
      const m = /at http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) ok(Number(m[1]));
    });
    void exited.then((c) => fail(new Error(`serve exited (${c}) before listening:\n${err}`)));
  });
  return {
    port,
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** One built example for the first three tests (the last one replaces files: it runs after the others). */
let built;
async function site() {
  if (!built) {
    // No XSD pass: these tests are about serving, and it is most of the build time.
    built = (await buildExample({ xsd: false, zipExport: true })).out;
    for (const d of [dirname(built), built]) chmodSync(d, 0o755);
  }
  return built;
}

const S = suite('serve: hostile requests and files');
S.after(() => cleanup());

S('malformed targets (NUL, bad escapes, overlong UTF-8, backslashes): 400 or 404, never 500, never outside the site', async () => {
  const out = await site();
  const logs = [];
  const srv = createSiteServer(out, { port: 0, log: (l) => logs.push(l) });
  const { port } = await srv.listen();
  try {
    const u = REAL_EPDS[0].uuid;
    const bad400 = [
      '/%00',
      `/resource/processes/${u}%00`,
      `/resource/processes/${u}%00.xml?version=00.01.000`,
      '/healthz%00',
      '/resource/processes%00?startIndex=0',
      '/%01',
      '/%zz',
      '/%',
      '/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd',
      '/%e0%80%ae%e0%80%ae/etc/passwd',
      '/%ff',
      '/..\\..\\etc\\passwd',
      '/resource\\processes',
      `/resource/processes\\${u}`,
      '/%5c..%5c..%5cetc%5cpasswd',
      `/resource/processes/${u}%5c`,
      'http://[/resource/processes',
    ];
    const bad404 = [
      '/../../etc/passwd',
      '/resource/processes/..%2f..%2f..%2f..%2fetc%2fpasswd',
      `/resource/sources/${u}/..%2f..%2f..%2fetc%2fpasswd`,
      '/%2e%2e/%2e%2e/etc/passwd',
      `/${'a'.repeat(5000)}`,
      `/resource/${'b/'.repeat(2000)}x`,
    ];
    for (const t of bad400) {
      const r = await raw(port, t);
      assert.is(r.status, 400, `${t}: ${r.status} ${r.body}`);
      assert.match(r.body, /^Malformed URL/, t);
    }
    for (const t of bad404) assert.is((await raw(port, t)).status, 404, t.slice(0, 80));
    for (const t of [...bad400, ...bad404]) assert.not.match((await raw(port, t, 'HEAD')).status, /^5/, t);
    assert.equal(logs, [], 'nothing to log: the client erred, not the server');
    assert.is((await httpGet(port, '/healthz')).status, 200);
  } finally {
    await srv.close();
  }
});

S('an unreadable EPD file or folder: 403 with a short message, logged; the server keeps serving', async () => {
  if (IS_ROOT && !SETPRIV) {
    if (process.env.CI) assert.unreachable('setpriv (util-linux) is needed to run serve as nobody in CI');
    return console.warn('\n  NOTICE: no setpriv: the EACCES case of serve is SKIPPED\n');
  }
  const out = await site();
  const [a, b] = REAL_EPDS;
  const s = await serveChild(out);
  try {
    chmodSync(join(out, 'resource/processes', a.uuid), 0);
    chmodSync(join(out, 'resource/processes', `${b.uuid}_files`), 0);
    for (const [path, headers, method] of /** @type {[string, Record<string, string>, string?][]} */ ([
      [`/resource/processes/${a.uuid}`, {}],
      [`/resource/processes/${a.uuid}`, {}, 'HEAD'],
      [`/resource/processes/${a.uuid}`, { Range: 'bytes=0-9', 'Accept-Encoding': 'gzip' }],
      [`/resource/processes/${a.uuid}?version=${a.version}`, {}],
      [`/resource/processes/${b.uuid}/zipexport`, {}],
    ])) {
      const r = await httpGet(s.port, path, headers, method);
      assert.is(r.status, 403, `${method ?? 'GET'} ${path}`);
      if (method !== 'HEAD') assert.is(r.body.toString(), 'Forbidden: the server may not read this file\n');
      assert.is((await httpGet(s.port, '/healthz')).status, 200, `after ${path}`);
    }
    assert.is(s.child.exitCode, null, s.stderr());
    assert.match(s.stderr(), `serve: 403 GET /resource/processes/${a.uuid}: EACCES: cannot read resource/processes/${a.uuid}`);
    assert.match(s.stderr(), `EACCES: cannot read resource/processes/${b.uuid}_files/zipexport.zip`);
    assert.not.match(s.stderr(), /\n\s+at /, 'no stack trace');
    assert.is((await httpGet(s.port, `/resource/processes/${REAL_EPDS[2].uuid}`)).status, 200);
  } finally {
    chmodSync(join(out, 'resource/processes', a.uuid), 0o644);
    chmodSync(join(out, 'resource/processes', `${b.uuid}_files`), 0o755);
    assert.is(await s.stop(), 0, s.stderr());
  }
});

S('a file replaced after startup by a folder, a dangling symlink or a FIFO: 404 at once, never a hang', async () => {
  const out = await site();
  const s = await serveChild(out);
  const [dir, link, fifo, , gz] = REAL_EPDS;
  const at = (u) => join(out, 'resource/processes', u);
  try {
    // The first paged request loads the list; the FIFO put in its place below must not block the reload. A size the
    // build did not pre-page (3): a written page (size 1) is sent as a file, without the list.
    assert.is((await httpGet(s.port, '/resource/processes?pageSize=3')).status, 200);
    rmSync(at(dir.uuid));
    mkdirSync(at(dir.uuid));
    rmSync(at(link.uuid));
    symlinkSync(join(out, 'no-such-file'), at(link.uuid));
    rmSync(at(fifo.uuid));
    execFileSync('mkfifo', [at(fifo.uuid)]);
    execFileSync('mkfifo', [`${at(gz.uuid)}.gz`]);
    renameSync(join(out, 'resource/processes/index.json'), join(out, 'resource/processes/index.json.moved'));
    execFileSync('mkfifo', [join(out, 'resource/processes/index.json')]);
    const started = Date.now();
    for (const d of [dir, link, fifo]) {
      for (const q of ['', `?version=${d.version}`]) {
        for (const headers of [{}, { Range: 'bytes=0-9' }, { 'Accept-Encoding': 'gzip' }]) {
          const r = await httpGet(s.port, `/resource/processes/${d.uuid}${q}`, headers);
          assert.is(r.status, 404, `${d.uuid}${q} ${JSON.stringify(headers)}: ${r.body}`);
        }
      }
    }
    // A FIFO in place of the .gz copy: the plain file is sent.
    const plain = await httpGet(s.port, `/resource/processes/${gz.uuid}`, { 'Accept-Encoding': 'gzip' });
    assert.equal([plain.status, plain.headers['content-encoding']], [200, undefined]);
    // The list changed (its index.json is a FIFO now): the reload refuses it instead of waiting for a writer.
    assert.is((await httpGet(s.port, '/resource/processes?pageSize=3')).status, 404, 'paged list with a FIFO as index.json');
    assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
    assert.is((await httpGet(s.port, '/healthz')).status, 200);
    assert.is(s.child.exitCode, null, s.stderr());
  } finally {
    assert.is(await s.stop(), 0, s.stderr());
  }
});

S('a rebuild into the served folder: paged list and search show the new EPD (the index is reloaded)', async () => {
  const out = join(tmp(), 'site');
  const now = new Date('2026-01-02T03:04:05Z');
  const parquet = REAL_EPDS[0];
  const others = readdirSync(EXAMPLE_DATA)
    .filter((d) => !parquet.file.startsWith(`${d}/`))
    .map((d) => join(EXAMPLE_DATA, d));
  await build({ config: EXAMPLE_CONFIG, out, now, inputs: others, xsd: false });
  const logs = [];
  const srv = createSiteServer(out, { port: 0, log: (l) => logs.push(l) });
  const { port } = await srv.listen();
  const get = async (q, headers) => httpGet(port, `/resource/processes?${q}`, headers);
  const total = async (q) => Number(/serviceapi:totalSize="(\d+)"/.exec((await get(q)).body.toString())?.[1]);
  try {
    assert.is(await total('startIndex=0&pageSize=1'), 4);
    assert.is(await total('search=true&name=parquet'), 0);
    const before = await get('startIndex=0&pageSize=1');
    const json = JSON.parse((await get('format=json&startIndex=0&pageSize=10')).body);
    assert.not.ok(json.data.some((d) => d.uuid === parquet.uuid));

    await build({ config: EXAMPLE_CONFIG, out, now, xsd: false });
    assert.match(readFileSync(join(out, 'resource/processes/index.xml'), 'utf8'), parquet.uuid, 'the static list has it');
    assert.is(await total('startIndex=0&pageSize=1'), 5);
    assert.is(await total('search=true&name=parquet'), 1);
    assert.match((await get('search=true&name=parquet')).body.toString(), parquet.uuid);
    const after = JSON.parse((await get('format=json&startIndex=0&pageSize=10')).body);
    assert.ok(after.data.some((d) => d.uuid === parquet.uuid));
    // The copy a client kept from before the rebuild is no longer current.
    const again = await get('startIndex=0&pageSize=1', { 'If-None-Match': before.headers.etag });
    assert.is(again.status, 200);
    assert.is.not(again.headers.etag, before.headers.etag);
    assert.equal(logs, []);
    // Between the two renames of a swap the folder is absent: a paged request waits for it (retries, 0.75 s in all)...
    renameSync(out, `${out}.away`);
    const waiting = get('startIndex=0&pageSize=1');
    setTimeout(() => renameSync(`${out}.away`, out), 100);
    assert.is((await waiting).status, 200);
    // ...and says so when it does not come back: 503 with Retry-After, logged; the server goes on.
    renameSync(out, `${out}.away`);
    const gone = await get('startIndex=0&pageSize=1');
    assert.equal([gone.status, gone.headers['retry-after']], [503, '1']);
    assert.match(gone.body.toString(), /is a build replacing the site\?/);
    assert.is(logs.length, 1);
    assert.match(logs[0], /^serve: 503 GET \/resource\/processes\?startIndex=0&pageSize=1: /);
    renameSync(`${out}.away`, out);
    assert.is(await total('startIndex=0&pageSize=1'), 5);
  } finally {
    await srv.close();
  }
});

S.run();
