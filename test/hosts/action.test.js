// The GitHub Action (action.yml): its steps as GitHub runs them, the build script run for real with bash.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanup, EXAMPLE_DATA, ROOT, tmp, wrongModes } from '../helpers/index.js';

test.after.each(cleanup);

const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');

/** The `run: |` block of the step with `id`, unindented (action.yml is the only YAML read here: no parser needed). */
function runBlock(id) {
  const lines = action.split('\n');
  const start = lines.findIndex((l) => l.trim() === `- id: ${id}`);
  const run = lines.findIndex((l, i) => i > start && l.trim() === 'run: |');
  const indent = lines[run + 1].length - lines[run + 1].trimStart().length;
  const body = [];
  for (const l of lines.slice(run + 1)) {
    if (l.trim() && l.length - l.trimStart().length < indent) break;
    body.push(l.slice(indent));
  }
  return body.join('\n');
}

test('a composite action: setup-node, actions/cache on the cache folder, build with annotations, optional check', () => {
  assert.match(action, /runs:\n\s+using: composite/);
  assert.match(action, /uses: actions\/setup-node@v4/);
  assert.match(action, /uses: actions\/cache@v4\n\s+with:\n\s+path: \$\{\{ inputs\.working-directory \}\}\/\$\{\{ inputs\.cache-dir \}\}/);
  assert.match(action, /key: po-node-\$\{\{ runner\.os \}\}-.*\$\{\{ github\.sha \}\}/);
  assert.match(action, /restore-keys: \|/);
  assert.match(runBlock('build'), /--format github/);
  assert.match(action, /- if: inputs\.check == 'true'[\s\S]*args=\(check "\$PO_OUT" --paths both\)/);
  // Inputs reach scripts through env only (no expression spliced into a script), except the install command itself.
  const scripts = action.split('\n').filter((l) => /^\s+(run: |[a-z].*\$PO_)/.test(l) && l.includes('${{'));
  assert.equal(scripts, ['      run: ${{ inputs.install }}']);
});

test('the build step, run with bash as the runner would: site built, cache in the workspace, annotations, output', () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'ILCD'), { recursive: true });
  writeFileSync(join(dir, 'po-node.config.json'), JSON.stringify({ inputs: ['ILCD'], out: 'site' }));
  // po-node as the repository's dependency: what `npx --no-install po-node` finds.
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(BIN, join(dir, 'node_modules/.bin/po-node'));
  const output = join(dir, 'github-output');
  writeFileSync(output, '');
  const env = {
    ...process.env,
    NO_COLOR: '1',
    GITHUB_OUTPUT: output,
    PO_CONFIG: 'po-node.config.json',
    PO_OUT: 'site',
    PO_HOST: 'github-pages',
    PO_STRICT: 'true',
    PO_CACHE: 'true',
    PO_CACHE_DIR: '.po-node-cache',
    PO_ARGS: '--level 2',
    PO_WD: '.',
  };
  const r = spawnSync('bash', ['-c', runBlock('build')], { cwd: dir, env, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.ok(existsSync(join(dir, 'site/.nojekyll')), '--host github-pages');
  assert.equal(wrongModes(join(dir, 'site')), []);
  assert.ok(existsSync(join(dir, '.po-node-cache')), 'the cache in the folder actions/cache saves');
  assert.match(r.stdout, /^::warning file=ILCD\//m, 'findings as annotations');
  assert.not.match(r.stdout, /xsd-invalid/, 'extra args reach the build (--level 2: no XSD)');
  assert.is(readFileSync(output, 'utf8'), 'site=./site\n');
  // A strict build with a rejected dataset fails the step.
  writeFileSync(join(dir, 'ILCD/broken.xml'), '<processDataSet>');
  const bad = spawnSync('bash', ['-c', runBlock('build')], { cwd: dir, env, encoding: 'utf8' });
  assert.is(bad.status, 1);
  assert.match(bad.stdout, /^::error file=ILCD\/broken\.xml/m);
});

test.run();
