// A real S3 API server (s3rver, a devDependency) on 127.0.0.1 for the deploy tests, and a plain reader of its objects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { freePort, httpGet } from './http.js';

/** s3rver's fixed credentials; the SDK signs with them and s3rver checks the signatures. */
export const S3_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };

/** Start s3rver with the given buckets; close() stops it and removes its data folder. */
export async function startS3(buckets = ['site']) {
  const directory = mkdtempSync(join(tmpdir(), 'po-node-s3-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  await server.run();
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    /** Anonymous GET or HEAD of an object (path style); resolves { status, headers, body }. */
    get: (bucket, key, method = 'GET') => httpGet(port, `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`, {}, method),
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
