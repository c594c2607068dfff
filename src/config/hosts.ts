import { ConfigError } from '../errors.js';

/** Host names and deploy settings belong to the config: hosts/ emits files for them and imports these from here. */
export const HOST_NAMES = ['nginx', 'apache', 'netlify', 'cloudflare-pages', 'github-pages', 's3-cloudfront'] as const;
export type HostName = (typeof HOST_NAMES)[number];
/** Hosts whose configs serve `<file>.gz`/`.br` for `<file>`; the others compress on their own (docs/hosting.md). */
export const HOSTS_SERVING_PRECOMPRESSED: readonly HostName[] = ['nginx', 'apache'];
/**
 * CloudFront compresses XML, JSON and HTML of 1,000 to 10,000,000 bytes on its own ("Serve compressed files",
 * CloudFront Developer Guide); larger documents reach viewers compressed only as precompressed objects.
 */
export const CLOUDFRONT_COMPRESS_MAX_BYTES = 10_000_000;

/** Where and how the deploy configs point at the site (config "deploy", flags). */
export interface DeploySettings {
  /** Folder for configs that do not belong in the published tree (absolute). */
  out: string;
  /** Path of the site on the server, written into nginx/Apache configs (default: the build's output folder). */
  siteRoot: string;
  serverName: string;
  /** nginx `listen` value; Apache uses `*:<port>` for a bare port. */
  listen: string;
  /** nginx serves the .br siblings (brotli_static): only where the ngx_brotli module is loaded, else nginx refuses the config. */
  nginxBrotli: boolean;
}

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
    throw new ConfigError('Hosts netlify and cloudflare-pages both need their own _redirects; build one at a time', {
      hint: 'Run two builds with different --out folders.',
    });
  }
  return out;
}
