// Runs every test/**/*.test.js with uvu in one process and ends with the line CI reads:
// "N passed, N failed, N skipped". Optional argument: a regex to pick test files.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const dir = dirname(fileURLToPath(import.meta.url));
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
process.stdout.write = write;

// eslint-disable-next-line no-control-regex
const plain = captured.replace(/\x1b\[[0-9;]*m/g, '');
const num = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? 0);
const total = num('Total');
const passed = num('Passed');
const skipped = num('Skipped');
const failed = Math.max(0, total - passed - skipped);
if (picked.length === 0) {
  console.log('no test files matched');
  process.exitCode = 1;
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed) process.exitCode = 1;
