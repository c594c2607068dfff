import { ConfigError } from '../errors.js';

/** Where a deploy goes: a bucket and a key prefix ('' or `a/b`, no slashes at either end). */
export interface Target {
  bucket: string;
  prefix: string;
}

/** `s3://bucket[/prefix]`. The prefix is the distribution's origin path: the site's URLs do not include it. */
export function parseTarget(to: string): Target {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(to.trim());
  if (!m) {
    const hint = 'Use s3://<bucket> or s3://<bucket>/<prefix>, e.g. --to s3://epd-node-site';
    throw new ConfigError(`--to ${JSON.stringify(to)} is not an S3 URL`, { hint });
  }
  const bucket = m[1]!;
  // S3's rules (3-63 characters, lower case, digits, dots, hyphens); S3-compatible stores also allow _ and capitals.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/.test(bucket)) {
    const hint = 'Bucket names have 3-63 characters: letters, digits, dots and hyphens.';
    throw new ConfigError(`"${bucket}" is not a valid bucket name`, { hint });
  }
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && prefix.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    const hint = 'Use a plain path such as s3://bucket/epd-node';
    throw new ConfigError(`The prefix "${prefix}" of --to has an empty, "." or ".." segment`, { hint });
  }
  return { bucket, prefix };
}

/** The object key of a site path. */
export function keyOf(t: Target, rel: string): string {
  return t.prefix ? `${t.prefix}/${rel}` : rel;
}

export function targetUrl(t: Target): string {
  return `s3://${t.bucket}${t.prefix ? `/${t.prefix}` : ''}`;
}
