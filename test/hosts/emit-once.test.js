// Each host's emit() runs once per build: its files in the tree and its configs outside it come from one call.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HOST_NAMES, HOSTS } from '../../dist/index.js';
import { buildExample, cleanup } from '../helpers/index.js';

const test = suite('hosts: emitted once per build');

test('every host of a build emits exactly once', async () => {
  const calls = Object.fromEntries(HOST_NAMES.map((h) => [h, 0]));
  const saved = Object.fromEntries(HOST_NAMES.map((h) => [h, HOSTS[h].emit]));
  for (const h of HOST_NAMES) HOSTS[h].emit = (ctx) => (calls[h]++, saved[h](ctx));
  try {
    const hosts = HOST_NAMES.filter((h) => h !== 'cloudflare-pages');
    const { result } = await buildExample({ hosts });
    assert.ok(result.written);
    assert.equal(calls, { ...Object.fromEntries(hosts.map((h) => [h, 1])), 'cloudflare-pages': 0 });
  } finally {
    for (const h of HOST_NAMES) HOSTS[h].emit = saved[h];
  }
});

test.after(cleanup);
test.run();
