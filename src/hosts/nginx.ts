import type { HostEmitter } from './types.js';
import type { ResolvedConfig } from '../config/load.js';
import { configPath, fillTemplate } from './template.js';
import { PAGES_DIR, pageSizeAlternation } from '../site/routes.js';

/** The map entries of the pre-paged list (templates/hosts/nginx.conf): the probe (size 1 at 0), then the other sizes. */
export function nginxPageRules(pageSizes: readonly number[]): string {
  const rules: string[] = [];
  if (pageSizes.includes(1)) rules.push(`    "~^\\|1\\|0?$" /${PAGES_DIR}/1/0;`);
  const sizes = pageSizeAlternation(pageSizes);
  if (sizes) {
    rules.push(`    "~^\\|(${sizes})\\|$" /${PAGES_DIR}/$1/0;`);
    rules.push(`    "~^\\|(${sizes})\\|(\\d+)$" /${PAGES_DIR}/$1/$2;`);
  }
  return rules.map((r) => `${r}\n`).join('');
}

/**
 * brotli_static where the config says the server has the module (an unknown directive stops nginx from starting);
 * else the line as a comment saying what it needs. No .br siblings written: nothing about brotli.
 */
function nginxBrotli(cfg: ResolvedConfig): string {
  if (!cfg.precompress.encodings.includes('br')) return '';
  if (cfg.deploy.nginxBrotli) return '    brotli_static on;\n';
  return (
    '    # The .br siblings need the ngx_brotli static module (Debian: libnginx-mod-http-brotli-static); with it loaded, set\n' +
    '    # "deploy": {"nginxBrotli": true} (or uncomment the line). Without it nginx refuses the directive.\n' +
    '    # brotli_static on;\n'
  );
}

/** nginx: one conf.d file (map + server) outside the tree; nothing inside it. */
export const nginx: HostEmitter = {
  name: 'nginx',
  title: 'nginx',
  emit({ cfg }) {
    const d = cfg.deploy;
    const text = fillTemplate('hosts/nginx.conf', {
      LISTEN: d.listen,
      SERVER_NAME: d.serverName,
      ROOT: configPath(d.siteRoot, 'an nginx config'),
      NGINX_PAGE_RULES: nginxPageRules(cfg.paging.pageSizes),
      NGINX_BROTLI: nginxBrotli(cfg),
    });
    return { site: [], deploy: [{ path: 'nginx/po-node.conf', contentType: 'text/plain', source: { text } }] };
  },
};
