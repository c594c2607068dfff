import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { isPlainXml, type InputFile } from '../read/inputs.js';
import { readFileReused } from '../read/zip.js';

/**
 * The sha256 of inputs, taken in a worker thread while the main thread loads the incremental-build cache: on a CI
 * runner's fresh checkout (new paths, mtimes and ctimes) the cache knows an unchanged input only by that hash, and
 * hashing the 790 MB of 10,000 bench EPDs took the main thread about a second after the load (docs/performance.md).
 * The worker hashes from the first file on, the main thread from the last one back once it gets there; each file is
 * claimed by one of them (a compare-and-swap on shared memory), so none is hashed twice and neither waits for the
 * other but for the file the other is in the middle of.
 */
export class HashAhead {
  private readonly state: Int32Array;
  private readonly digests: Uint8Array;
  private readonly index: Map<string, number>;
  private worker: Worker | undefined;

  constructor(readonly paths: readonly string[]) {
    const shared = new SharedArrayBuffer(36 * paths.length);
    ({ state: this.state, digests: this.digests } = sharedTables(shared, paths.length));
    this.index = new Map(paths.map((p, i) => [p, i]));
    const w = new Worker(new URL('./hash-worker.js', import.meta.url), { workerData: { paths, shared } });
    // A worker that dies leaves files unclaimed (the main thread hashes them) or one claimed (see digestOf).
    w.on('error', () => {});
    w.unref();
    this.worker = w;
  }

  /** Hash what the worker has not claimed yet, from the last file back: call once the main thread has nothing else to do. */
  hashTheRest(): void {
    for (let i = this.paths.length - 1; i >= 0; i--) {
      // The worker goes forward and claims in order: a file it claimed means it has claimed or passed every one before.
      if (!claimAndHash(this.state, this.digests, this.paths, i, MAIN)) break;
    }
  }

  /** The sha256 (hex) of the file at `abs` as hashed here or by the worker; undefined where it could not be read. */
  digestOf(abs: string): string | undefined {
    const i = this.index.get(abs);
    if (i === undefined) return hashFile(abs);
    // The worker's, once it is done with it; one it has not claimed is taken here. A worker that does not finish a
    // file in a second (it died, or the disk stalls) is not waited for longer: the file is hashed here too.
    if (Atomics.compareExchange(this.state, i, UNCLAIMED, MAIN) === UNCLAIMED) return hashFile(abs);
    if (Atomics.load(this.state, i) === CLAIMED && Atomics.wait(this.state, i, CLAIMED, 1000) === 'timed-out') return hashFile(abs);
    const s = Atomics.load(this.state, i);
    if (s === DONE) return Buffer.from(this.digests.buffer, this.digests.byteOffset + 32 * i, 32).toString('hex');
    return s === FAILED ? undefined : hashFile(abs);
  }

  /** Done with it: the worker stops (a file it was hashing stays claimed: ask digestOf no more). */
  stop(): void {
    void this.worker?.terminate();
  }
}

/** States of a file: not claimed, claimed by the worker, claimed by the main thread, hashed, unreadable. */
const UNCLAIMED = 0;
export const CLAIMED = 1;
const MAIN = 2;
const DONE = 3;
const FAILED = 4;

/** The state of each file and its digest (32 bytes), on the memory both threads share. */
export function sharedTables(shared: SharedArrayBuffer, n: number): { state: Int32Array; digests: Uint8Array } {
  return { state: new Int32Array(shared, 0, n), digests: new Uint8Array(shared, 4 * n, 32 * n) };
}

/** Claim file `i` for thread `by` (CLAIMED or MAIN) and hash it into the tables; false where another thread has it. */
export function claimAndHash(state: Int32Array, digests: Uint8Array, paths: readonly string[], i: number, by: number): boolean {
  if (Atomics.compareExchange(state, i, UNCLAIMED, by) !== UNCLAIMED) return false;
  const d = hashBytes(paths[i]!);
  if (d) digests.set(d, 32 * i);
  Atomics.store(state, i, d ? DONE : FAILED);
  // digestOf may be waiting for it.
  Atomics.notify(state, i);
  return true;
}

/** The sha256 of a file's bytes, or undefined where it cannot be read (as the cache's own lookup). */
function hashBytes(abs: string): Buffer | undefined {
  try {
    return createHash('sha256').update(readFileReused(abs)).digest();
  } catch {
    return undefined;
  }
}

/** hashBytes as hex, the form the cache records. */
export const hashFile = (abs: string): string | undefined => hashBytes(abs)?.toString('hex');

/** Hash the plain files of `files` (not ZIP archives or their entries) ahead; undefined when there are none. */
export function startHashAhead(files: readonly InputFile[]): HashAhead | undefined {
  const plain = files.filter(isPlainXml).map((f) => f.abs);
  return plain.length ? new HashAhead(plain) : undefined;
}
