// The launcher (src/util/launch.ts, bin/po-node.js): which commands run in a new Node process with which options, and
// that such a process behaves as the command run in place: exit code, signals, no process left behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchFlags } from '../../dist/util/launch.js';
import { BIN, cleanup, EXAMPLE_CONFIG, FIXTURES, tmp } from '../helpers/index.js';

const LAUNCHER = join(FIXTURES, 'launch', 'launcher.js');
const POOL = ['--v8-pool-size=1'];

test('build and validate on one or two cores get one V8 background thread; other commands and machines none', () => {
  for (const cores of [1, 2]) {
    assert.equal(launchFlags(['build', 'data'], {}, [], cores), POOL);
    assert.equal(launchFlags(['validate', '--config', 'x.json'], {}, [], cores), POOL);
  }
  assert.equal(launchFlags(['build'], {}, [], 4), []);
  for (const cmd of ['serve', 'check', 'deploy', 'init', '--version', 'help']) assert.equal(launchFlags([cmd], {}, [], 2), [], cmd);
  assert.equal(launchFlags([], {}, [], 2), []);
  assert.equal(launchFlags(['build', '--help'], {}, [], 2), []);
  assert.equal(launchFlags(['build', '-h'], {}, [], 2), []);
});

test("the user's own pool size, the inspector and an already launched process are left alone", () => {
  assert.equal(launchFlags(['build'], { NODE_OPTIONS: '--max-old-space-size=4096 --v8-pool-size=4' }, [], 2), []);
  assert.equal(launchFlags(['build'], {}, ['--v8-pool-size=2'], 2), []);
  assert.equal(launchFlags(['build'], {}, ['--inspect-brk'], 2), []);
  assert.equal(launchFlags(['build'], { NODE_OPTIONS: '--inspect' }, [], 2), []);
  assert.equal(launchFlags(['build'], { PO_NODE_LAUNCHED: '1' }, [], 2), []);
  // Other Node options do not stop it.
  assert.equal(launchFlags(['build'], { NODE_OPTIONS: '--max-old-space-size=4096' }, ['--no-warnings'], 2), POOL);
});

/**
 * Run the launcher fixture; resolves with its exit code, signal and stdout. The `wait` cases take no stdout: a
 * launched process left behind would hold the pipe open, and the test would hang instead of failing.
 */
function launch(args, env = {}) {
  const piped = args[0] !== 'wait';
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--no-warnings', LAUNCHER, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', piped ? 'pipe' : 'ignore', 'inherit'],
    });
    let out = '';
    p.stdout?.on('data', (d) => (out += d));
    // A launcher that does not end on a signal it was sent fails the test (ended by SIGKILL), not hangs it.
    const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
    p.on(piped ? 'close' : 'exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
}

/**
 * The pid a fixture wrote to `file`, once it is there in full: a file just created is empty, and `Number('')` is 0,
 * which `process.kill` takes for the whole process group (the test runner with it).
 */
function pidIn(file) {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8'));
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** End a process a failed test left behind. */
function reap(pidfile) {
  const pid = pidIn(pidfile);
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone, as it should be
  }
}

/** Whether a process is alive. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What a process left alive is, for a failure's message: state and parent from /proc (Linux), its command line. */
function whatIs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return `pid ${pid}: state ${state}, parent ${ppid}, ${cmd || '(no command line)'}`;
  } catch {
    return `pid ${pid}: gone`;
  }
}

async function waitFor(what, ms = 10_000) {
  const until = Date.now() + ms;
  while (!what()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

test("the launched process gets the options (and the launcher's own), its exit code comes back, the mark is not passed on", async () => {
  const r = await launch(['argv']);
  assert.is(r.code, 0);
  const seen = JSON.parse(r.out);
  assert.equal(seen.execArgv, ['--no-warnings', ...POOL]);
  assert.is(seen.mark, '1');
  // Commands it starts (xmllint, a po-node a test runs) decide for themselves.
  assert.is(seen.after, null);
  for (const n of [0, 1, 2, 7]) assert.is((await launch(['exit', String(n)])).code, n);
});

test('a signal to the launcher reaches the launched process, and the launcher ends by it', async () => {
  const dir = tmp('launch-');
  try {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
      const pidfile = join(dir, `${signal}.pid`);
      const selfFile = join(dir, `${signal}.self`);
      const done = launch(['wait', pidfile], { PIDFILE: selfFile });
      assert.ok(await waitFor(() => pidIn(pidfile) !== undefined && pidIn(selfFile) !== undefined), 'the launched process started');
      const child = pidIn(pidfile);
      process.kill(pidIn(selfFile), signal);
      const r = await done;
      assert.is(r.signal, signal, `launcher ended by ${signal}`);
      const ended = await waitFor(() => !alive(child));
      assert.ok(ended, `launched process ended on ${signal} (${ended ? '' : whatIs(child)})`);
    }
  } finally {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) for (const f of ['pid', 'self']) reap(join(dir, `${signal}.${f}`));
    await cleanup();
  }
});

test('killed launcher (SIGKILL, nothing passed on): the launched process ends by itself', async () => {
  const dir = tmp('launch-');
  try {
    const pidfile = join(dir, 'child.pid');
    const selfFile = join(dir, 'self.pid');
    const done = launch(['wait', pidfile], { PIDFILE: selfFile });
    assert.ok(await waitFor(() => pidIn(pidfile) !== undefined && pidIn(selfFile) !== undefined));
    const child = pidIn(pidfile);
    process.kill(pidIn(selfFile), 'SIGKILL');
    assert.is((await done).signal, 'SIGKILL');
    const ended = await waitFor(() => !alive(child), 5000);
    assert.ok(ended, `no launched process left behind (${ended ? '' : whatIs(child)})`);
  } finally {
    reap(join(dir, 'child.pid'));
    await cleanup();
  }
});

test('po-node build through bin/: launched with the pool option on this machine when it has two cores at most', async () => {
  const dir = tmp('launch-');
  try {
    const preload = join(FIXTURES, 'launch', 'argv-preload.js');
    const r = spawnSync(
      process.execPath,
      ['--import', preload, BIN, 'build', '--config', EXAMPLE_CONFIG, '--out', join(dir, 'site'), '-q'],
      {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
      },
    );
    assert.is(r.status, 0, r.stderr);
    const seen = [...r.stderr.matchAll(/^launch-test execArgv (.*)$/gm)].map((m) => JSON.parse(m[1]));
    if (availableParallelism() <= 2) {
      // The launcher and the build, which printed first (it ends first).
      assert.is(seen.length, 2, r.stderr);
      assert.ok(seen[0].includes('--v8-pool-size=1'), JSON.stringify(seen));
      assert.not.ok(seen[1].includes('--v8-pool-size=1'));
    } else {
      assert.is(seen.length, 1, r.stderr);
    }
    assert.ok(existsSync(join(dir, 'site', 'healthz', 'index.json')));
    // Exit codes of the build come through the launcher: a missing config is a usage error (2).
    const bad = spawnSync(process.execPath, [BIN, 'build', '--config', join(dir, 'missing.json')], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    assert.is(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, 'Cannot read config file');
  } finally {
    await cleanup();
  }
});

test.run();
