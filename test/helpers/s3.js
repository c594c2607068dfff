// A real S3 API server (s3rver, a devDependency) on 127.0.0.1 for the deploy tests, and a plain reader of its objects.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { freePort, httpGet, waitForPort } from './http.js';

/** s3rver's fixed credentials; the SDK signs with them and s3rver checks the signatures. */
// s3rver 3.7 cannot page a listing past 1,000 keys on Node ≥ 17 (its continuation token uses a cipher OpenSSL 3 dropped;
// --openssl-legacy-provider brings it back): startS3 serves sites well below that, startS3Paging pages.
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

/**
 * s3rver in a child process with OpenSSL's legacy provider, so it pages a listing past 1,000 keys as S3 does (a site
 * of a few hundred EPDs has more files than that). The test process keeps the default provider, as users have.
 */
export async function startS3Paging(buckets = ['site']) {
  const directory = mkdtempSync(join(tmpdir(), 'po-node-s3-'));
  const port = await freePort();
  const options = { address: '127.0.0.1', port, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) };
  const script = `const { default: S3rver } = await import(${JSON.stringify(import.meta.resolve('s3rver'))});
    await new S3rver(${JSON.stringify(options)}).run();`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '--input-type=module', '-e', script], { stdio: 'ignore' });
  await waitForPort(port);
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      child.kill();
      await once(child, 'exit');
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * An HTTP proxy in front of the S3 server that logs every request ("PUT /bucket/key") and holds writes for `delayMs`
 * (a slow network), so a reader polling the server directly can watch a deploy in progress. Headers pass unchanged,
 * so SigV4 signatures stay valid.
 */
export async function startS3Proxy(targetPort, { delayMs = 0 } = {}) {
  const { createServer, request } = await import('node:http');
  const log = [];
  const server = createServer((req, res) => {
    log.push(`${req.method} ${decodeURIComponent(req.url.split('?')[0])}`);
    const forward = () => {
      const up = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (delayMs && req.method !== 'GET' && req.method !== 'HEAD') setTimeout(forward, delayMs);
    else forward();
  });
  const port = await freePort();
  await new Promise((ok) => server.listen(port, '127.0.0.1', () => ok()));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    log,
    /** Logged writes (PUT, POST, DELETE) since the log was last cleared. */
    writes: () => log.filter((l) => !/^(GET|HEAD) /.test(l)),
    close: () => new Promise((ok) => (server.closeAllConnections(), server.close(() => ok()))),
  };
}

/** A stand-in CloudFront API (CreateInvalidation only) recording each request's paths; point AWS_ENDPOINT_URL_CLOUDFRONT here. */
export async function startFakeCloudFront() {
  const { createServer } = await import('node:http');
  const calls = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const m = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation$/.exec(req.url);
      if (req.method !== 'POST' || !m) return void res.writeHead(404).end();
      const paths = [...body.matchAll(/<Path>([^<]*)<\/Path>/g)].map((x) => x[1]);
      const id = `I${calls.length + 1}`;
      calls.push({ distributionId: m[1], paths, reference: /<CallerReference>([^<]*)</.exec(body)?.[1] });
      res.writeHead(201, { 'Content-Type': 'text/xml', Location: `https://cloudfront.amazonaws.com${req.url}/${id}` });
      const batch = /<InvalidationBatch[\s\S]*<\/InvalidationBatch>/.exec(body)?.[0] ?? '';
      res.end(
        '<?xml version="1.0"?><Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/">' +
          `<Id>${id}</Id><Status>InProgress</Status><CreateTime>2026-01-01T00:00:00Z</CreateTime>${batch}</Invalidation>`,
      );
    });
  });
  const port = await freePort();
  await new Promise((ok) => server.listen(port, '127.0.0.1', () => ok()));
  return { endpoint: `http://127.0.0.1:${port}`, calls, close: () => new Promise((ok) => server.close(() => ok())) };
}
