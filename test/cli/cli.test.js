// The CLI as a person or CI runs it: spawned through bin/po-node.js.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateWithSchema } from '../../dist/index.js';
import { BIN, cleanup, EXAMPLE_CONFIG, ROOT, tmp } from '../helpers/index.js';

function run(args, opts = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', SOURCE_DATE_EPOCH: '1767323045', ...opts.env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('--help teaches: commands, examples, exit codes', () => {
  const top = run(['--help']);
  assert.is(top.code, 0);
  assert.match(top.out, 'build');
  assert.match(top.out, 'Examples:');
  const b = run(['build', '--help']);
  assert.is(b.code, 0);
  for (const s of [
    '--out',
    '--base-url',
    '--strict',
    '--config',
    '--clean',
    '--json',
    'Exit codes',
    'SOURCE_DATE_EPOCH',
    'resource/processes/index.xml',
  ])
    assert.match(b.out, s);
});

/** Module files a CLI run loads (test/helpers/module-log.js): project ones under dist/, and packages. */
function loadedModules(args) {
  const log = join(tmp(), 'modules.txt');
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test/helpers/module-log.js'), BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PO_NODE_MODULE_LOG: log },
  });
  assert.is(r.status, 0, r.stderr);
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { dist: urls.filter((u) => u.includes('/dist/')), packages: urls.filter((u) => u.includes('/node_modules/')) };
}

test('--version and --help load almost nothing: each command loads its code when it runs', () => {
  // Before lazy commands --version loaded 86 of 94 project modules and 57 package files (the AWS SDK aside).
  for (const args of [['--version'], ['--help'], ['build', '--help'], ['check', '--help']]) {
    const m = loadedModules(args);
    assert.ok(m.dist.length < 20, `${args.join(' ')} loaded ${m.dist.length} project modules:\n${m.dist.join('\n')}`);
    assert.ok(
      m.packages.every((u) => u.includes('/node_modules/commander/')),
      `${args.join(' ')} loaded packages:\n${m.packages.join('\n')}`,
    );
  }
});

test('a reader that closes the pipe early (`| head`) ends the command quietly, exit 0, no EPIPE trace', () => {
  // The reader is gone before po-node writes, so every write meets a closed pipe.
  const script = `set -o pipefail; { sleep 0.3; exec "${process.execPath}" "${BIN}" build --help; } | true`;
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.not.match(r.stderr, /EPIPE|Unhandled/);
});

test('build --json prints a schema-valid report; exit 0', () => {
  const out = join(tmp(), 'site');
  const r = run(['build', '--config', EXAMPLE_CONFIG, '--out', out, '--json']);
  assert.is(r.code, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(validateWithSchema('build-report', report), []);
  assert.is(report.summary.epds, 5);
  assert.is(report.status, 'ok');
  assert.ok(existsSync(join(out, 'resource/processes/index.xml')));
});

test('the text summary says what was found, published, rejected and where the site is', () => {
  const base = tmp();
  const dir = join(base, 'in');
  mkdirSync(dir);
  writeFileSync(join(dir, 'broken.xml'), '<processDataSet><x></processDataSet>');
  // A relative input is resolved against the working directory.
  const r = run(['build', 'examples/ilcdlib/ibu_with_dependencies', dir, '--out', join(base, 'site')]);
  assert.is(r.code, 0, r.err);
  assert.match(r.err, 'broken.xml');
  assert.match(r.err, 'xml-malformed');
  assert.match(r.err, /1 EPD listed, 1 rejected/);
  assert.match(r.err, 'No base URL set');
  assert.match(r.err, /Site written to .*site\/ \(health: degraded\)/);
});

test('--strict with a rejected file exits 1 and writes nothing', () => {
  const base = tmp();
  const dir = join(base, 'in');
  mkdirSync(dir);
  writeFileSync(join(dir, 'broken.xml'), '<processDataSet><x></processDataSet>');
  const r = run(['build', dir, '--out', join(base, 'site'), '--strict']);
  assert.is(r.code, 1);
  assert.match(r.err, 'Site not written');
  assert.not.ok(existsSync(join(base, 'site')));
});

test('usage and input errors exit 2 with one line and a hint', () => {
  const missing = run(['build', 'no/such/folder', '--out', join(tmp(), 'site')]);
  assert.is(missing.code, 2);
  assert.match(missing.err, 'Input not found: no/such/folder');
  assert.match(missing.err, 'hint:');
  assert.not.match(missing.err, '    at ');
  const badUrl = run(['build', '--config', EXAMPLE_CONFIG, '--base-url', 'ftp://x', '--out', join(tmp(), 'site')]);
  assert.is(badUrl.code, 2);
  assert.match(badUrl.err, '--base-url');
  const unknown = run(['build', '--frobnicate']);
  assert.is(unknown.code, 2);
  assert.match(unknown.err, "unknown option '--frobnicate'");
});

test('a config file that breaks its schema is reported precisely', () => {
  const dir = tmp();
  const cfg = join(dir, 'po-node.config.json');
  writeFileSync(cfg, JSON.stringify({ node: { id: 'has spaces' }, inputs: ['x'], colour: 'red' }));
  const r = run(['build', '--config', cfg]);
  assert.is(r.code, 2);
  assert.match(r.err, '/node/id');
  assert.match(r.err, 'colour');
});

test('po-node.config.json in the working directory is used without --config', () => {
  const dir = tmp();
  const cfg = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
  delete cfg.$schema;
  cfg.inputs = [join(ROOT, 'examples/ilcdlib/ibu_with_dependencies')];
  cfg.out = 'public';
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify(cfg));
  const r = run(['build'], { cwd: dir });
  assert.is(r.code, 0, r.err);
  assert.match(readFileSync(join(dir, 'public/nodeinfo/index.xml'), 'utf8'), '<nodeID>PO_NODE_EXAMPLE</nodeID>');
});

test('ZIP exports: off by default, --zip-export or "zipExport": true turn them on, --no-zip-export overrides the config', () => {
  const dir = tmp();
  const cfg = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
  delete cfg.$schema;
  cfg.inputs = [join(ROOT, 'examples/ilcdlib/ibu_with_dependencies')];
  writeFileSync(join(dir, 'off.json'), JSON.stringify(cfg));
  writeFileSync(join(dir, 'on.json'), JSON.stringify({ ...cfg, zipExport: true }));
  const zip = 'resource/processes/2eb43850-0ab2-4068-afe5-218d69a096f8_files/zipexport.zip';
  const built = (name, ...args) => {
    const r = run(['build', '--config', name, '--out', name.replace('.json', ''), '--level', '1', '-q', ...args], { cwd: dir });
    assert.is(r.code, 0, r.err);
    return existsSync(join(dir, name.replace('.json', ''), zip));
  };
  assert.equal(
    [built('off.json'), built('on.json'), built('off.json', '--zip-export'), built('on.json', '--no-zip-export')],
    [false, true, true, false],
  );
});

test.after(cleanup);
test.run();
