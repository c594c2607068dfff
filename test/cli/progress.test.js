import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { progressReporter } from '../../dist/report/progress.js';
import { runCli as runChild } from '../helpers/child.js';
import { runCli as run } from '../helpers/cli.js';
import { cleanup, EXAMPLE_DATA, REAL_EPDS, tmp } from '../helpers/index.js';

function lines(events) {
  let text = '';
  /** @type {any} A stream that only collects what is written (not a TTY). */
  const stream = { isTTY: false, write: (s) => void (text += s) };
  const report = progressReporter(stream, true);
  for (const e of events) report(e);
  return text;
}

test('the read line counts what was read, and says how many unchanged inputs came from the cache', () => {
  assert.is(lines([{ phase: 'read', done: 5, total: 5, cached: 0 }]), 'po-node: read and validated 5 XML files\n');
  assert.is(
    lines([
      { phase: 'read', done: 292, total: 293, cached: 292 },
      { phase: 'read', done: 293, total: 293, cached: 292 },
    ]),
    'po-node: read and validated 1 XML files, 292 unchanged taken from the cache\n',
  );
});

test('a rebuild after one EPD changed says one file was read, the rest taken from the cache', async () => {
  const dir = tmp();
  cpSync(EXAMPLE_DATA, join(dir, 'data'), { recursive: true });
  const args = ['build', join(dir, 'data'), '--out', join(dir, 'site'), '--cache-dir', join(dir, 'cache')];
  const first = await run(args);
  assert.is(first.code, 0, first.err);
  const all = Number(/read and validated (\d+) XML files\n/.exec(first.err)?.[1]);
  assert.ok(all > 1, first.err);
  const epd = join(dir, 'data', REAL_EPDS[0].file);
  writeFileSync(epd, `${readFileSync(epd, 'utf8')} `);
  const second = await run(args);
  assert.is(second.code, 0, second.err);
  assert.match(second.err, `read and validated 1 XML files, ${all - 1} unchanged taken from the cache\n`);
});

test("after the read: a note when the XSD validation ran in the bundled xmllint-wasm, none with libxml2's own", () => {
  const note = /note: XSD validation used the bundled xmllint-wasm.*apt-get install libxml2-utils/;
  assert.match(lines([{ phase: 'read', done: 5, total: 5, cached: 0, xsd: 'wasm' }]), note);
  assert.not.match(lines([{ phase: 'read', done: 5, total: 5, cached: 0, xsd: 'native' }]), /note/);
  assert.not.match(lines([{ phase: 'read', done: 5, total: 5, cached: 0 }]), /note/);
  // On a terminal too, once the bar is cleared.
  let text = '';
  /** @type {any} */
  const tty = { isTTY: true, write: (s) => void (text += s) };
  progressReporter(tty, true)({ phase: 'read', done: 5, total: 5, cached: 0, xsd: 'wasm' });
  assert.match(text, note);
});

test('the CLI says when its XSD validation ran in xmllint-wasm, and not when no document met the schemas', async () => {
  const dir = tmp();
  // A child process each: the engine is chosen once per process.
  cpSync(join(EXAMPLE_DATA, 'ibu_with_dependencies'), join(dir, 'data'), { recursive: true });
  const args = ['build', join(dir, 'data'), '--out', join(dir, 'site'), '--cache-dir', join(dir, 'cache')];
  const wasm = { env: { PO_NODE_XSD: 'wasm' } };
  const first = await runChild(args, wasm);
  assert.is(first.code, 0, first.err);
  assert.match(first.err, 'used the bundled xmllint-wasm');
  // Nothing read (a rebuild with nothing changed), or XSD off: nothing validated against the schemas, no note.
  const again = await runChild(args, wasm);
  assert.is(again.code, 0, again.err);
  assert.not.match(again.err, /read and validated [1-9]/);
  assert.not.match(again.err, 'xmllint-wasm');
  const level2 = await runChild(['build', join(dir, 'data'), '--out', join(dir, 'site2'), '--level', '2'], wasm);
  assert.is(level2.code, 0, level2.err);
  assert.not.match(level2.err, 'xmllint-wasm');
  // With libxml2's own xmllint on the PATH (CI installs it), none.
  const native = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;
  const plain = await runChild(['build', join(dir, 'data'), '--out', join(dir, 'site3')]);
  assert.is(plain.code, 0, plain.err);
  assert.is(plain.err.includes('xmllint-wasm'), !native, plain.err);
});

test.after(() => cleanup());
test.run();
