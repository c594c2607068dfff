// Worker thread of the read pool (src/catalog/pool.ts): levels 1-4 on one chunk of inputs at a time.
import { parentPort } from 'node:worker_threads';
import type { InputFile } from '../read/inputs.js';
import { readChunk, type ReadOptions } from './read.js';

// The pool sends the next chunk before this one is done (so no chunk waits for the main thread); chunks still run
// one after the other, so a chunk that awaits its XSD never has a second one beside it in memory.
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (msg: { id: number; files: InputFile[]; opts: ReadOptions; early: (string | undefined)[] }) => {
  queue = queue.then(() =>
    readChunk(msg.files, msg.opts, msg.early).then(
      (result) => parentPort!.postMessage({ id: msg.id, result }),
      (e: unknown) => parentPort!.postMessage({ id: msg.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    ),
  );
});
