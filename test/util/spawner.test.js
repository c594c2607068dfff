import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { spawnChild, startSpawner } from '../../dist/util/spawner.js';
import { cleanup, tmp } from '../helpers/index.js';

/** Runs a command through the spawner: its stderr as text, its exit code and signal, or the error it failed with. */
function run(cmd, args, opts = {}, onStart = undefined) {
  return new Promise((resolve) => {
    const p = spawnChild(cmd, args, { stderr: true, ...opts });
    let err = '';
    p.stderr.setEncoding('utf8');
    p.stderr.on('data', (c) => (err += c));
    p.on('error', (e) => resolve({ error: e }));
    p.on('close', (code, signal) => resolve({ err, code, signal, pid: p.pid }));
    onStart?.(p);
  });
}

test('a command started through the helper: its stderr, exit code, working directory and environment are its own', async () => {
  startSpawner();
  const dir = join(tmp(), 'cwd');
  mkdirSync(dir);
  const r = await run('sh', ['-c', 'printf "%s|%s" "$PWD" "$PO_NODE_SPAWN_TEST" >&2; exit 3'], { cwd: dir });
  assert.equal(r.code, 3);
  assert.is(r.signal, null);
  assert.is(r.err, `${realpathSync(dir)}|`);
  process.env.PO_NODE_SPAWN_TEST = 'set after the helper started';
  try {
    const withEnv = await run('sh', ['-c', 'printf "%s" "$PO_NODE_SPAWN_TEST" >&2']);
    assert.is(withEnv.code, 0);
    assert.is(withEnv.err, 'set after the helper started', 'the environment of the call, not of the helper');
  } finally {
    delete process.env.PO_NODE_SPAWN_TEST;
  }
  // Not a child of this process: started by the helper (pid undefined on the stand-in).
  assert.is(r.pid, undefined);
});

test('a command not found is an error event; a killed one closes with SIGKILL; large stderr arrives whole', async () => {
  const missing = await run('po-node-no-such-command', []);
  assert.ok(missing.error, 'error event');
  assert.is(missing.error.code, 'ENOENT');
  const killed = await run('sleep', ['30'], {}, (p) => setTimeout(() => p.kill('SIGKILL'), 50));
  assert.is(killed.signal, 'SIGKILL');
  assert.is(killed.code, null);
  const big = await run('sh', ['-c', 'i=0; while [ $i -lt 5000 ]; do echo "line $i é" >&2; i=$((i+1)); done']);
  const lines = big.err.trimEnd().split('\n');
  assert.is(lines.length, 5000);
  assert.is(lines[4999], 'line 4999 é');
});

test('commands run at once, each reports to its own caller', async () => {
  const rs = await Promise.all([1, 2, 3, 4, 5].map((n) => run('sh', ['-c', `sleep 0.0${n}; echo ${n} >&2; exit ${n}`])));
  assert.equal(
    rs.map((r) => [r.code, r.err]),
    [1, 2, 3, 4, 5].map((n) => [n, `${n}\n`]),
  );
});

test('the helper gone: a command it said nothing of runs directly, one half reported fails; later ones run directly', async () => {
  const ps = spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).stdout;
  const helper = ps.split('\n').find((l) => l.includes('spawn-helper.js'));
  assert.ok(helper, `the helper runs:\n${ps}`);
  const dir = join(tmp(), 'runs');
  mkdirSync(dir);
  // Counts its runs in a file: started again directly, it says so.
  const silent = run('sh', ['-c', 'echo x >> runs; sleep 1; echo "runs $(wc -l < runs)" >&2; exit 6'], { cwd: dir });
  let spoke;
  const spoken = new Promise((r) => (spoke = r));
  const half = run('sh', ['-c', 'echo first >&2; sleep 5'], {}, (p) => p.stderr.on('data', () => spoke()));
  await spoken;
  process.kill(Number(helper.trim().split(/\s+/)[0]), 'SIGKILL');
  const h = await half;
  assert.ok(h.error, 'error event for the command whose stderr had begun');
  assert.match(h.error.message, /helper ended/);
  const r = await silent;
  assert.is(r.code, 6, JSON.stringify(r));
  assert.match(r.err, /^runs [12]\n$/);
  const after = await run('sh', ['-c', 'echo direct >&2; exit 4']);
  assert.equal([after.code, after.err], [4, 'direct\n']);
  assert.type(after.pid, 'number', 'a child of this process');
});

test.after.each(cleanup);
test.run();
