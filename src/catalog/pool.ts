import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { InputFile } from '../read/inputs.js';
import { readChunk, type ReadOptions, type ReadOutcome } from './read.js';

export interface PoolOptions extends ReadOptions {
  /** Worker threads; default: the cores available (PO_NODE_THREADS overrides, 1 = no workers). */
  threads?: number;
  /** Heap limit of each worker in MB (default WORKER_HEAP_MB; tests force failures with a tiny one). */
  workerHeapMb?: number;
  /** Called after each chunk with the number of files it held. */
  onChunk?: (files: number) => void;
}

/** Inputs per chunk (default; xsdBatchSize sets it), capped by size too so a chunk's XSD batch stays within the wasm memory. */
const CHUNK_FILES = 200;
const CHUNK_BYTES = 40_000_000;
/** Below this many files a worker costs more (start-up, module loading) than it saves. */
const MIN_FILES_FOR_WORKERS = 400;
/**
 * Heap limit of a worker: a chunk needs far less (its texts, one document's tree at a time), and without a limit
 * each worker's heap grew with the run (peak RSS of 10,000 EPDs at level 1: 752 MB without, 505 MB with 128 MB).
 * A chunk that does not fit is read on the main thread instead.
 */
const WORKER_HEAP_MB = 256;

export function defaultThreads(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PO_NODE_THREADS);
  return Number.isInteger(n) && n >= 1 ? n : availableParallelism();
}

/**
 * Read, parse and validate files on every core: chunks go to worker threads, each running levels 1-4
 * (the XSD validator runs in a wasm thread of its own meanwhile). Outcomes come back in input order, so
 * the build stays deterministic whatever the scheduling. Each outcome goes to `sink` as its chunk is done
 * (with its index in `files`), so nothing but what the sink keeps stays in memory.
 */
export async function readAll(
  files: readonly InputFile[],
  opts: PoolOptions,
  sink: (index: number, outcome: ReadOutcome) => void,
): Promise<void> {
  const { threads, onChunk, workerHeapMb = WORKER_HEAP_MB, ...readOpts } = opts;
  const perChunk = opts.xsdBatchSize ?? CHUNK_FILES;
  const chunks: InputFile[][] = [];
  const starts: number[] = [];
  let cur: InputFile[] = [];
  let bytes = 0;
  for (const f of files) {
    if (cur.length && (cur.length >= perChunk || bytes + f.size > CHUNK_BYTES)) {
      chunks.push(cur);
      cur = [];
      bytes = 0;
    }
    if (!cur.length) starts.push(chunks.length ? starts[starts.length - 1]! + chunks[chunks.length - 1]!.length : 0);
    cur.push(f);
    bytes += f.size;
  }
  if (cur.length) chunks.push(cur);

  const deliver = (i: number, outcomes: ReadOutcome[]) => {
    outcomes.forEach((o, j) => sink(starts[i]! + j, o));
    onChunk?.(chunks[i]!.length);
  };
  // Explicit threads are honoured on any input (tests); the default only pays off on larger ones.
  const nThreads = threads ?? (files.length < MIN_FILES_FOR_WORKERS ? 1 : defaultThreads());
  if (nThreads <= 1 || chunks.length < 2) {
    for (let i = 0; i < chunks.length; i++) {
      deliver(i, await readChunk(chunks[i]!, readOpts));
    }
    return;
  }

  let next = 0;
  const workers: Worker[] = [];
  const gone = new WeakSet<Worker>();
  // One worker more than cores: while a worker waits for its XSD thread, another parses.
  const n = Math.min(nThreads + 1, chunks.length);
  try {
    await Promise.all(
      Array.from({ length: n }, async () => {
        const start = () => {
          const w = new Worker(new URL('./read-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: workerHeapMb } });
          // A worker can die between two chunks: never an unhandled 'error', and runIn must know it is gone.
          w.on('error', () => {});
          w.once('exit', () => gone.add(w));
          workers.push(w);
          return w;
        };
        let w = start();
        for (let i = next++; i < chunks.length; i = next++) {
          const outcomes = await (gone.has(w) ? Promise.reject(new Error('worker gone')) : runIn(w, i, chunks[i]!, readOpts)).catch(
            async () => {
              // The worker is gone (out of memory, crashed): this chunk on the main thread, the next in a new worker.
              void w.terminate();
              w = start();
              return readChunk(chunks[i]!, readOpts);
            },
          );
          deliver(i, outcomes);
        }
      }),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** One chunk in one worker; a worker that fails (e.g. out of memory) rejects, and the chunk is read here instead. */
function runIn(w: Worker, id: number, files: InputFile[], opts: ReadOptions): Promise<ReadOutcome[]> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
    };
    const onMessage = (m: { id: number; outcomes?: ReadOutcome[]; error?: string }) => {
      if (m.id !== id) return;
      cleanup();
      if (m.outcomes) resolve(m.outcomes);
      else reject(new Error(m.error));
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`read worker exited (${code})`));
    };
    w.on('message', onMessage);
    w.on('error', onError);
    w.on('exit', onExit);
    w.postMessage({ id, files, opts });
  });
}
