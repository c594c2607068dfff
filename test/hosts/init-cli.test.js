// `po-node init` and `build --host` through the CLI: files written, never overwritten without --force.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, validateWithSchema } from '../../dist/index.js';
import { BIN, cleanup, EXAMPLE_DATA, tmp } from '../helpers/index.js';

const run = (args, cwd) => spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

const I = suite('init');
I.after(cleanup);

I('writes a commented, schema-valid config and the GitHub Pages workflow', () => {
  const dir = tmp();
  const r = run(['init', '--host', 'github-pages'], dir);
  assert.is(r.status, 0, r.stderr);
  const cfg = JSON.parse(readFileSync(join(dir, 'po-node.config.json'), 'utf8'));
  assert.equal(validateWithSchema('config', cfg), []);
  assert.ok(Array.isArray(cfg.$comment) && cfg.$comment.length >= 3);
  assert.equal(cfg.hosts, ['github-pages']);
  assert.is(loadConfig({ cwd: dir, config: 'po-node.config.json' }).hosts[0], 'github-pages');
  const wf = readFileSync(join(dir, '.github/workflows/po-node-github-pages.yml'), 'utf8');
  assert.match(wf, /uses: actions\/upload-pages-artifact@v3\n\s+with:\n\s+path: site\n/);
  assert.match(wf, /uses: actions\/deploy-pages@v4/);
  assert.match(wf, /pages: write\n\s+id-token: write/);
  // The build runs in the po-node action (action.yml), which restores and saves the incremental-build cache.
  assert.match(wf, /uses: po-node\/po-node@v\d+\.\d+\.\d+\n\s+with:\n\s+config: po-node\.config\.json\n/);
  assert.match(wf, /\n\s+out: site\n\s+host: github-pages\n\s+strict: true\n/);
  assert.match(r.stderr, /wrote po-node\.config\.json/);
  // The scheduled readiness job runs `check` against the configured base URL, and only it runs on the schedule.
  assert.match(wf, /schedule:\n\s+- cron: "17 5 \* \* \*"/);
  assert.match(wf, /npx po-node check "\$\(node -p "require\('\.\/po-node\.config\.json'\)\.baseUrl"\)" --paths both/);
  assert.match(wf, /build:\n\s+if: github\.event_name != 'schedule'/);
});

I('s3-cloudfront gets the S3 workflow: the po-node action builds, po-node deploy publishes with OIDC credentials', () => {
  const dir = tmp();
  assert.is(run(['init', '--host', 's3-cloudfront,nginx'], dir).status, 0);
  const wf = readFileSync(join(dir, '.github/workflows/po-node-s3-cloudfront.yml'), 'utf8');
  assert.match(wf, /uses: po-node\/po-node@v[\d.]+\n\s+with:\n\s+config: po-node\.config\.json\n\s+out: site\n\s+host: s3-cloudfront\n/);
  assert.match(wf, /npx po-node deploy site --to "s3:\/\/\$S3_BUCKET" --distribution-id "\$DISTRIBUTION_ID" --region "\$AWS_REGION"/);
  assert.match(wf, /aws-actions\/configure-aws-credentials@v4\n\s+with:\n\s+role-to-assume: \$\{\{ vars\.AWS_ROLE_ARN \}\}/);
  assert.match(wf, /id-token: write/);
  assert.not.ok(wf.includes('s3-upload.sh'));
  const cfg = JSON.parse(readFileSync(join(dir, 'po-node.config.json'), 'utf8'));
  assert.equal(cfg.deploy.listen, 80, 'nginx gets deploy settings to edit');
  assert.not.ok(existsSync(join(dir, '.github/workflows/po-node-github-pages.yml')));
});

I('never overwrites without --force; --force replaces', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'po-node.config.json'), '{"mine":true}');
  const r = run(['init'], dir);
  assert.is(r.status, 2);
  assert.match(r.stderr, /Not overwriting po-node\.config\.json/);
  assert.match(r.stderr, /--force/);
  assert.is(readFileSync(join(dir, 'po-node.config.json'), 'utf8'), '{"mine":true}');
  assert.is(run(['init', '--force'], dir).status, 0);
  assert.ok(readFileSync(join(dir, 'po-node.config.json'), 'utf8').includes('"baseUrl"'));
});

I('build --host writes tree files into the site and server configs into <out>-deploy; unknown host is exit 2', () => {
  const dir = tmp();
  const r = run(['build', EXAMPLE_DATA, '--out', 'site', '--host', 'apache,nginx,github-pages', '-q'], dir);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stderr, /Host configs \(apache, nginx, github-pages\) written to site-deploy\//);
  for (const f of ['site/.htaccess', 'site/.nojekyll', 'site-deploy/nginx/po-node.conf', 'site-deploy/apache/po-node.conf'])
    assert.ok(existsSync(join(dir, f)), f);
  const conf = readFileSync(join(dir, 'site-deploy/nginx/po-node.conf'), 'utf8');
  assert.ok(conf.includes(`root "${join(dir, 'site')}";`), 'root defaults to the built folder');
  assert.not.match(conf, /\{\{/);
  const bad = run(['build', EXAMPLE_DATA, '--out', 'site2', '--host', 'iis'], dir);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /Unknown host "iis"/);
});
I.run();

const C = suite('hosts config');
C.after(cleanup);
C('"deploy" settings reach the emitted configs; unsafe site paths are refused', async () => {
  const { configPath } = await import('../../dist/hosts/template.js');
  assert.throws(() => configPath('/srv/a"b', 'an nginx config'), /cannot be written into an nginx config/);
  assert.is(configPath('/srv/po node/site', 'x'), '/srv/po node/site');
  const dir = tmp();
  writeFileSync(
    join(dir, 'c.json'),
    JSON.stringify({
      inputs: [EXAMPLE_DATA],
      hosts: ['nginx', 'apache'],
      deploy: { siteRoot: '/srv/po-node/site', serverName: 'epd.example.org', listen: 8081 },
    }),
  );
  const cfg = loadConfig({ cwd: dir, config: 'c.json' });
  const deploy = { out: join(dir, 'site-deploy'), siteRoot: '/srv/po-node/site', serverName: 'epd.example.org', listen: '8081' };
  assert.equal(cfg.deploy, { ...deploy, nginxBrotli: false });
  assert.is(run(['build', '--config', 'c.json', '-q'], dir).status, 0);
  assert.match(
    readFileSync(join(dir, 'site-deploy/nginx/po-node.conf'), 'utf8'),
    /listen 8081;\n\s+server_name epd\.example\.org;\n\s+root "\/srv\/po-node\/site";/,
  );
  assert.match(
    readFileSync(join(dir, 'site-deploy/apache/po-node.conf'), 'utf8'),
    /<VirtualHost \*:8081>\n\s+ServerName epd\.example\.org\n\s+DocumentRoot "\/srv\/po-node\/site"/,
  );
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ hosts: ['iis'] }));
  assert.throws(() => loadConfig({ cwd: dir, config: 'bad.json' }), /invalid/);
});
C.run();
