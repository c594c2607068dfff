import type { HostEmitter } from './types.js';
import { configPath, fillTemplate } from './template.js';

/** Apache: .htaccess in the tree (also works on shared hosting), a vhost snippet that enables it. */
export const apache: HostEmitter = {
  name: 'apache',
  title: 'Apache httpd',
  emit({ cfg }) {
    const d = cfg.deploy;
    const listen = /^\d+$/.test(d.listen) ? `*:${d.listen}` : d.listen;
    return {
      site: [{ path: '.htaccess', contentType: 'text/plain', source: { text: fillTemplate('hosts/htaccess', {}) } }],
      deploy: [
        {
          path: 'apache/po-node.conf',
          contentType: 'text/plain',
          source: {
            text: fillTemplate('hosts/apache-vhost.conf', {
              LISTEN: listen,
              SERVER_NAME: d.serverName,
              ROOT: configPath(d.siteRoot, 'an Apache config'),
            }),
          },
        },
      ],
    };
  },
};
