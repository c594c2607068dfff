import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { SITE_MARKERS, siteContentType } from '../site/routes.js';
import { pool } from '../util/pool.js';
import { siblingOf, type Encoding } from '../emit/precompress.js';
import { CLOUDFRONT_COMPRESS_MAX_BYTES } from '../config/hosts.js';
import { InputError } from '../errors.js';

/** A file of the built site that a host route serves. */
export interface LocalFile {
  /** Relative to the site, `/` separators. */
  rel: string;
  abs: string;
  size: number;
  contentType: string;
  /** Device and inode: the build hard-links identical files, so each inode is hashed once. */
  inode: string;
  /** A precompressed copy (`<document>.gz`, `.br`): its Content-Encoding; its Content-Type is the document's. */
  contentEncoding?: Encoding;
}

export interface LocalSite {
  files: LocalFile[];
  /** Not uploaded, with why (hidden files are left out silently: they are never part of the site's API). */
  skipped: { rel: string; reason: string }[];
  /** Precompressed siblings left out: those of documents CloudFront compresses on its own (up to its limit). */
  precompressed: number;
}

/**
 * Every publishable file of a built site, sorted by path. Precompressed siblings only of documents larger than
 * `compressAbove` bytes (CloudFront's limit): the CloudFront Function selects those; CloudFront compresses the rest.
 */
export async function readSite(dir: string, compressAbove = CLOUDFRONT_COMPRESS_MAX_BYTES): Promise<LocalSite> {
  const root = resolve(dir);
  if (!SITE_MARKERS.some((f) => existsSync(join(root, f)))) {
    throw new InputError(`${dir} is not a built po-node site (no ${SITE_MARKERS.join(' or ')})`, {
      hint: 'Run `po-node build` first and deploy its output folder: po-node deploy site --to s3://bucket',
    });
  }
  const site: LocalSite = { files: [], skipped: [], precompressed: 0 };
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const e of (await readdir(abs, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      // Hidden files (.po-node.json, .htaccess, .nojekyll) and folders are never published to S3.
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = join(abs, e.name);
      if (e.isDirectory()) await walk(p, r);
      else if (e.isSymbolicLink()) site.skipped.push({ rel: r, reason: 'symbolic link (not followed)' });
      else if (!e.isFile()) site.skipped.push({ rel: r, reason: 'not a regular file' });
      else {
        const sibling = siblingOf(r);
        const docSize = sibling && (await lstat(join(root, sibling.doc)).catch(() => undefined))?.size;
        if (sibling && !(docSize !== undefined && docSize > compressAbove)) {
          site.precompressed++;
          continue;
        }
        const contentType = siteContentType(sibling?.doc ?? r);
        if (!contentType) {
          site.skipped.push({ rel: r, reason: 'no route serves it on S3 (a file for another host)' });
          continue;
        }
        const st = await lstat(p, { bigint: true });
        const file: LocalFile = { rel: r, abs: p, size: Number(st.size), contentType, inode: `${st.dev}:${st.ino}` };
        if (sibling) file.contentEncoding = sibling.encoding;
        site.files.push(file);
      }
    }
  };
  await walk(root, '');
  return site;
}

/** MD5 (hex) of every file, read once per inode; `onFile` counts progress. */
export async function hashFiles(files: readonly LocalFile[], concurrency: number, onFile?: () => void): Promise<Map<string, string>> {
  const byInode = new Map<string, Promise<string>>();
  const out = new Map<string, string>();
  await pool(files, concurrency, async (f) => {
    let h = byInode.get(f.inode);
    if (!h) byInode.set(f.inode, (h = md5File(f.abs)));
    out.set(f.rel, await h);
    onFile?.();
  });
  return out;
}

async function md5File(abs: string): Promise<string> {
  const h = createHash('md5');
  await pipeline(createReadStream(abs), h);
  return h.digest('hex');
}
