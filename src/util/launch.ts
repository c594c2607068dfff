import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';

/**
 * How the CLI launcher (bin/po-node.js) runs a command: in its own process, or in a new Node process started with
 * options that only take effect when Node starts.
 *
 * `build` and `validate` on a machine of one or two cores run with `--v8-pool-size=1`: V8's background threads
 * (concurrent compilation and garbage collection for the main thread and every worker) are four by default, and on
 * two cores they took the main thread's core from it: in a 1% rebuild of 10,000 EPDs the main thread waited
 * 0.93-1.18 s for a core, 0.64-0.76 s with one such thread (5 pairs), and the rebuild's median went 4.11 -> 3.84 s (30
 * pairs; docs/performance.md, the round "one V8 background thread on two cores"). A Node option given by the
 * user (`--v8-pool-size` in `NODE_OPTIONS` or on node's command line) is left as it is, and so is a run under the
 * inspector.
 */
export const LAUNCHED_ENV = 'PO_NODE_LAUNCHED';

const POOLED_COMMANDS = new Set(['build', 'validate']);

/** The Node options to start a new process with for this command line, or none: run it here. */
export function launchFlags(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
  cores: number = availableParallelism(),
): string[] {
  // Already the process the launcher started.
  if (env[LAUNCHED_ENV]) return [];
  if (!POOLED_COMMANDS.has(args[0] ?? '') || args.includes('--help') || args.includes('-h')) return [];
  if (cores > 2) return [];
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (given.some((a) => a.startsWith('--v8-pool-size') || a.startsWith('--inspect'))) return [];
  return ['--v8-pool-size=1'];
}

/**
 * Run `script` with `args` in a new Node process started with `flags` (and this process's own Node options), as if it
 * ran here: the same stdio, its exit code returned; INT, TERM and HUP passed on to it; and should it die of a signal,
 * this process ends by the same signal. The new process ends itself should this one die first (launched()).
 * Rejects when it cannot be started: the caller then runs the command itself.
 */
export function runLaunched(script: string, args: readonly string[], flags: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...flags, script, ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, [LAUNCHED_ENV]: '1' },
    });
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const pass = (s: NodeJS.Signals) => void child.kill(s);
    for (const s of signals) process.on(s, pass);
    child.once('error', (e) => {
      for (const s of signals) process.off(s, pass);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, pass);
      // Ended by the same signal; one Node ignores (SIGPIPE) gives the shell's code for it instead.
      if (signal) process.kill(process.pid, signal);
      resolve(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
    });
  });
}

/**
 * In a process runLaunched started: end should the launcher die first (killed with SIGKILL, which it cannot pass on),
 * so no build goes on writing with no one waiting for it. The channel does not keep the process alive.
 */
export function launched(): void {
  if (!process.env[LAUNCHED_ENV]) return;
  // Not for the commands this one starts (xmllint, a `po-node` a test runs): they decide for themselves.
  delete process.env[LAUNCHED_ENV];
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.exit(129));
}
