// Worker thread of src/cache/hash-ahead.ts: hashes the inputs from the first on, each one it can claim.
import { workerData } from 'node:worker_threads';
import { CLAIMED, DONE, FAILED, hashBytes, UNCLAIMED } from './hash-ahead.js';

const { paths, shared } = workerData as { paths: string[]; shared: SharedArrayBuffer };
const n = paths.length;
const state = new Int32Array(shared, 0, n);
const digests = new Uint8Array(shared, 4 * n, 32 * n);
for (let i = 0; i < n; i++) {
  // Claimed by the main thread (from the end back, or one it needed first): skipped.
  if (Atomics.compareExchange(state, i, UNCLAIMED, CLAIMED) !== UNCLAIMED) continue;
  const d = hashBytes(paths[i]!);
  if (d) digests.set(d, 32 * i);
  Atomics.store(state, i, d ? DONE : FAILED);
  Atomics.notify(state, i);
}
