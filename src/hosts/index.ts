import type { PlannedFile } from '../emit/files.js';
import { apache } from './apache.js';
import { githubPages } from './github-pages.js';
import { nginx } from './nginx.js';
import { cloudflarePages, netlify } from './redirects.js';
import { s3CloudFront } from './s3-cloudfront.js';
import type { HostName } from '../config/hosts.js';
import type { HostContext, HostEmitter } from './types.js';
import { append } from '../util/append.js';

export { HOST_NAMES, parseHosts, type HostName, type DeploySettings } from '../config/hosts.js';
export type { HostEmitter } from './types.js';

export const HOSTS: Record<HostName, HostEmitter> = {
  nginx,
  apache,
  netlify,
  'cloudflare-pages': cloudflarePages,
  'github-pages': githubPages,
  's3-cloudfront': s3CloudFront,
};

/** Every host's files, in host order; paths are checked for clashes by the plan. */
export function emitHosts(hosts: readonly HostName[], ctx: HostContext): { site: PlannedFile[]; deploy: PlannedFile[] } {
  const site: PlannedFile[] = [];
  const deploy: PlannedFile[] = [];
  for (const h of hosts) {
    const o = HOSTS[h].emit(ctx);
    append(site, o.site);
    append(deploy, o.deploy);
  }
  return { site, deploy };
}
