import { CACHE_CONTROL } from '../site/routes.js';
import { pool } from '../util/pool.js';
import { ConfigError, PoNodeError } from '../errors.js';
import { GENERATOR_VERSION } from '../version.js';
import { batches, invalidationPaths, MAX_PATHS_PER_REQUEST } from './invalidation.js';
import { hashFiles, readSite, type LocalFile } from './local.js';
import { etagMd5, planDeploy, PHASES, type DeployPlan, type Phase, type RemoteObject } from './plan.js';
import { cloudFront, s3Store, type Cdn, type ClientOptions, type Store } from './store.js';
import { keyOf, parseTarget, targetUrl } from './target.js';

export interface DeployOptions {
  site: string;
  /** `s3://bucket[/prefix]`. */
  to: string;
  distributionId?: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Refuse the whole deploy when more objects would be deleted; -1: no limit. */
  maxDeletes?: number;
  dryRun?: boolean;
  /** Upload every file, changed or not (after a change of content types, say). */
  force?: boolean;
  cacheControl?: string;
  concurrency?: number;
  retries?: number;
  /** Seconds a request may go without any byte sent or received before it fails (and is retried). */
  requestTimeout?: number;
  onProgress?: (e: DeployProgress) => void;
  /** Upload the precompressed copies of documents above this size (default 10,000,000: what CloudFront compresses). */
  compressAbove?: number;
  /** Tests: clients other than the SDK's. */
  store?: Store;
  cdn?: Cdn;
}

export type DeployProgress =
  | { phase: 'scan'; files: number }
  | { phase: 'hash'; done: number; total: number }
  | { phase: 'list'; objects: number }
  | { phase: 'upload'; step: Phase; done: number; total: number; bytes: number }
  | { phase: 'delete'; done: number; total: number }
  | { phase: 'invalidate'; paths: number };

export interface DeployResult {
  /** false: refused (too many deletions); nothing was changed. */
  ok: boolean;
  dryRun: boolean;
  target: string;
  site: string;
  generator: string;
  files: number;
  skipped: { rel: string; reason: string }[];
  /** Precompressed siblings not uploaded: CloudFront compresses their documents (docs/hosting.md#precompressed-documents). */
  precompressedLeftOut?: number;
  remoteObjects: number;
  uploads: { key: string; phase: Phase; reason: string; bytes: number; contentType: string; contentEncoding?: string }[];
  uploadedBytes: number;
  unchanged: number;
  deletions: string[];
  /** Objects under the prefix outside po-node's folders, left alone. */
  kept: number;
  maxDeletes: number;
  refused?: string;
  invalidation?: { distributionId: string; paths: string[]; wildcard: boolean; ids: string[] };
  /** Objects whose ETag was not their MD5, so their metadata was read. */
  metadataReads: number;
  durationMs: number;
}

export const DEFAULT_MAX_DELETES = 256;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_RETRIES = 4;
/**
 * Without a limit, a store that accepts the connection and never answers (a stalled proxy or load balancer) held the
 * deploy, and the CI job with it, forever. Idle time, not total: a large list uploads as long as bytes move.
 */
const DEFAULT_REQUEST_TIMEOUT = 120;

/**
 * Upload what changed, in an order that keeps the live site consistent: datasets and documents, then the lists,
 * nodeinfo and index.html, then health; deletions last; then the CloudFront invalidation of exactly those URLs.
 * A failure stops before the next phase, so readers never see a list naming files that are not there.
 */
