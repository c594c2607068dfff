import type { HostEmitter } from './types.js';
import { fillTemplate } from './template.js';
import { PAGE_FILE_RE } from '../site/routes.js';
import type { PlannedFile } from '../emit/files.js';
import { largeCompressedDocuments } from '../emit/precompress.js';
import { CLOUDFRONT_COMPRESS_MAX_BYTES } from '../config/hosts.js';

/** The pre-paged lists of the plan as `{pageSize: last startIndex}`: the function routes to these files only. */
function lastPages(site: readonly PlannedFile[]): Record<string, number> {
  const last: Record<string, number> = {};
  for (const f of site) {
    const m = PAGE_FILE_RE.exec(f.path);
    if (m) last[m[1]!] = Math.max(last[m[1]!] ?? 0, Number(m[2]));
  }
  return last;
}

/** S3 + CloudFront: nothing in the tree; an upload script (runs po-node deploy), the viewer-request function and a CORS policy. */
export const s3CloudFront: HostEmitter = {
  name: 's3-cloudfront',
  title: 'AWS S3 + CloudFront',
  emit({ cfg, site }) {
    const policy = {
      Name: 'po-node-cors',
      Comment: 'po-node: Access-Control-Allow-Origin * on every answer',
      CorsConfig: {
        AccessControlAllowOrigins: { Quantity: 1, Items: ['*'] },
        AccessControlAllowHeaders: { Quantity: 1, Items: ['*'] },
        AccessControlAllowMethods: { Quantity: 3, Items: ['GET', 'HEAD', 'OPTIONS'] },
        AccessControlAllowCredentials: false,
        OriginOverride: true,
      },
      // The objects above CloudFront's compression limit have precompressed copies the function picks by
      // Accept-Encoding; S3 cannot send Vary, so caches after CloudFront learn it here.
      CustomHeadersConfig: { Quantity: 1, Items: [{ Header: 'Vary', Value: 'Accept-Encoding', Override: false }] },
    };
    return {
      site: [],
      deploy: [
        {
          path: 's3-cloudfront/cloudfront-function.js',
          contentType: 'text/javascript',
          // Made when the host configs are written, after the site: the documents too large for CloudFront to
          // compress are known by their written size.
          source: {
            make: async () => {
              const large = await largeCompressedDocuments(cfg.out, site, CLOUDFRONT_COMPRESS_MAX_BYTES);
              const text = fillTemplate('hosts/cloudfront-function.js', {
                LAST_PAGES: JSON.stringify(lastPages(site)),
                PRECOMPRESSED: JSON.stringify(large),
              });
              return Buffer.from(text);
            },
          },
        },
        {
          path: 's3-cloudfront/s3-upload.sh',
          contentType: 'text/x-shellscript',
          source: { text: fillTemplate('hosts/s3-upload.sh', { SITE: cfg.out }) },
        },
        {
          path: 's3-cloudfront/response-headers-policy.json',
          contentType: 'application/json',
          source: { text: `${JSON.stringify(policy, null, 2)}\n` },
        },
      ],
    };
  },
};
