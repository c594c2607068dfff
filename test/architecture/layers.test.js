// The layering of docs/architecture.md: a folder of src/ imports only from folders below it (type and dynamic
// imports included). The cycles are also found by `npx madge --circular --extensions ts src`; this names the rule.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/index.js';

/** Lowest first; a folder (or top-level file) may import from its own folder and from those before it. */
const LAYERS = [
  ['util', 'errors', 'findings', 'version', 'schemas'],
  ['messages'],
  ['read'],
  ['parse'],
  ['html'],
  ['rules'],
  ['validate'],
  ['config'],
  ['catalog'],
  ['cache'],
  ['site'],
  ['emit'],
  ['hosts'],
  ['pipeline'],
  ['build'],
  ['report'],
  ['serve'],
  ['check'],
  ['deploy'],
  ['commands'],
  ['cli', 'index'],
];
const RANK = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i])));

/**
 * Imports that break the rule today, each with who removes it. The test fails when one is no longer there, so the
 * list only shrinks.
 */
const KNOWN = new Set([]);

const SRC = join(ROOT, 'src');

function sources(dir = SRC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `a/b.ts` -> `a`; a top-level file is its own layer (`build.ts` -> `build`). */
const layerOf = (rel) => (rel.includes('/') ? rel.split('/')[0] : rel.replace(/\.ts$/, ''));

function imports() {
  const out = [];
  for (const file of sources()) {
    const from = relative(SRC, file).split('\\').join('/');
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)'/gm)) {
      const to = posix.normalize(posix.join(posix.dirname(from), m[1])).replace(/\.js$/, '.ts');
      out.push({ from, to });
    }
  }
  return out;
}

test('every folder of src/ has its place in the layer order', () => {
  const unplaced = [...new Set(sources().map((f) => layerOf(relative(SRC, f).split('\\').join('/'))))].filter((l) => !RANK.has(l));
  assert.equal(unplaced, [], 'add new folders to LAYERS here and in docs/architecture.md');
});

test('imports point down the layers only (type and dynamic imports too)', () => {
  const all = imports();
  assert.ok(all.length > 200, `only ${all.length} imports found: the pattern no longer matches the code`);
  const up = all.filter(({ from, to }) => RANK.get(layerOf(to)) > RANK.get(layerOf(from))).map(({ from, to }) => `${from} -> ${to}`);
  const unexpected = up.filter((e) => !KNOWN.has(e));
  assert.equal(unexpected, [], `imports against the layer order:\n${unexpected.join('\n')}`);
  const gone = [...KNOWN].filter((e) => !up.includes(e));
  assert.equal(gone, [], 'these exceptions are fixed: delete them from KNOWN');
});

test.run();
