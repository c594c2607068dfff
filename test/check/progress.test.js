// The check's progress output: a bar on a TTY for crawls that last, phase lines in logs, nothing with --json.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkProgressReporter } from '../../dist/check/format.js';

/** @returns {NodeJS.WriteStream & { text: () => string }} */
function stream(isTTY) {
  let s = '';
  return /** @type {any} */ ({ isTTY, write: (x) => ((s += x), true), text: () => s });
}

test('TTY: a bar once the crawl lasts over a second, cleared at the end', async () => {
  const st = stream(true);
  const report = checkProgressReporter(st, true);
  report({ phase: 'start', baseUrl: 'http://127.0.0.1:1' });
  report({ phase: 'epds', done: 1, total: 4 });
  assert.is(st.text(), ''); // short crawls: no flicker
  await new Promise((ok) => setTimeout(ok, 1050));
  report({ phase: 'epds', done: 2, total: 4 });
  assert.match(st.text(), '[###############...............] 2/4 EPD documents');
  report({ phase: 'done' });
  assert.ok(st.text().endsWith('\r\x1b[K'));
});

test('not a TTY: one line per phase; disabled: nothing', () => {
  const st = stream(false);
  const report = checkProgressReporter(st, true);
  report({ phase: 'start', baseUrl: 'http://127.0.0.1:1' });
  report({ phase: 'lists' });
  for (let i = 0; i <= 3; i++) report({ phase: 'epds', done: i, total: 3 });
  assert.is(st.text(), 'po-node: checking http://127.0.0.1:1\npo-node: reading the lists\npo-node: fetching 3 EPD documents\n');
  const off = stream(true);
  checkProgressReporter(off, false)({ phase: 'epds', done: 1, total: 1 });
  assert.is(off.text(), '');
});

test.run();
