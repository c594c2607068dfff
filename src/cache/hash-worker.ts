// Worker thread of src/cache/hash-ahead.ts: hashes the inputs from the first on, each one it can claim.
import { workerData } from 'node:worker_threads';
import { claimAndHash, CLAIMED, sharedTables } from './hash-ahead.js';

const { paths, shared } = workerData as { paths: string[]; shared: SharedArrayBuffer };
const { state, digests } = sharedTables(shared, paths.length);
// One the main thread claimed (from the end back, or one it needed first) is skipped.
for (let i = 0; i < paths.length; i++) claimAndHash(state, digests, paths, i, CLAIMED);
