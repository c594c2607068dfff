// The CLI in a child process, with its peak RSS: for limits on memory and time that only a separate process shows.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/po-node.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./rss-preload.js', import.meta.url));

/**
 * Run the CLI in a child process; resolves with its exit code, stdout, stderr, wall time and peak RSS in MB
 * (VmHWM of the child, printed by rss-preload.js). Killed after killMs.
 * `as`: a command prefix the child runs under (e.g. setpriv to drop root).
 * @param {string[]} args
 * @param {{ killMs?: number, cwd?: string, env?: Record<string, string>, as?: string[] }} [options]
 */
export function runCli(args, { killMs = 60_000, cwd, env = {}, as = [] } = {}) {
  return new Promise((ok) => {
    const started = Date.now();
    const cmd = [...as, process.execPath, '--import', PRELOAD, BIN, ...args];
    /** @type {import('node:child_process').SpawnOptionsWithStdioTuple<'ignore', 'pipe', 'pipe'>} */
    const options = { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env }, ...(cwd ? { cwd } : {}) };
    const child = spawn(cmd[0], cmd.slice(1), options);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), killMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const rss = /^po-node-test maxRSS (\d+)$/m.exec(err);
      ok({ code, signal, out, err, ms: Date.now() - started, rssMB: rss ? Number(rss[1]) / 1024 : undefined });
    });
  });
}
