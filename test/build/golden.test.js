// The site is byte-identical to the one the pre-rewrite engine built (issue "Native speed"): the example node and a
// bench-like corpus large enough for worker threads. The manifests were written by that engine; a change to the
// output on purpose regenerates them with PO_NODE_UPDATE_GOLDEN=1 and the diff shows which files changed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCorpus } from '../helpers/corpus.js';
import { ROOT, build, buildExample, cleanup, tmp, tree } from '../helpers/index.js';

const GOLDEN = join(ROOT, 'test', 'build', 'golden');
const NOW = new Date('2026-01-02T03:04:05Z');

function compare(name, got) {
  const file = join(GOLDEN, `${name}.json`);
  if (process.env.PO_NODE_UPDATE_GOLDEN === '1' || !existsSync(file)) {
    writeFileSync(file, `${JSON.stringify(got, null, 1)}\n`);
    if (process.env.PO_NODE_UPDATE_GOLDEN !== '1') assert.unreachable(`${file} was missing and has been written: commit it`);
    return;
  }
  const want = JSON.parse(readFileSync(file, 'utf8'));
  const changed = Object.keys({ ...want, ...got }).filter((k) => want[k] !== got[k]);
  const show = changed.slice(0, 20).map((k) => `${k}: ${k in want ? (k in got ? 'differs' : 'missing') : 'new'}`);
  assert.equal(show, [], `${changed.length} files differ from the golden site ${name}`);
}

test.after.each(cleanup);

test('the example node is byte-identical to the golden site (ZIP exports off)', async () => {
  const { out } = await buildExample({ zipExport: false });
  compare('example', tree(out));
});

test('a 450-EPD bench corpus (worker threads, the page thread) is byte-identical to the golden site (ZIP exports off)', async () => {
  const { PAGE_THREAD_MIN } = await import('../../dist/emit/page-writer.js');
  assert.ok(450 >= PAGE_THREAD_MIN, 'enough EPD pages for the page thread');
  const dir = tmp();
  const corpus = join(dir, 'corpus');
  makeCorpus(corpus, 450);
  const out = join(dir, 'site');
  const r = await build({
    inputs: [corpus],
    out,
    baseUrl: 'https://epd.example.org/node',
    now: NOW,
    zipExport: false,
    threads: 2,
    cwd: dir,
  });
  assert.ok(r.written, 'written');
  compare('corpus-450', tree(out));
});

test.run();
