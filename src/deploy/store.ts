import { readFile } from 'node:fs/promises';
import { PoNodeError } from '../errors.js';
import { etagMd5, type RemoteObject, type Upload } from './plan.js';
import type { Target } from './target.js';

/** Metadata key (x-amz-meta-po-node-md5) holding the MD5 where the ETag is not one (multipart, SSE-KMS). */
export const MD5_META = 'po-node-md5';

export interface ClientOptions {
  region?: string;
  /** S3-compatible stores (MinIO, R2, Ceph); AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_S3 are read by the SDK itself. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Attempts per request, the first included; the SDK backs off exponentially with jitter between them. */
  maxAttempts: number;
  /** A request with no byte sent or received for this long fails (TimeoutError, retried); connecting gets at most 30 s of it. */
  idleTimeoutMs?: number;
}

/** The SDK's HTTP handler options for `idleTimeoutMs` (none: the SDK's, which waits forever). */
function timeouts(o: Pick<ClientOptions, 'idleTimeoutMs'>): { requestHandler?: { socketTimeout: number; connectionTimeout: number } } {
  const ms = o.idleTimeoutMs;
  return ms ? { requestHandler: { socketTimeout: ms, connectionTimeout: Math.min(ms, 30_000) } } : {};
}

export interface Store {
  /** Every object under the prefix, by site path; hidden paths and "folder" markers left out. */
  list(): Promise<Map<string, RemoteObject>>;
  /** The MD5 kept in the object's metadata, if any. */
  metadataMd5(key: string): Promise<string | undefined>;
  put(u: Upload): Promise<void>;
  remove(key: string): Promise<void>;
}

/**
 * The SDK prints a nine-line notice on Node 20 that its releases after January 2027 need Node 22; the locked
 * versions support Node 20, so po-node turns it off (the SDK's own switch) unless the user set it.
 */
function dropSdkNodeNotice(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** The S3 client; the SDK is loaded here, on first use, so other commands never load it. */
export async function s3Store(t: Target, o: ClientOptions): Promise<Store> {
  dropSdkNodeNotice();
  const s3 = await import('@aws-sdk/client-s3');
  const client = new s3.S3Client({
    ...(o.region ? { region: o.region } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.forcePathStyle ? { forcePathStyle: true } : {}),
    maxAttempts: o.maxAttempts,
    ...timeouts(o),
    // The SDK's default CRC32 checksums on every PUT are not understood by every S3-compatible store; Content-MD5 is.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const base = t.prefix ? `${t.prefix}/` : '';
  const call = async <R>(what: string, f: () => Promise<R>): Promise<R> => {
    try {
      return await f();
    } catch (e) {
      throw awsError(e, what, t);
    }
  };
  return {
    async list() {
      const out = new Map<string, RemoteObject>();
      let token: string | undefined;
      do {
        const page = await call(`list s3://${t.bucket}/${base}`, () =>
          client.send(new s3.ListObjectsV2Command({ Bucket: t.bucket, Prefix: base, ...(token ? { ContinuationToken: token } : {}) })),
        );
        for (const c of page.Contents ?? []) {
          const rel = c.Key!.slice(base.length);
          if (!rel || rel.endsWith('/') || rel.split('/').some((s) => s.startsWith('.'))) continue;
          out.set(rel, { rel, key: c.Key!, size: c.Size ?? 0, etag: c.ETag ?? '' });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out;
    },
    async metadataMd5(key) {
      const h = await call(`read the metadata of ${key}`, () => client.send(new s3.HeadObjectCommand({ Bucket: t.bucket, Key: key })));
      const v = h.Metadata?.[MD5_META];
      return v && etagMd5(v);
    },
    async put(u) {
      const body = await readFile(u.abs);
      await call(`upload ${u.key}`, () =>
        client.send(
          new s3.PutObjectCommand({
            Bucket: t.bucket,
            Key: u.key,
            Body: body,
            ContentType: u.contentType,
            ...(u.contentEncoding ? { ContentEncoding: u.contentEncoding } : {}),
            CacheControl: u.cacheControl,
            // S3 refuses a body that arrived damaged; the metadata keeps the hash where the ETag is not the MD5.
            ContentMD5: Buffer.from(u.md5, 'hex').toString('base64'),
            Metadata: { [MD5_META]: u.md5 },
          }),
        ),
      );
    },
    async remove(key) {
      await call(`delete ${key}`, () => client.send(new s3.DeleteObjectCommand({ Bucket: t.bucket, Key: key })));
    },
  };
}

export interface Cdn {
  /** Starts an invalidation; resolves with its id. */
  invalidate(distributionId: string, paths: string[], reference: string): Promise<string>;
}

export async function cloudFront(o: Pick<ClientOptions, 'maxAttempts' | 'idleTimeoutMs'>): Promise<Cdn> {
  dropSdkNodeNotice();
  const cf = await import('@aws-sdk/client-cloudfront');
  // CloudFront is a global service; its API lives in us-east-1 whatever the bucket's region.
  const client = new cf.CloudFrontClient({ region: 'us-east-1', maxAttempts: o.maxAttempts, ...timeouts(o) });
  return {
    async invalidate(distributionId, paths, reference) {
      try {
        const r = await client.send(
          new cf.CreateInvalidationCommand({
            DistributionId: distributionId,
            InvalidationBatch: { CallerReference: reference, Paths: { Quantity: paths.length, Items: paths } },
          }),
        );
        return r.Invalidation?.Id ?? '';
      } catch (e) {
        throw awsError(e, `invalidate ${paths.length} paths of CloudFront distribution ${distributionId}`);
      }
    },
  };
}

/** One line and a hint for what went wrong talking to AWS (or an S3-compatible store). */
export function awsError(e: unknown, what: string, t?: Target): PoNodeError {
  const err = e as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const name = err.name ?? 'Error';
  const status = err.$metadata?.httpStatusCode;
  const detail = `${name}${status ? ` (HTTP ${status})` : ''}: ${err.message ?? String(e)}`;
  let hint = 'Set DEBUG=po-node for the stack; the SDK already retried with backoff (--retries).';
  if (name === 'CredentialsProviderError' || /credential/i.test(err.message ?? '')) {
    hint =
      'No AWS credentials found: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or use OIDC in CI ' +
      '(aws-actions/configure-aws-credentials).';
  } else if (/region is missing/i.test(err.message ?? '')) {
    hint = 'Pass --region (e.g. eu-central-1), or set AWS_REGION.';
  } else if (name === 'NoSuchBucket') {
    hint = `Bucket ${t?.bucket ?? ''} does not exist at this endpoint: check --to, --region and --endpoint-url.`;
  } else if (name === 'AccessDenied' || status === 403) {
    hint =
      'The credentials lack a permission: deploy needs s3:ListBucket, s3:GetObject, s3:PutObject, s3:DeleteObject ' +
      '(and cloudfront:CreateInvalidation).';
  } else if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'].includes(err.code ?? name)) {
    hint = 'The endpoint cannot be reached: check --endpoint-url / AWS_ENDPOINT_URL and the network.';
  } else if (name === 'TimeoutError') {
    hint =
      'The endpoint accepted the connection but stopped answering (the first attempt and each of --retries waited ' +
      '--request-timeout): check the endpoint and any proxy in between, or raise --request-timeout for a slow store.';
  } else if (name === 'PermanentRedirect' || status === 301) {
    hint = 'The bucket is in another region: pass its --region.';
  }
  return new PoNodeError(`Could not ${what}: ${detail}`, { hint, cause: e });
}
