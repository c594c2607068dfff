import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { progressReporter } from '../../dist/report/progress.js';
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

test.after(() => cleanup());
test.run();
