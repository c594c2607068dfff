// Runs every test/**/*.test.js with uvu in one process and ends with the line CI reads:
// "N passed, N failed, N skipped". Optional argument: a regex to pick test files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const dir = dirname(fileURLToPath(import.meta.url));
// Incremental-build caches of test builds go to a throwaway folder, not the user's ~/.cache.
const cacheDir = process.env.PO_NODE_CACHE_DIR ? undefined : mkdtempSync(join(tmpdir(), 'po-node-test-cache-'));
if (cacheDir) process.env.PO_NODE_CACHE_DIR = cacheDir;
const pattern = new RegExp(process.argv[2] ? process.argv[2] : '\\.test\\.js$');
const { suites } = await parse(dir, pattern, { ignore: [/helpers/, /fixtures/] });
const picked = suites.filter((s) => /\.test\.js$/.test(s.name));

let captured = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  captured += String(chunk);
  return write(chunk, ...rest);
};
await run(picked, { bail: false });
if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
process.stdout.write = write;

// eslint-disable-next-line no-control-regex
const plain = captured.replace(/\x1b\[[0-9;]*m/g, '');
const num = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? 0);
const total = num('Total');
const passed = num('Passed');
const skipped = num('Skipped');
// uvu's Total counts the tests that ran (skipped ones are not in it).
const failed = Math.max(0, total - passed);
if (picked.length === 0) {
  console.log('no test files matched');
  process.exitCode = 1;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed) process.exitCode = 1;
