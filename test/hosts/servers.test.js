// Real nginx and Apache httpd with the configs `build --host nginx,apache` emits, on the built example node.
// They run in the foreground with their own prefix, pid and logs in a temp folder, on a free 127.0.0.1 port.
// A missing binary skips with a notice on a developer machine, and fails in CI (env CI set).
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiExpectations, checkApi, ODD_DOC, freePort, httpGet, startProcess } from '../helpers/http.js';
import { APACHE, APACHE_MODULES, missing, NGINX, startApache, startNginx } from '../helpers/servers.js';
import { EXAMPLE_CONFIG, EXAMPLE_DATA, REAL_EPDS, build, cleanup, tmp, wrongModes } from '../helpers/index.js';

let ctx;
async function setup() {
  if (ctx) return ctx;
  const dir = tmp('po-node-hosts-');
  const port = await freePort();
  const cfg = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
  delete cfg.$schema;
  Object.assign(cfg, {
    inputs: [EXAMPLE_DATA],
    out: join(dir, 'site'),
    hosts: ['nginx', 'apache', 'github-pages'],
    zipExport: true,
    deploy: { listen: `127.0.0.1:${port}`, serverName: 'localhost' },
  });
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify(cfg));
  // A strict umask, as on hardened runners: the site must still be readable by the unprivileged workers.
  const umask = process.umask(0o077);
  let result;
  try {
    result = await build({ config: join(dir, 'po-node.config.json'), now: new Date('2026-01-02T03:04:05Z') });
  } finally {
    process.umask(umask);
  }
  assert.is(result.status, 'ok');
  const out = cfg.out;
  // Served exactly as built: no chmod of the site below, only of the test's own temp folder above it.
  assert.equal(wrongModes(out), [], 'folders 0755, files 0644');
  chmodSync(dir, 0o755);
  // A document name with spaces and non-ASCII characters (the example's names are ASCII): hosts match it decoded.
  writeFileSync(join(out, `resource/sources/${ODD_DOC.source}_files/${ODD_DOC.name}`), ODD_DOC.bytes);
  const expectations = apiExpectations(out);
  assert.ok(expectations.some((x) => x.url.endsWith(encodeURIComponent(ODD_DOC.name))));
  // Precompressed copies for two files: the servers must send them to gzip clients and the plain file to others.
  const uuid = REAL_EPDS[0].uuid;
  writeFileSync(join(out, 'resource/processes', `${uuid}.gz`), gzipSync(readFileSync(join(out, 'resource/processes', uuid))));
  writeFileSync(join(out, 'resource/processes/index.xml.gz'), gzipSync(readFileSync(join(out, 'resource/processes/index.xml'))));
  // An ACME challenge must stay reachable even though hidden files are refused.
  mkdirSync(join(out, '.well-known/acme-challenge'), { recursive: true });
  writeFileSync(join(out, '.well-known/acme-challenge/token'), 'acme-ok');
  ctx = { dir, port, out, deploy: `${out}-deploy`, expectations, uuid };
  return ctx;
}

async function extraChecks(port, out, uuid) {
  const problems = [];
  for (const [url, file, kind] of [
    [`/resource/processes/${uuid}`, `resource/processes/${uuid}`, 'xml'],
    ['/resource/processes', 'resource/processes/index.xml', 'xml'],
  ]) {
    const r = await httpGet(port, url, { 'Accept-Encoding': 'gzip' });
    if (r.status !== 200) problems.push(`${url} gzip: status ${r.status}`);
    else if (r.headers['content-encoding'] !== 'gzip') problems.push(`${url} gzip: Content-Encoding "${r.headers['content-encoding']}"`);
    else if (!gunzipSync(r.body).equals(readFileSync(join(out, file)))) problems.push(`${url} gzip: body differs after gunzip`);
    else if (!new RegExp(`^application/${kind}`).test(String(r.headers['content-type'])))
      problems.push(`${url} gzip: Content-Type ${r.headers['content-type']}`);
  }
  const hidden = await httpGet(port, '/.po-node.json');
  if (hidden.status !== 404) problems.push(`/.po-node.json: ${hidden.status}, expected 404`);
  const acme = await httpGet(port, '/.well-known/acme-challenge/token');
  if (acme.status !== 200 || acme.body.toString() !== 'acme-ok') problems.push(`/.well-known/acme-challenge/token: ${acme.status}`);
  const o = await httpGet(port, '/resource/processes', {}, 'OPTIONS');
  if (o.status !== 204 || o.headers['access-control-allow-origin'] !== '*')
    problems.push(`OPTIONS: ${o.status} ${o.headers['access-control-allow-origin']}`);
  return problems;
}

