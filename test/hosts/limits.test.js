// Host limits: the site measured as the host counts it (hard links dereferenced), warnings that name the remedy.
import { spawnSync } from 'node:child_process';
import { linkSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HOST_LIMITS, hostLimitFindings, measureSite } from '../../dist/hosts/limits.js';
import { BIN, buildExample, cleanup, REAL_EPDS, tmp, walkFiles } from '../helpers/index.js';

test.after.each(cleanup);

test('the site is measured as the Pages artifact holds it: hard links count once per path', async () => {
  const { out, result } = await buildExample({ hosts: ['github-pages'], zipExport: true });
  assert.ok(!result.findings.some((f) => f.ruleId === 'host-limit'), 'the example is far below every limit');
  const m = measureSite(out);
  const files = walkFiles(out);
  assert.is(m.files, files.length);
  assert.is(
    m.bytes,
    files.reduce((s, f) => s + statSync(f).size, 0),
  );
  // The /v1 copy of an EPD is a hard link to the /resource one: both are counted.
  const uuid = REAL_EPDS[0].uuid;
  assert.is(statSync(join(out, 'v1/epds', uuid)).ino, statSync(join(out, 'resource/processes', uuid)).ino);
  assert.ok(m.zipExports > 0 && m.zipExportBytes > 0);
  // upload-pages-artifact runs `tar --dereference --hard-dereference`: the estimate is that tar's size, within 10%.
  const tar = spawnSync('tar', ['--dereference', '--hard-dereference', '-C', out, '-cf', '-', '.'], { maxBuffer: 1 << 30 });
  if (tar.status === 0) {
    const ratio = m.artifactBytes / tar.stdout.length;
    assert.ok(ratio > 0.9 && ratio < 1.1, `artifact estimate ${m.artifactBytes} vs tar ${tar.stdout.length}`);
  }
  const plain = spawnSync('tar', ['-C', out, '-cf', '-', '.'], { maxBuffer: 1 << 30 });
  if (plain.status === 0) assert.ok(plain.stdout.length < tar.stdout.length, 'without dereferencing, hard links would be undercounted');
});

test('above a limit: one warning per limit, naming the remedy and the source', () => {
  const big = {
    files: 30_000,
    bytes: 1.4e9,
    artifactBytes: 1.5e9,
    zipExports: 1500,
    zipExportBytes: 1.1e9,
    largest: { path: 'resource/processes/x_files/zipexport.zip', bytes: 30 * 1024 * 1024 },
    fullestFolder: { path: 'resource/processes', entries: 60_000 },
  };
  const gh = hostLimitFindings(big, ['github-pages']);
  assert.is(gh.length, 1);
  assert.is(gh[0].severity, 'warning');
  assert.is(gh[0].ruleId, 'host-limit');
  assert.match(gh[0].message, /1\.50 GB as published, over the 1\.00 GB limit/);
  assert.match(gh[0].message, /without --zip-export/);
  assert.match(gh[0].message, /1\.10 GB of it/);
  assert.match(gh[0].message, /S3 \+ CloudFront/);
  assert.ok(gh[0].message.includes(HOST_LIMITS['github-pages'].source));
  const cf = hostLimitFindings(big, ['cloudflare-pages']);
  assert.is(cf.length, 2, 'file count and file size');
  assert.match(cf[0].message, /30,000 files, over the 20,000/);
  assert.match(cf[1].message, /zipexport\.zip is 31\.5 MB, over the 26\.2 MB/);
  const nl = hostLimitFindings(big, ['netlify']);
  assert.is(nl.length, 1);
  assert.match(nl[0].message, /resource\/processes holds 60,000 entries, over the 54,000/);
  assert.equal(hostLimitFindings(big, ['nginx', 'apache', 's3-cloudfront']), [], 'no limits a node reaches');
  const small = { ...big, files: 10, artifactBytes: 1e6, largest: { path: 'a', bytes: 10 }, fullestFolder: { path: '.', entries: 5 } };
  assert.equal(hostLimitFindings(small, ['github-pages', 'cloudflare-pages', 'netlify']), []);
});

test('host limits without ZIP exports name the remedy as a sentence; the numbers are in params', () => {
  const m = { files: 30_000, bytes: 1.4e9, artifactBytes: 1.5e9, zipExports: 0, zipExportBytes: 0 };
  const [gh] = hostLimitFindings(m, ['github-pages']);
  assert.not.match(gh.message, /without --zip-export/);
  assert.match(gh.message, /may be refused\. Publish to S3 \+ CloudFront \(no site size limit\)\. \(limits: /);
  assert.equal(gh.params, {
    case: 'site-bytes',
    host: 'GitHub Pages',
    source: HOST_LIMITS['github-pages'].source,
    bytes: 1.5e9,
    limit: 1e9,
    zipExports: 0,
    zipExportBytes: 0,
  });
  const [cf] = hostLimitFindings(m, ['cloudflare-pages']);
  assert.match(cf.message, /the upload will fail\. Use a paid plan or S3 \+ CloudFront\. \(limits: /);
});

test('a hard-linked file over the limit is counted at every path it has', () => {
  const dir = tmp();
  // Sparse: 600 MB as the host counts it, no disk space here.
  writeFileSync(join(dir, 'a'), '');
  truncateSync(join(dir, 'a'), 600_000_000);
  linkSync(join(dir, 'a'), join(dir, 'b'));
  const m = measureSite(dir);
  assert.is(m.bytes, 1_200_000_000);
  assert.is(hostLimitFindings(m, ['github-pages']).length, 1);
});

test('check --host: a target that is not a site folder is a usage error', () => {
  const cli = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const r = cli('check', 'https://epd.example.org/node', '--host', 'github-pages');
  assert.is(r.status, 2, r.stderr);
  assert.match(r.stderr, /not a folder/);
  const u = cli('check', '.', '--host', 'geocities');
  assert.is(u.status, 2);
  assert.match(u.stderr, /Unknown host "geocities"/);
});

test.run();
