import type { HostEmitter } from './types.js';
import { configPath, fillTemplate } from './template.js';

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
    });
    return { site: [], deploy: [{ path: 'nginx/po-node.conf', contentType: 'text/plain', source: { text } }] };
  },
};
