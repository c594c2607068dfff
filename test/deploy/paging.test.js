// S3 lists a bucket 1,000 keys at a time: a site of a few hundred EPDs has more files than that, so deploy must follow
// the continuation tokens to know what the bucket holds. A real S3 API server that pages (test/helpers/s3.js).
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deploy } from '../../dist/index.js';
import { makeCorpus } from '../helpers/corpus.js';
import { build, cleanup, tmp, walkFiles } from '../helpers/index.js';
import { S3_ENV, startS3Paging, startS3Proxy } from '../helpers/s3.js';

test('a site of more than 1,000 files: the listing is followed page by page, and a second deploy has nothing to do', async () => {
  const saved = Object.fromEntries(Object.keys(S3_ENV).map((k) => [k, process.env[k]]));
  Object.assign(process.env, S3_ENV);
  const s3 = await startS3Paging(['site']);
  const proxy = await startS3Proxy(s3.port);
  try {
    const dir = tmp();
    makeCorpus(join(dir, 'corpus'), 320);
    const out = join(dir, 'site');
    const built = await build({ inputs: [join(dir, 'corpus')], out, now: new Date('2026-01-02T03:04:05Z'), cacheDir: join(dir, 'cache') });
    assert.ok(built.ok, 'the site builds');
    const files = walkFiles(out).length;
    assert.ok(files > 1100, `${files} files`);
    const opts = { site: out, to: 's3://site', endpoint: proxy.endpoint, forcePathStyle: true };

    const first = await deploy(opts);
    assert.ok(first.ok);
    assert.ok(first.uploads.length > 1000, `${first.uploads.length} uploaded`);

    proxy.log.length = 0;
    const again = await deploy(opts);
    assert.ok(again.ok);
    assert.is(again.uploads.length, 0, 'every object found in the listing');
    assert.is(again.deletions.length, 0, 'nothing taken for a stray');
    // The listing came in pages: the bucket's root was asked for more than once.
    const lists = proxy.log.filter((l) => l === 'GET /site' || l === 'GET /site/');
    assert.ok(lists.length >= 2, `${lists.length} list requests: ${proxy.log.slice(0, 5).join(', ')}`);
  } finally {
    await proxy.close();
    await s3.close();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await cleanup();
  }
});

test.run();
