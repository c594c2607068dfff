import { fork, spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';

/**
 * Commands (xmllint, rm) started by a helper process instead of by po-node's own. Node starts a command with fork():
 * in a process holding a large heap (a build's catalog, its read workers' heaps) that copies the page tables and
 * makes every page copy-on-write, so each page the build writes afterwards faults once more. On the bench machine a
 * spawn from a process holding 512 MB took 46-63 ms, and writing those 512 MB again afterwards 3.0-3.3 s (4 ms
 * before the spawn); a full build of 10,000 EPDs spawns xmllint about 45 times. The helper (spawn-helper.ts) is a
 * Node process with a small heap, forked once when the build starts; it starts each command, relays its stderr and
 * its exit over IPC, and kills it when asked or when po-node ends. Without it (it could not start or it died),
 * commands are spawned directly, and so is one it was running when it died, unless part of its stderr had come.
 */

/** What a caller sees of a command: ChildProcess's events and methods that po-node uses. */
export interface Spawned {
  /** Set on a child of this process (started directly), undefined when the helper started it. */
  readonly pid?: number | undefined;
  /** Its stderr as text (null when not asked for). */
  readonly stderr: { setEncoding(encoding: 'utf8'): unknown; on(event: 'data', f: (chunk: string) => void): unknown } | null;
  on(event: 'error', f: (e: Error) => void): this;
  on(event: 'exit' | 'close', f: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  kill(signal: 'SIGKILL'): boolean;
}

export interface SpawnOptions {
  cwd?: string;
  /** Pipe its stderr (else ignored; stdin and stdout are always ignored). */
  stderr?: boolean;
  /** Let it finish should po-node end first (deleting a replaced tree); else it is killed then. */
  outlive?: boolean;
}

/** Messages to the helper. */
export type HelperRequest =
  | { op: 'spawn'; id: number; cmd: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; stderr: boolean; outlive: boolean }
  | { op: 'kill'; id: number };
/** Messages from the helper. */
export type HelperReply =
  | { id: number; stderr: string }
  | { id: number; error: { message: string; code?: string | undefined } }
  | { id: number; close: [number | null, NodeJS.Signals | null] };

/** The helper: undefined before it is started, null when it cannot be used. */
let helper: ChildProcess | null | undefined;
const running = new Map<number, Remote>();
let nextId = 0;

/** Start the helper now, while this process is small (a build calls it first thing). */
export function startSpawner(): void {
  if (helper !== undefined) return;
  try {
    // No execArgv: a profiler or heap flag of po-node's process has no business in the helper.
    helper = fork(fileURLToPath(new URL('./spawn-helper.js', import.meta.url)), [], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      execArgv: [],
    });
  } catch {
    helper = null;
    return;
  }
  const h = helper;
  h.on('message', (m: HelperReply) => running.get(m.id)?.reply(m));
  const gone = () => {
    if (helper === h) helper = null;
    for (const r of running.values()) r.helperGone();
  };
  h.on('exit', gone);
  h.on('error', gone);
  idle(h);
}

/** Start `cmd` with `args` (looked up on this process's PATH, with its environment) through the helper. */
export function spawnChild(cmd: string, args: string[], opts: SpawnOptions = {}): Spawned {
  startSpawner();
  const h = helper;
  if (!h?.connected) return direct(cmd, args, opts);
  const r = new Remote(nextId++, cmd, args, opts);
  running.set(r.id, r);
  if (running.size === 1) {
    h.ref();
    h.channel?.ref();
  }
  const req: HelperRequest = {
    op: 'spawn',
    id: r.id,
    cmd,
    args,
    // The helper's own working directory is the one po-node had when it started it.
    cwd: opts.cwd ?? process.cwd(),
    env: process.env,
    stderr: opts.stderr ?? false,
    outlive: opts.outlive ?? false,
  };
  h.send(req);
  return r;
}

const direct = (cmd: string, args: string[], opts: SpawnOptions): ChildProcess =>
  spawn(cmd, args, { cwd: opts.cwd, stdio: ['ignore', 'ignore', opts.stderr ? 'pipe' : 'ignore'] });

/** Nothing running: the helper must not keep po-node's process alive. */
function idle(h: ChildProcess): void {
  h.unref();
  h.channel?.unref();
}

class Remote extends EventEmitter implements Spawned {
  readonly stderr: (EventEmitter & { setEncoding(encoding: 'utf8'): unknown }) | null;
  private ended = false;
  private heard = false;
  private killed = false;
  /** Started directly, the helper having died before it said anything of this command. */
  private instead: ChildProcess | undefined;

  constructor(
    readonly id: number,
    private readonly cmd: string,
    private readonly args: string[],
    private readonly opts: SpawnOptions,
  ) {
    super();
    this.stderr = opts.stderr ? Object.assign(new EventEmitter(), { setEncoding: () => undefined }) : null;
  }

  kill(): boolean {
    if (this.ended) return false;
    this.killed = true;
    if (this.instead) return this.instead.kill('SIGKILL');
    if (!helper?.connected) return false;
    helper.send({ op: 'kill', id: this.id } satisfies HelperRequest);
    return true;
  }

  /**
   * The helper died with this command running. Nothing heard of it yet (the helper may never have started it): it is
   * started directly; else (part of its stderr relayed) it fails, as a command that died would.
   */
  helperGone(): void {
    if (this.heard || this.killed) return this.finish(new Error('the spawn helper ended'));
    // Out of `running`: the helper's 'error' and 'exit' both report its end, and this must start once.
    running.delete(this.id);
    const p = (this.instead = direct(this.cmd, this.args, this.opts));
    p.stderr?.setEncoding('utf8');
    p.stderr?.on('data', (c: string) => this.stderr?.emit('data', c));
    p.on('error', (e) => this.finish(e));
    p.on('close', (code, signal) => this.finish(undefined, code, signal));
  }

  reply(m: HelperReply): void {
    if (this.ended) return;
    this.heard = true;
    if ('stderr' in m) this.stderr?.emit('data', m.stderr);
    else if ('error' in m) this.finish(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
    else this.finish(undefined, ...m.close);
  }

  /** Reported once, as ChildProcess does: 'error', or 'exit' then 'close'. */
  private finish(e: Error | undefined, code: number | null = null, signal: NodeJS.Signals | null = null): void {
    if (this.ended) return;
    this.ended = true;
    if (running.delete(this.id) && helper && running.size === 0) idle(helper);
    if (e) this.emit('error', e);
    else {
      this.emit('exit', code, signal);
      this.emit('close', code, signal);
    }
  }
}
