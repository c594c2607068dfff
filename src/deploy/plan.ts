import { HEALTH_FILES, INDEX_HTML, isDatasetPath, isDocumentPath, SITE_TOP_FOLDERS } from '../site/routes.js';
import type { LocalFile } from './local.js';

/**
 * Upload phases, in order; each finishes before the next starts. Datasets and their documents first, so a list never
 * names an EPD that is not there yet; health last, so it describes a site that is complete; deletions after all.
 */
export const PHASES = ['datasets', 'lists', 'health'] as const;
export type Phase = (typeof PHASES)[number];

const HEALTH = new Set<string>(Object.values(HEALTH_FILES));

export function phaseOf(rel: string): Phase {
  if (isDatasetPath(rel) || isDocumentPath(rel)) return 'datasets';
  if (HEALTH.has(rel)) return 'health';
  // Lists (all types, both path sets), nodeinfo, index.html and the EPD pages (their links lead to the datasets).
  return 'lists';
}

/** An object under the target prefix; `md5` when known (a single-part ETag, or po-node's metadata). */
export interface RemoteObject {
  rel: string;
  key: string;
  size: number;
  etag: string;
  md5?: string;
}

export interface Upload {
  rel: string;
  key: string;
  abs: string;
  size: number;
  md5: string;
  contentType: string;
  /** Precompressed copies of documents too large for CloudFront to compress (docs/hosting.md). */
  contentEncoding?: LocalFile['contentEncoding'];
  cacheControl: string;
  phase: Phase;
  reason: 'new' | 'changed' | 'forced';
}

export interface DeployPlan {
  /** In phase order, then by path. */
  uploads: Upload[];
  unchanged: number;
  /** Remote objects the site no longer has, by path. */
  deletions: RemoteObject[];
  /** Remote objects outside po-node's folders (another site under a sub-prefix, robots.txt): never deleted. */
  kept: number;
}

/**
 * What a po-node site can hold: the API folders and index.html. Anything else under the prefix is not po-node's,
 * so a deploy to a bucket's root cannot delete a second node deployed below it, or files put there by hand.
 */
export function isSiteObject(rel: string): boolean {
  return rel === INDEX_HTML || SITE_TOP_FOLDERS.some((f) => rel.startsWith(`${f}/`));
}

/** A quoted ETag that is a plain MD5 (single-part upload without SSE-KMS); multipart ETags end in -N. */
export function etagMd5(etag: string): string | undefined {
  const m = /^"?([0-9a-f]{32})"?$/i.exec(etag);
  return m?.[1]!.toLowerCase();
}

/** Compare the local files (with their MD5) with the remote objects; pure, so the dry run shows exactly this. */
export function planDeploy(
  local: readonly LocalFile[],
  md5: ReadonlyMap<string, string>,
  remote: ReadonlyMap<string, RemoteObject>,
  o: { keyOf: (rel: string) => string; cacheControl: string; force?: boolean },
): DeployPlan {
  const uploads: Upload[] = [];
  let unchanged = 0;
  for (const f of local) {
    const hash = md5.get(f.rel)!;
    const r = remote.get(f.rel);
    const same = r !== undefined && r.size === f.size && (r.md5 ?? etagMd5(r.etag)) === hash;
    if (same && !o.force) {
      unchanged++;
      continue;
    }
    const reason = !r ? 'new' : same ? 'forced' : 'changed';
    const { rel, abs, size, contentType } = f;
    const u: Upload = {
      rel,
      key: o.keyOf(rel),
      abs,
      size,
      md5: hash,
      contentType,
      cacheControl: o.cacheControl,
      phase: phaseOf(rel),
      reason,
    };
    if (f.contentEncoding) u.contentEncoding = f.contentEncoding;
    uploads.push(u);
  }
  const order = (u: Upload) => PHASES.indexOf(u.phase);
  uploads.sort((a, b) => order(a) - order(b) || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const have = new Set(local.map((f) => f.rel));
  const gone = [...remote.values()].filter((r) => !have.has(r.rel));
  const deletions = gone.filter((r) => isSiteObject(r.rel)).sort((a, b) => (a.rel < b.rel ? -1 : 1));
  return { uploads, unchanged, deletions, kept: gone.length - deletions.length };
}