export async function deploy(o: DeployOptions): Promise<DeployResult> {
  const started = Date.now();
  const target = parseTarget(o.to);
  const maxDeletes = o.maxDeletes ?? DEFAULT_MAX_DELETES;
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  const retries = o.retries ?? DEFAULT_RETRIES;
  const whole = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
  const range = (flag: string, v: number, hint: string) => new ConfigError(`${flag} ${v} is out of range`, { hint });
  if (!whole(maxDeletes, -1, Infinity)) throw range('--max-deletes', maxDeletes, 'Use a whole number ≥ 0, or -1 for no limit.');
  if (!whole(concurrency, 1, 64)) throw range('--concurrency', concurrency, 'Use 1 to 64 (default 8).');
  if (!whole(retries, 0, 10)) throw range('--retries', retries, 'Use 0 to 10 (default 4).');
  const requestTimeout = o.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
  if (!whole(requestTimeout, 1, 3600)) throw range('--request-timeout', requestTimeout, 'Use 1 to 3600 seconds (default 120).');
  if (o.distributionId !== undefined && !/^[A-Z0-9]{1,64}$/.test(o.distributionId)) {
    const hint = 'It looks like E1ABCDEFGHIJKL (CloudFront console, or aws cloudfront list-distributions).';
    throw new ConfigError(`--distribution-id "${o.distributionId}" is not a CloudFront distribution id`, { hint });
  }
  const progress = o.onProgress ?? (() => {});
  const client: ClientOptions = {
    maxAttempts: retries + 1,
    idleTimeoutMs: requestTimeout * 1000,
    ...(o.region ? { region: o.region } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.forcePathStyle ? { forcePathStyle: true } : {}),
  };

  const site = await readSite(o.site, o.compressAbove);
  progress({ phase: 'scan', files: site.files.length });
  const store = o.store ?? (await s3Store(target, client));
  // Hash and list at once: both are reads.
  let hashed = 0;
  const [md5, remote] = await Promise.all([
    hashFiles(site.files, concurrency, () => progress({ phase: 'hash', done: ++hashed, total: site.files.length })),
    store.list(),
  ]);
  progress({ phase: 'list', objects: remote.size });
  const metadataReads = await resolveRemoteMd5(store, remote, site.files, md5, concurrency);
  const cacheControl = o.cacheControl ?? CACHE_CONTROL;
  const plan = planDeploy(site.files, md5, remote, { keyOf: (rel) => keyOf(target, rel), cacheControl, force: Boolean(o.force) });

  const result: DeployResult = {
    ok: true,
    dryRun: Boolean(o.dryRun),
    target: targetUrl(target),
    site: o.site,
    generator: `po-node ${GENERATOR_VERSION}`,
    files: site.files.length,
    skipped: site.skipped,
    ...(site.precompressed ? { precompressedLeftOut: site.precompressed } : {}),
    remoteObjects: remote.size,
    uploads: plan.uploads.map((u) => ({
      key: u.key,
      phase: u.phase,
      reason: u.reason,
      bytes: u.size,
      contentType: u.contentType,
      ...(u.contentEncoding ? { contentEncoding: u.contentEncoding } : {}),
    })),
    uploadedBytes: 0,
    unchanged: plan.unchanged,
    deletions: plan.deletions.map((d) => d.key),
    kept: plan.kept,
    maxDeletes,
    metadataReads,
    durationMs: 0,
  };
  const changed = [...plan.uploads.map((u) => u.rel), ...plan.deletions.map((d) => d.rel)];
  const inv =
    o.distributionId && changed.length
      ? { distributionId: o.distributionId, ...invalidationPaths(changed), ids: [] as string[] }
      : undefined;
  if (inv) result.invalidation = inv;
  const done = () => ((result.durationMs = Date.now() - started), result);

  if (maxDeletes >= 0 && plan.deletions.length > maxDeletes) {
    result.ok = false;
    const n = plan.deletions.length;
    result.refused = `${n} objects under ${result.target} would be deleted, more than --max-deletes ${maxDeletes}; nothing was changed`;
    return done();
  }
  if (o.dryRun) return done();

  await upload(store, plan, concurrency, progress, (n) => (result.uploadedBytes += n));
  let deleted = 0;
  await pool(plan.deletions, concurrency, async (d) => {
    await store.remove(d.key);
    progress({ phase: 'delete', done: ++deleted, total: plan.deletions.length });
  });
  if (inv) {
    progress({ phase: 'invalidate', paths: inv.paths.length });
    const cdn = o.cdn ?? (await cloudFront(client));
    const ref = `po-node-${started}`;
    // One request per batch, one after the other: CloudFront limits the invalidations in progress.
    for (const [i, b] of batches(inv.paths, MAX_PATHS_PER_REQUEST).entries()) {
      inv.ids.push(await cdn.invalidate(inv.distributionId, b, `${ref}-${i}`));
    }
  }
  return done();
}

/** Where a remote ETag is not the local MD5, the metadata may still hold it (multipart, SSE-KMS): read it. */
async function resolveRemoteMd5(
  store: Store,
  remote: Map<string, RemoteObject>,
  local: readonly LocalFile[],
  md5: ReadonlyMap<string, string>,
  concurrency: number,
): Promise<number> {
  // Same size, other ETag: the only case where the metadata can tell "unchanged".
  const unsure: RemoteObject[] = [];
  for (const f of local) {
    const r = remote.get(f.rel);
    if (r && r.size === f.size && etagMd5(r.etag) !== md5.get(f.rel)) unsure.push(r);
  }
  await pool(unsure, concurrency, async (r) => {
    const m = await store.metadataMd5(r.key);
    if (m) r.md5 = m;
  });
  return unsure.length;
}

async function upload(
  store: Store,
  plan: DeployPlan,
  concurrency: number,
  progress: (e: DeployProgress) => void,
  addBytes: (n: number) => void,
): Promise<void> {
  for (const step of PHASES) {
    const todo = plan.uploads.filter((u) => u.phase === step);
    if (!todo.length) continue;
    let n = 0;
    let bytes = 0;
    let failed = false;
    try {
      await pool(todo, concurrency, async (u) => {
        // After a failure the other workers take nothing more: the error is reported with what was done.
        if (failed) return;
        await store.put(u).catch((e: unknown) => {
          failed = true;
          throw e;
        });
        addBytes(u.size);
        bytes += u.size;
        progress({ phase: 'upload', step, done: ++n, total: todo.length, bytes });
      });
    } catch (e) {
      const later = PHASES.slice(PHASES.indexOf(step) + 1).join(', ');
      const msg = e instanceof Error ? e.message : String(e);
      const notStarted = `${later ? `${later} and ` : ''}deletions not started`;
      throw new PoNodeError(`${msg} (phase ${step}: ${n} of ${todo.length} uploaded; ${notStarted})`, {
        hint: e instanceof PoNodeError && e.hint ? e.hint : 'Run the deploy again: files already uploaded are skipped.',
        cause: e,
      });
    }
  }
}
