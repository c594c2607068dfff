// The early XSD run's batches (src/validate/xsd-stream.ts): large while much is left (each xmllint call loads the
// schemas again), smaller towards the end so the last calls end together; a batch size the caller sets is kept.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { XsdStream } from '../../dist/validate/xsd-stream.js';
import { XSD_ENTRY } from '../../dist/validate/xsd.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';

test.after.each(cleanup);

const hasXmllint = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;

/** Validate `n` copies of a real EPD through a logging xmllint first on PATH; the files of each call, and the reports. */
async function run(n, opts) {
  const dir = tmp();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const log = join(bin, 'calls.log');
  const real = execFileSync('sh', ['-c', 'command -v xmllint'], { encoding: 'utf8' }).trim();
  // Four options come before the files: --nonet --noout --schema <xsd>.
  writeFileSync(join(bin, 'xmllint'), `#!/bin/sh\necho $(($# - 4)) >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'xmllint'), 0o755);
  const docs = Array.from({ length: n }, (_, id) => {
    const abs = join(dir, `epd-${id}.xml`);
    copyFileSync(join(EXAMPLE_DATA, REAL_EPDS[0].file), abs);
    return { id, abs, bytes: statSync(abs).size, schema: XSD_ENTRY.epd };
  });
  let pulled = 0;
  const results = new Map();
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    const remaining = opts.guided ? { remaining: () => n - pulled } : {};
    const stream = new XsdStream(
      () => docs[pulled++],
      (d, r) => results.set(d.id, r),
      { processes: 2, batchSize: opts.batchSize, ...remaining },
    );
    await stream.run();
  } finally {
    process.env.PATH = path;
  }
  const calls = readFileSync(log, 'utf8').trim().split('\n').map(Number);
  return { calls, results };
}

test('guided batches: a share of what is left per process, at least 50, at most the batch size', async () => {
  if (!hasXmllint) {
    assert.unreachable('xmllint (libxml2-utils) is needed: .ci/run installs it');
    return;
  }
  const { calls, results } = await run(300, { batchSize: 1000, guided: true });
  // 300 left over 2 processes: 75, then 57, then 50 (the least) until the last 18.
  assert.equal(
    [...calls].sort((a, b) => b - a),
    [75, 57, 50, 50, 50, 18],
  );
  assert.is(results.size, 300);
  for (const r of results.values()) assert.equal(r.report?.summary, 'validates');
});

test('a batch size the caller sets is kept for every batch but the last', async () => {
  if (!hasXmllint) {
    assert.unreachable('xmllint (libxml2-utils) is needed: .ci/run installs it');
    return;
  }
  const { calls, results } = await run(130, { batchSize: 60 });
  assert.equal(
    [...calls].sort((a, b) => b - a),
    [60, 60, 10],
  );
  assert.is(results.size, 130);
});

test.run();
