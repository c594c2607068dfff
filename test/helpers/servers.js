// Real nginx and Apache httpd in the foreground with their own prefix, pid and logs in a temp folder, serving the
// host configs `build --host nginx,apache` emitted (unprivileged workers when the tests run as root).
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { findBinary, startProcess } from './http.js';
import { IS_ROOT } from './index.js';

export const NGINX = process.env.PO_NODE_TEST_NO_SERVERS ? null : findBinary('/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx');
export const APACHE = process.env.PO_NODE_TEST_NO_SERVERS
  ? null
  : findBinary('/usr/sbin/apache2', '/usr/sbin/httpd', '/usr/local/sbin/httpd');
export const APACHE_MODULES = ['/usr/lib/apache2/modules', '/usr/lib64/httpd/modules', '/usr/lib/httpd/modules'].find((d) => {
  try {
    return statSync(d).isDirectory();
  } catch {
    return false;
  }
});

/** Debian's brotli_static module for nginx (libnginx-mod-http-brotli-static), or null. */
export const NGINX_BROTLI = findBinary('/usr/lib/nginx/modules/ngx_http_brotli_static_module.so');

/**
 * nginx with the emitted conf.d file (`<deploy>/nginx/po-node.conf`) in a minimal http block; prefix in `dir`;
 * `modules`: dynamic modules to load (files).
 */
export function startNginx(dir, deploy, port, { modules = [] } = {}) {
  const prefix = join(dir, 'nginx');
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(
    conf,
    modules.map((m) => `load_module ${m};\n`).join('') +
      `${IS_ROOT ? 'user nobody nogroup;\n' : ''}worker_processes 1;\ndaemon off;\npid ${prefix}/nginx.pid;\nerror_log ${prefix}/logs/error.log;\nevents { worker_connections 64; }\n` +
      `http {\n  access_log ${prefix}/logs/access.log;\n  client_body_temp_path ${prefix}/body;\n  proxy_temp_path ${prefix}/proxy;\n  fastcgi_temp_path ${prefix}/fastcgi;\n  uwsgi_temp_path ${prefix}/uwsgi;\n  scgi_temp_path ${prefix}/scgi;\n` +
      `  include ${deploy}/nginx/po-node.conf;\n}\n`,
  );
  return startProcess(NGINX, ['-p', prefix, '-c', conf, '-e', `${prefix}/logs/error.log`], port, join(prefix, 'logs/error.log'));
}

/**
 * Apache httpd with the emitted vhost (`<deploy>/apache/po-node.conf`) and the site's .htaccess; ServerRoot in `dir`.
 * `modules` (names) are loaded too and `server` lines go into the server config (what a distribution enables).
 */
export function startApache(dir, deploy, port, { modules = [], server = '' } = {}) {
  const prefix = join(dir, 'apache');
  mkdirSync(prefix, { recursive: true });
  chmodSync(prefix, 0o755);
  const mods = ['mpm_event', 'authz_core', 'mime', 'dir', 'rewrite', 'headers', ...modules];
  const conf = join(prefix, 'httpd.conf');
  writeFileSync(
    conf,
    `ServerRoot ${prefix}\nTypesConfig /dev/null\nDefaultRuntimeDir ${prefix}\nPidFile ${prefix}/httpd.pid\nErrorLog ${prefix}/error.log\nLogLevel warn\nMutex file:${prefix} default\n` +
      mods.map((m) => `LoadModule ${m}_module ${APACHE_MODULES}/mod_${m}.so`).join('\n') +
      `\n${IS_ROOT ? 'User www-data\nGroup www-data\n' : ''}ServerName localhost\nListen 127.0.0.1:${port}\n` +
      `${server}<Directory />\n  AllowOverride None\n  Require all denied\n</Directory>\nInclude ${deploy}/apache/po-node.conf\n`,
  );
  return startProcess(APACHE, ['-f', conf, '-DFOREGROUND'], port, join(prefix, 'error.log'));
}

/** No binary: a visible skip on a developer machine, a failing test in CI (env CI), never a silent pass. */
export function missing(s, name, title) {
  if (process.env.CI) {
    s(title, () =>
      assert.unreachable(`${name} is not installed, and CI must run the real-server tests (.ci/run installs it with apt-get)`),
    );
    return;
  }
  console.warn(`\n  NOTICE: ${name} not found: its real-server test is SKIPPED (install it: apt-get install ${name})\n`);
  s.skip(title, () => {});
}
