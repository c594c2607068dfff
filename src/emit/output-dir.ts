import { spawnChild } from '../util/spawner.js';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { OutputError } from '../errors.js';
import { isInside } from '../util/paths.js';

/**
 * Temporary folders of a build are siblings of the output folder named `.<out>.tmp-<owner>-XXXXXX`, `...old` during
 * the swap (the replaced site, put back if the build dies before the new one is in place), `...trash` after it
 * (the replaced site being deleted or made the spare, off the critical path) and `...spare` (a spare no build may
 * reuse, being deleted). The owner (host, pid, process start time) is in the name, so it exists from the moment the
 * folder does: a build killed with SIGKILL leaves folders the next build of the same output can prove nobody owns.
 */
export function tempPrefix(out: string): string {
  return join(dirname(out), `.${basename(out)}.tmp-${ownerToken()}-`);
}

/**
 * The spare of an output folder, `.<out>.spare`: the site the last build replaced, made a hard-link copy of the site
 * that build wrote (src/emit/write.ts, docs/performance.md "The spare tree"). Owned by no process: the next build
 * takes it by renaming it to its temporary folder.
 */
export function spareFolder(out: string): string {
  return join(dirname(out), `.${basename(out)}.spare`);
}

let token: string | undefined;
function ownerToken(): string {
  return (token ??= `${HOST}-${process.pid}-${procStat(process.pid)?.start ?? 0}`);
}

const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** State and start time (clock ticks since boot) of a process from Linux /proc; undefined where it cannot be read. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself contain spaces and parentheses.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: f[0]!, start: f[19]! };
  } catch {
    return undefined;
  }
}

/** Does a process with this pid, started at this time, still run? Unsure counts as yes. */
function alive(pid: number, start: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // A zombie (killed, not yet reaped by its parent) writes nothing more. The pid may have been reused since:
  // a different start time is a different process.
  const now = procStat(pid);
  if (!now) return true;
  return now.state !== 'Z' && (start === '0' || now.start === start);
}

/** Folders without an owner in their name (earlier versions) are left for a day in case a build still writes them. */
const UNOWNED_GRACE_MS = 24 * 3600 * 1000;

/**
 * Remove temporary folders of `out` left by builds that no longer run. Folders of live builds (any process on
 * this host whose pid and start time match, this one included) and of other hosts are never touched. When a build
 * died between the two renames of its swap (the old site moved aside, the new one not yet in place), the old site is
 * put back first. Best effort: what cannot be removed stays for a later build.
 */
export async function removeStaleTemps(out: string): Promise<void> {
  const parent = dirname(out);
  const name = basename(out).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const owned = new RegExp(`^\\.${name}\\.tmp-([0-9a-f]{8})-(\\d+)-(\\d+)-[A-Za-z0-9]{6}(\\.old\\d*|\\.trash\\d*|\\.spare)?$`);
  const unowned = new RegExp(`^\\.${name}\\.tmp-[A-Za-z0-9]{6}(\\.old)?$`);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const n of names.sort()) {
    const m = owned.exec(n);
    const p = join(parent, n);
    if (m) {
      if (m[1] !== HOST || alive(Number(m[2]), m[3]!)) continue;
    } else if (unowned.test(n)) {
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st || Date.now() - st.mtimeMs < UNOWNED_GRACE_MS) continue;
    } else continue;
    try {
      const aside = m ? m[4]?.startsWith('.old') : n.endsWith('.old');
      if (aside && !existsSync(out)) await rename(p, out);
      else await removeTree(p);
    } catch {
      // Someone else's, or being removed by a concurrent build: not ours to insist on.
    }
  }
}

/**
 * Delete a folder of ours (a replaced site, a stale temporary one) with all it holds; never rejects. `rm -rf` in a
 * process of its own where there is one: the 32,000 paths of a replaced site of 10,000 EPDs took it 4.1-4.5 s, Node's
 * fs.rm 5.5-6.1 s, and fs.rm filled the thread pool the work after a build's result waits on. Else (no `rm`, or it
 * failed) fs.rm.
 */
export function removeTree(path: string): Promise<void> {
  const fallback = () => rm(path, { recursive: true, force: true }).catch(() => undefined);
  return new Promise<void>((done) => {
    let settled = false;
    const end = (ok: boolean) => {
      if (settled) return;
      settled = true;
      if (ok) done();
      else void fallback().then(done);
    };
    try {
      spawnChild('rm', ['-rf', '--', path], { outlive: true })
        .on('error', () => end(false))
        .on('exit', (code) => end(code === 0));
    } catch {
      end(false);
    }
  });
}

/** The output folder as the user sees it: relative to the working directory when inside it. */
function shown(p: string, cwd: string): string {
  return isInside(cwd, p) ? relative(cwd, p) || '.' : p;
}

/** Fail before the inputs are read when the output folder cannot be created or replaced. */
export function checkWritable(out: string, cwd: string, what: string): void {
  // Creating the sibling temporary folder and renaming needs write permission on the parent, or on the nearest
  // ancestor that exists (it is created). access() also reports a read-only file system, even to root.
  let dir = dirname(out);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw outputFailure(e, out, cwd, what) ?? e;
  }
}

/** The output folder is replaced by renaming, which a mount point does not allow. */
export const MOUNT_HINT = (out: string) =>
  `A mount point cannot be replaced by renaming: use a folder inside it, e.g. --out ${join(out, 'site')}.`;

const HINTS: Record<string, (parent: string, out: string) => string> = {
  EROFS: (p) => `${p} is on a read-only file system: pick an --out on a writable disk.`,
  EACCES: (p) => `This user may not create folders in ${p}: pick another --out, or get write permission there.`,
  ENOSPC: () => 'Free space on that disk, or pick an --out on another disk. Nothing was replaced: a previous site there is unchanged.',
  EDQUOT: () => 'The disk quota is used up: free space, or pick an --out on another disk. A previous site there is unchanged.',
  EFBIG: () => 'A file is larger than the file system or the file size limit (ulimit -f) allows. A previous site there is unchanged.',
  EBUSY: (_, out) => MOUNT_HINT(out),
  ENOTDIR: () => 'A part of the --out path is a file, not a folder.',
};
HINTS.EPERM = HINTS.EACCES!;
HINTS.EXDEV = HINTS.EBUSY!;

/**
 * A file-system error while writing `out` as one line for a person: `Cannot write <what> to <out>: <reason> (CODE)`
 * with a hint. Undefined for errors that are not I/O errors (bugs keep their stack).
 */
export function outputFailure(e: unknown, out: string, cwd: string, what: string): OutputError | undefined {
  const err = e as NodeJS.ErrnoException;
  if (!(err instanceof Error) || typeof err.code !== 'string' || !err.syscall) return undefined;
  // Node's message starts "CODE: words, syscall 'path'": the words are the system's own description.
  const words = /^[A-Z0-9]+: ([^,]+)/.exec(err.message)?.[1] ?? err.code;
  const hint = HINTS[err.code]?.(shown(dirname(out), cwd), shown(out, cwd));
  return new OutputError(`Cannot write ${what} to ${shown(out, cwd)}: ${words} (${err.code})`, { ...(hint ? { hint } : {}), cause: e });
}
