import { Worker } from 'node:worker_threads';
import { defaultThreads } from '../catalog/pool.js';
import { readLciaResults, type LciaAt, type LciaResult } from '../parse/lcia.js';
import type { InputFile } from '../read/inputs.js';
import { readInput } from '../read/zip.js';

/** Below this many EPD pages a worker costs more (start-up, module loading) than it saves. */
export const MIN_PAGES_FOR_WORKERS = 200;
/** A pool left idle this long is ended (its workers hold a heap each); the next build starts a new one. */
const IDLE_MS = 2000;

/**
 * The LCIA results of an EPD document, read off the main thread when workers pay: the write phase runs on the main
 * thread, and reading, hashing and scanning each EPD again was most of an EPD page's cost there. The results are a
 * function of the bytes alone, so where they are read changes nothing; a worker that fails or dies leaves its
 * documents to the main thread (today's path, which reports a read error as it always did).
 */
export function lciaResultsOf(file: InputFile, at: LciaAt | undefined, offload: boolean): Promise<LciaResult[]> {
  const here = async () => readLciaResults(await readInput(file), at);
  const pool = offload ? LciaPool.get() : undefined;
  return pool ? pool.run(file, at).catch(here) : here();
}

interface Pending {
  w: Worker;
  resolve: (r: LciaResult[]) => void;
  reject: (e: Error) => void;
}

class LciaPool {
  private static shared: LciaPool | undefined;
  /** Set once a worker died: the rest of the process makes its pages on the main thread. */
  private static broken = false;
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  private idle: NodeJS.Timeout | undefined;

  /** One pool per process, started by the first page that asks; none on one core or after a worker died. */
  static get(): LciaPool | undefined {
    if (LciaPool.shared || LciaPool.broken) return LciaPool.shared;
    // The main thread keeps writing: one core less than there are, and few workers are enough to keep up with it.
    const n = Math.min(defaultThreads() - 1, 2);
    return n >= 1 ? (LciaPool.shared = new LciaPool(n)) : undefined;
  }

  private constructor(n: number) {
    for (let i = 0; i < n; i++) {
      const w = new Worker(new URL('./lcia-worker.js', import.meta.url));
      w.on('message', (m: { id: number; results?: LciaResult[]; error?: string }) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.settled(m.id);
        if (m.results) p.resolve(m.results);
        else p.reject(new Error(m.error));
      });
      w.on('error', () => {});
      w.once('exit', () => this.gone(w));
      w.unref();
      this.workers.push(w);
    }
  }

  run(file: InputFile, at: LciaAt | undefined): Promise<LciaResult[]> {
    if (!this.workers.length) return Promise.reject(new Error('no LCIA worker'));
    clearTimeout(this.idle);
    const id = this.next++;
    // Round robin: the documents are alike, and each worker holds a queue.
    const w = this.workers[id % this.workers.length]!;
    // A worker with work keeps the process alive; an idle one does not.
    if (![...this.pending.values()].some((p) => p.w === w)) w.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { w, resolve, reject });
      w.postMessage({ id, file, ...(at ? { at } : {}) });
    });
  }

  private settled(id: number): void {
    const { w } = this.pending.get(id)!;
    this.pending.delete(id);
    if (![...this.pending.values()].some((p) => p.w === w)) w.unref();
    if (!this.pending.size) {
      this.idle = setTimeout(() => this.end(), IDLE_MS);
      this.idle.unref();
    }
  }

  /** A worker that exited: its documents go back to the main thread, and no worker is started again. */
  private gone(w: Worker): void {
    const i = this.workers.indexOf(w);
    if (i < 0) return;
    this.workers.splice(i, 1);
    if (LciaPool.shared === this) LciaPool.broken = true;
    for (const [id, p] of this.pending)
      if (p.w === w) {
        this.pending.delete(id);
        p.reject(new Error('LCIA worker exited'));
      }
  }

  private end(): void {
    if (this.pending.size) return;
    if (LciaPool.shared === this) LciaPool.shared = undefined;
    // Ended on purpose: not a death.
    for (const w of this.workers.splice(0)) void w.terminate();
  }
}
