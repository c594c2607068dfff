import type { HostEmitter } from './types.js';
import { fillTemplate } from './template.js';

/** S3 + CloudFront: nothing in the tree; an upload script (runs po-node deploy), the viewer-request function and a CORS policy. */
export const s3CloudFront: HostEmitter = {
  name: 's3-cloudfront',
  title: 'AWS S3 + CloudFront',
  emit({ cfg }) {
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
    };
    return {
      site: [],
      deploy: [
        {
          path: 's3-cloudfront/cloudfront-function.js',
          contentType: 'text/javascript',
          source: { text: fillTemplate('hosts/cloudfront-function.js', {}) },
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
