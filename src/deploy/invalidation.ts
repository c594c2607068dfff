import { subResourceOf } from '../site/routes.js';

/**
 * CloudFront paths to invalidate for changed site files: every URL that serves the file (the API form the
 * viewer-request function rewrites, templates/hosts/cloudfront-function.js) and the file's own path.
 */

/** Paths CloudFront accepts in one request; also the most a distribution has in progress at once. */
export const MAX_PATHS_PER_REQUEST = 1000;
const MAX_PATHS_IN_PROGRESS = 3000;

/** The URL paths (site-relative, unencoded) a site file answers at. */
export function urlsOf(rel: string): string[] {
  const urls = [`/${rel}`];
  const index = /^(?:(.*)\/)?index\.(?:xml|json|html)$/.exec(rel);
  if (index) {
    // A folder's index answers at the folder, with and without the slash (the site root only as "/").
    urls.push(index[1] ? `/${index[1]}` : '/');
    if (index[1]) urls.push(`/${index[1]}/`);
  }
  // Below a dataset URL: `<uuid>_files/<file>` is served at `<uuid>/<name>` (src/site/routes.ts SUB_RESOURCES).
  const sub = subResourceOf(rel);
  if (sub) urls.push(sub.url);
  return urls;
}

/** Percent-encoded as CloudFront wants it; `*` too, which would otherwise be a wildcard. */
function encodePath(p: string): string {
  return p
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/\*/g, '%2A'))
    .join('/');
}

/** Sorted, unique paths for the changed files; `/*` alone when there are more than a distribution can take at once. */
export function invalidationPaths(rels: readonly string[]): { paths: string[]; wildcard: boolean } {
  const paths = [...new Set(rels.flatMap(urlsOf).map(encodePath))].sort();
  if (paths.length > MAX_PATHS_IN_PROGRESS) return { paths: ['/*'], wildcard: true };
  return { paths, wildcard: false };
}

export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