const Nginx = suite('hosts: real nginx');
if (!NGINX) {
  missing(Nginx, 'nginx', 'every API URL through nginx');
} else {
  Nginx('every API URL of both path sets through nginx with the emitted conf.d file', async () => {
    const { dir, port, out, deploy, expectations, uuid } = await setup();
    const server = await startNginx(dir, deploy, port);
    try {
      const problems = [...(await checkApi(port, expectations)), ...(await extraChecks(port, out, uuid))];
      assert.equal(problems, [], problems.join('\n'));
      assert.ok(expectations.length > 150, `${expectations.length} URLs checked`);
    } finally {
      await server.stop();
    }
  });
}
// The same file dropped into the distribution's own http block (Debian nginx.conf: mime.types, gzip on, ...).
const STOCK = '/etc/nginx/nginx.conf';
const DEBIAN_MODULES = '/usr/share/nginx/modules';
if (NGINX && existsSync(STOCK)) {
  Nginx('the conf.d file works inside the stock nginx.conf http block', async () => {
    const { dir, port, deploy, expectations } = await setup();
    const prefix = join(dir, 'nginx-stock');
    mkdirSync(prefix, { recursive: true });
    // Debian's modules-enabled/*.conf load modules by paths relative to the prefix (/usr/share/nginx, whose modules/
    // links to /usr/lib/nginx/modules): the same link here, or a module installed there (brotli) stops nginx.
    if (existsSync(DEBIAN_MODULES)) symlinkSync(DEBIAN_MODULES, join(prefix, 'modules'));
    const stock = readFileSync(STOCK, 'utf8');
    assert.match(stock, /include \/etc\/nginx\/conf\.d\/\*\.conf;/);
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      'daemon off;\n' +
        stock
          .replace(/^\s*pid [^;]+;/m, `pid ${prefix}/nginx.pid;`)
          .replace(/^\s*error_log [^;]+;/gm, `error_log ${prefix}/error.log;`)
          .replace(/^\s*access_log [^;]+;/gm, `access_log ${prefix}/access.log;`)
          .replace('include /etc/nginx/conf.d/*.conf;', `include ${deploy}/nginx/po-node.conf;`)
          .replace(/^\s*include \/etc\/nginx\/sites-enabled\/\*;/m, ''),
    );
    const server = await startProcess(NGINX, ['-p', prefix, '-c', conf, '-e', `${prefix}/error.log`], port, join(prefix, 'error.log'));
    try {
      assert.equal(await checkApi(port, expectations), []);
    } finally {
      await server.stop();
    }
  });
} else if (NGINX) {
  console.warn(`\n  NOTICE: ${STOCK} not found: the stock-config nginx test is SKIPPED\n`);
}

Nginx.run();

const Apache = suite('hosts: real Apache httpd');
if (!APACHE || !APACHE_MODULES) {
  missing(Apache, 'apache2', 'every API URL through Apache');
} else {
  Apache('every API URL of both path sets through Apache with the emitted vhost and .htaccess', async () => {
    const { dir, port, out, deploy, expectations, uuid } = await setup();
    const server = await startApache(dir, deploy, port);
    try {
      const problems = [...(await checkApi(port, expectations)), ...(await extraChecks(port, out, uuid))];
      assert.equal(problems, [], `${problems.join('\n')}\n${server.output()}`);
    } finally {
      await server.stop();
    }
  });
}
Apache.after(cleanup);
Apache.run();
