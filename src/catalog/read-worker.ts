// Worker thread of the read pool (src/catalog/pool.ts): levels 1-4 on one chunk of inputs at a time.
import { parentPort } from 'node:worker_threads';
import type { InputFile } from '../read/inputs.js';
import type { Severity } from '../findings.js';
import { readChunk, type ReadOptions, type ReadOutcome } from './read.js';
import { RefEncoder } from './ref-codec.js';

// The pool sends the next chunk before this one is done (so no chunk waits for the main thread); chunks still run
// one after the other, so a chunk that awaits its XSD never has a second one beside it in memory. Outcomes are
// posted in small groups as they are complete: kept to the chunk's end, they were what every young-generation GC
// of the worker copied again (gc 0.47 -> 0.36 ms per EPD, one file per chunk against 200, in a harness).
const PART = 10;
// References go as numbers into a table the pool keeps for this worker (src/catalog/ref-codec.ts), across chunks.
const refs = new RefEncoder();
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (msg: { id: number; files: InputFile[]; opts: ReadOptions; early: (string | undefined)[] }) => {
  const { id } = msg;
  let part: [number, ReadOutcome, Severity | undefined][] = [];
  const flush = () => {
    // The table's new entries with the outcomes that use them first: a message is taken whole, in order.
    if (part.length) parentPort!.postMessage({ id, refs: refs.take(), part });
    part = [];
  };
  queue = queue.then(() =>
    readChunk(msg.files, msg.opts, msg.early, (j, o, xsd) => {
      if (refs.full(o)) {
        flush();
        refs.clear();
      }
      refs.encode(o);
      if (part.push([j, o, xsd]) >= PART) flush();
    }).then(
      () => {
        flush();
        parentPort!.postMessage({ id, done: true });
      },
      (e: unknown) => parentPort!.postMessage({ id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    ),
  );
});
