import { ConfigError } from '../errors.js';
import type { PlannedFile } from '../emit/files.js';
import { apache } from './apache.js';
import { githubPages } from './github-pages.js';
import { nginx } from './nginx.js';
import { cloudflarePages, netlify } from './redirects.js';
import { s3CloudFront } from './s3-cloudfront.js';
import { HOST_NAMES, type HostContext, type HostEmitter, type HostName } from './types.js';
import { append } from '../append.js';

export { HOST_NAMES, type HostName, type HostEmitter, type DeploySettings } from './types.js';

export const HOSTS: Record<HostName, HostEmitter> = {
  nginx,
  apache,
  netlify,
  'cloudflare-pages': cloudflarePages,
  'github-pages': githubPages,
  's3-cloudfront': s3CloudFront,
};

/** Parse `--host a,b` / config `hosts`: known names, no duplicates, no two hosts fighting over one file. */
export function parseHosts(names: readonly string[]): HostName[] {
  const out: HostName[] = [];
  for (const raw of names.flatMap((n) => n.split(','))) {
    const n = raw.trim().toLowerCase();
    if (!n) continue;
    if (!(HOST_NAMES as readonly string[]).includes(n)) {
      throw new ConfigError(`Unknown host "${raw.trim()}"`, { hint: `Known hosts: ${HOST_NAMES.join(', ')}.` });
    }
    if (!out.includes(n as HostName)) out.push(n as HostName);
  }
  if (out.includes('netlify') && out.includes('cloudflare-pages')) {
    throw new ConfigError('Hosts netlify and cloudflare-pages both need their own _redirects; build one at a time', { hint: 'Run two builds with different --out folders.' });
  }
  return out;
}

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
