import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import type { Finding, Severity } from '../findings.js';
import { finding } from '../messages/finding.js';
import { decodeXml } from '../parse/safety.js';
import type { InputFile } from '../read/inputs.js';
import { sniffSchema, XsdStream, type StreamDoc, type StreamResult } from '../validate/xsd-stream.js';
import { reportFindings, validateXsd, xsdEngine } from '../validate/xsd.js';
import { addXsdFindings, readChunk, readDocument, type OutcomeSink, type ReadOptions, type ReadOutcome } from './read.js';
import { RefDecoder, type RefTableUpdate } from './ref-codec.js';
import type { Ref } from '../parse/ref.js';

export interface PoolOptions extends ReadOptions {
  /** Worker threads; default: the cores available (PO_NODE_THREADS overrides, 1 = no workers). */
  threads?: number;
  /** Exactly this many worker threads, however few the files (a read ahead: the main thread has other work). */
  workers?: number;
  /** Heap limit of each worker in MB (default WORKER_HEAP_MB; tests force failures with a tiny one). */
  workerHeapMb?: number;
  /** Called after each chunk with the number of files it held. */
  onChunk?: (files: number) => void;
  /** xmllint processes of the early XSD run (default XSD_PROCESSES; PO_NODE_XSD_PROCESSES overrides). */
  xsdProcesses?: number;
  /** false: every file's XSD in its chunk, as without the system's xmllint (tests compare both paths). */
  earlyXsd?: boolean;
  /**
   * A worker started before the run (startReadWorker), its modules loaded meanwhile: the run's first worker, or
   * terminated when the run reads on the main thread.
   */
  warm?: Worker;
  /** Applied once to each distinct reference a worker reports (Interner.ref): its outcomes then share the result. */
  intern?: (r: Ref) => Ref;
}

/** Inputs per chunk (default; xsdBatchSize sets it), capped by size too so a chunk's XSD batch stays within the wasm memory. */
const CHUNK_FILES = 200;
const CHUNK_BYTES = 40_000_000;
/** The smallest chunk at the end of a run with workers (chunkFiles). */
const TAIL_CHUNK_FILES = 25;
/** Below this many files a worker costs more (start-up, module loading) than it saves. */
const MIN_FILES_FOR_WORKERS = 400;
/**
 * Heap limit of a worker: a chunk needs far less (its texts, one document's tree at a time), and without a limit
 * each worker's heap grew with the run (peak RSS of 10,000 EPDs at level 1: 752 MB without, 505 MB with 128 MB).
 * A chunk that does not fit is read on the main thread instead.
 */
const WORKER_HEAP_MB = 256;

/** Workers that have exited (crashed, out of memory, terminated), whenever that was: a warm one may exit before a run. */
const exited = new WeakSet<Worker>();

/**
 * A read worker; it loads its modules as it starts. Unref'd: a worker started ahead that is never used does not keep
 * the process alive (readAll refs it when it takes it).
 */
export function startReadWorker(heapMb = WORKER_HEAP_MB): Worker {
  const w = new Worker(new URL('./read-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  // A worker can die between two chunks: never an unhandled 'error', and runIn must know it is gone.
  w.on('error', () => {});
  w.once('exit', () => exited.add(w));
  w.unref();
  return w;
}

export function defaultThreads(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PO_NODE_THREADS);
  return Number.isInteger(n) && n >= 1 ? n : availableParallelism();
}

/**
 * Documents per xmllint call of the early XSD run (the most: batches shrink towards the end), and calls at once
 * (docs/performance.md).
 */
const XSD_BATCH = 1000;
const XSD_PROCESSES = 2;

/**
 * Read, parse and validate files on every core: chunks go to worker threads, each running levels 1, 2 and 4.
 * Level 3 starts at once beside them: xmllint validates the files over their own paths (src/validate/xsd-stream.ts)
 * and each file's report is merged into its outcome here, as readChunk would have (files xmllint may not read
 * first, ZIP entries and the bundled wasm build are validated in the chunk instead). Outcomes come back in input
 * order, so the build stays deterministic whatever the scheduling. Each outcome goes to `sink` once complete (with
 * its index in `files`), so nothing but what the sink keeps stays in memory.
 */
export async function readAll(
  files: readonly InputFile[],
  opts: PoolOptions,
  sink: (index: number, outcome: ReadOutcome) => void,
): Promise<void> {
  const { threads, workers: only, onChunk, workerHeapMb = WORKER_HEAP_MB, xsdProcesses, earlyXsd = true, warm, intern, ...readOpts } = opts;
  // Explicit threads are honoured on any input (tests); the default only pays off on larger ones.
  const nThreads = only ?? threads ?? (files.length < MIN_FILES_FOR_WORKERS ? 1 : defaultThreads());
  const { chunks, starts } = chunkFiles(files, opts.xsdBatchSize ?? CHUNK_FILES, nThreads);

  const early =
    earlyXsd && (opts.validation?.xsd ?? true) && files.length && xsdEngine() === 'native' ? new EarlyXsd(files, opts) : undefined;
  const left = chunks.map((c) => c.length);
  const chunkOf = (i: number) => {
    let lo = 0;
    for (let hi = starts.length - 1; lo < hi;) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const complete = (i: number, o: ReadOutcome) => {
    sink(i, o);
    const c = chunkOf(i);
    if (--left[c]! === 0) onChunk?.(chunks[c]!.length);
  };
  if (early) early.complete = complete;
  // Each file's outcome once: a chunk whose worker failed midway is read again on the main thread.
  const delivered = new Uint8Array(files.length);
  const into =
    (i: number): OutcomeSink =>
    (j, o, severity) => {
      const at = starts[i]! + j;
      if (delivered[at]) return;
      delivered[at] = 1;
      if (early && severity) early.outcome(at, o, severity);
      else {
        early?.skip(at);
        complete(at, o);
      }
    };
  const earlyOf = (i: number) => early?.schemas(starts[i]!, chunks[i]!.length) ?? [];
  const stream = early?.run(xsdProcesses ?? defaultXsdProcesses());
  if (!only && (nThreads <= 1 || chunks.length < 2)) {
    if (warm) void warm.terminate();
    for (let i = 0; i < chunks.length; i++) {
      await readChunk(chunks[i]!, readOpts, earlyOf(i), into(i));
    }
    await stream;
    return early?.finish();
  }

  let next = 0;
  const workers: Worker[] = [];
  // Each worker's reference table (src/catalog/ref-codec.ts); a worker serves this run only (terminated below).
  const decoders = new Map<Worker, RefDecoder>();
  let spare = warm;
  // With XSD in the chunks, one worker more than cores: while a worker waits for xmllint, another parses. Without
  // (level 1, or the early run's xmllint): one per core; a third on two cores cost 1.3x the CPU for the same wall.
  const xsdInChunks = !early && (readOpts.validation?.xsd ?? true);
  const n = Math.min(nThreads + (xsdInChunks ? 1 : 0), chunks.length);
  try {
    await Promise.all([
      ...Array.from({ length: n }, async () => {
        const start = () => {
          const w = spare ?? startReadWorker(workerHeapMb);
          spare = undefined;
          // This run waits for its messages.
          w.ref();
          workers.push(w);
          decoders.set(w, new RefDecoder(intern));
          return w;
        };
        let w = start();
        // Each worker has its next chunk before it ends the current one: it never idles while the main thread takes
        // in another worker's outcomes. A failed worker (out of memory, crashed) is replaced once; its chunks are read
        // on the main thread.
        const send = (i: number) => {
          const sniffed = earlyOf(i);
          const to = w;
          const result = exited.has(to)
            ? Promise.reject(new Error('worker gone'))
            : runIn(to, decoders.get(to)!, i, chunks[i]!, readOpts, sniffed, into(i));
          result.catch(() => {}); // awaited below, after the chunk before it
          return { i, sniffed, to, result };
        };
        let ahead = next < chunks.length ? send(next++) : undefined;
        while (ahead) {
          const cur = ahead;
          ahead = next < chunks.length ? send(next++) : undefined;
          await cur.result.catch(async () => {
            if (cur.to === w) {
              void w.terminate();
              w = start();
              if (ahead?.to === cur.to) ahead = send(ahead.i);
            }
            await readChunk(chunks[cur.i]!, readOpts, cur.sniffed, into(cur.i));
          });
        }
      }),
      stream,
    ]);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  await early?.finish();
}

/**
 * Inputs in chunks of perChunk files (and at most CHUNK_BYTES), in input order. With workers, the last chunks get
 * smaller, so that all of them end about together instead of one finishing a whole chunk alone.
 */
export function chunkFiles(files: readonly InputFile[], perChunk: number, workers: number): { chunks: InputFile[][]; starts: number[] } {
  const chunks: InputFile[][] = [];
  const starts: number[] = [];
  let cur: InputFile[] = [];
  let bytes = 0;
  let limit = perChunk;
  for (const [i, f] of files.entries()) {
    if (cur.length && (cur.length >= limit || bytes + f.size > CHUNK_BYTES)) {
      chunks.push(cur);
      cur = [];
      bytes = 0;
    }
    if (!cur.length) {
      starts.push(i);
      if (workers > 1) limit = Math.min(perChunk, Math.max(TAIL_CHUNK_FILES, Math.ceil((files.length - i) / (workers * 4))));
    }
    cur.push(f);
    bytes += f.size;
  }
  if (cur.length) chunks.push(cur);
  return { chunks, starts };
}

export function defaultXsdProcesses(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.PO_NODE_XSD_PROCESSES);
  return Number.isInteger(n) && n >= 1 ? n : XSD_PROCESSES;
}

/**
 * The early XSD run of one readAll: which files xmllint reads first (their schema, found as they are first needed
 * by either side), and the merge of its reports with the chunks' outcomes, whichever comes first.
 */
class EarlyXsd {
  complete: (i: number, o: ReadOutcome) => void = () => {};
  /** Per file: its schema if xmllint reads it first, null if not, undefined while not yet looked at. */
  private readonly schema: (string | null | undefined)[] = [];
  private sniffed = 0;
  private pulled = 0;
  private readonly reports = new Map<number, StreamResult>();
  private readonly waiting = new Map<number, { o: ReadOutcome; severity: Severity }>();
  private readonly fallbacks: Promise<void>[] = [];
  private readonly skipped = new Set<number>();
  private stream: XsdStream | undefined;

  constructor(
    private readonly files: readonly InputFile[],
    private readonly opts: PoolOptions,
  ) {}

  /** The schemas of files [from, from + n) as a chunk passes them to readChunk. */
  schemas(from: number, n: number): (string | undefined)[] {
    this.sniff(from + n);
    return this.schema.slice(from, from + n).map((s) => s ?? undefined);
  }

  run(processes: number): Promise<void> {
    const next = (): StreamDoc | undefined => {
      while (this.pulled < this.files.length) {
        const id = this.pulled++;
        this.sniff(id + 1);
        const schema = this.schema[id];
        if (schema) return { id, abs: this.files[id]!.abs, bytes: this.files[id]!.size, schema };
      }
      return undefined;
    };
    const timeout = this.opts.xsdTimeoutSeconds ? { timeoutSeconds: this.opts.xsdTimeoutSeconds } : {};
    // A batch size the caller set is kept as it is (tests); the default shrinks as the run nears its end.
    const size = this.opts.xsdBatchSize
      ? { batchSize: this.opts.xsdBatchSize }
      : { batchSize: XSD_BATCH, remaining: () => this.files.length - this.pulled };
    this.stream = new XsdStream(next, (d, r) => this.report(d.id, r), { processes, ...size, ...timeout });
    return this.stream.run();
  }

  /** File i needs nothing of this run (rejected before the XSD, or validated in its chunk). */
  skip(i: number): void {
    if (!this.schema[i]) return;
    this.skipped.add(i);
    this.reports.delete(i);
    this.stream?.cancel(i);
  }

  /** A chunk's outcome of file i, whose XSD is this run's. */
  outcome(i: number, o: ReadOutcome, severity: Severity): void {
    const r = this.reports.get(i);
    if (!r) return void this.waiting.set(i, { o, severity });
    this.reports.delete(i);
    this.merge(i, o, severity, r);
  }

  /** Fallbacks (xmllint failed) still running. */
  async finish(): Promise<void> {
    await Promise.all(this.fallbacks);
    if (this.waiting.size) throw new Error(`XSD run ended without ${this.waiting.size} reports`);
  }

  private report(i: number, r: StreamResult): void {
    if (this.skipped.has(i)) return;
    const w = this.waiting.get(i);
    if (!w) return void this.reports.set(i, r);
    this.waiting.delete(i);
    this.merge(i, w.o, w.severity, r);
  }

  private merge(i: number, o: ReadOutcome, severity: Severity, r: StreamResult): void {
    const file = this.files[i]!;
    let found: Finding[];
    if ('report' in r) {
      // Line numbers become XPaths in the text, read again for the few files that have findings.
      const text = () => {
        try {
          const d = decodeXml(readFileSync(file.abs));
          return d.ok ? d.text : '';
        } catch {
          return ''; // gone since: the findings keep their lines, without XPaths
        }
      };
      found = reportFindings(r.report, { file: file.path, severity, schema: this.schema[i]!, text });
    } else if ('timeoutSeconds' in r) {
      found = [finding('xsd-timeout', { seconds: r.timeoutSeconds }, { file: file.path })];
    } else {
      // xmllint failed: the bundled build validates the file, as validateXsd falls back.
      this.fallbacks.push(this.fallback(i, o));
      return;
    }
    addXsdFindings(o, found, file);
    this.complete(i, o);
  }

  private async fallback(i: number, o: ReadOutcome): Promise<void> {
    const file = this.files[i]!;
    const doc = readDocument(readFileSync(file.abs), file, this.opts);
    const found =
      doc.text !== undefined && doc.header
        ? await validateXsd([{ file: file.path, text: doc.text, header: doc.header }], { engine: 'wasm' })
        : undefined;
    addXsdFindings(o, found?.get(0) ?? [], file);
    this.complete(i, o);
  }

  private sniff(end: number): void {
    const max = this.opts.maxFileSize;
    for (; this.sniffed < Math.min(end, this.files.length); this.sniffed++) {
      const f = this.files[this.sniffed]!;
      // Never a ZIP entry, nor a file above the size limit.
      this.schema[this.sniffed] = !f.zip && f.size <= max ? (sniffSchema(f.abs) ?? null) : null;
    }
  }
}

/**
 * One chunk in one worker, its outcomes to `sink` as the worker posts them; a worker that fails (e.g. out of memory)
 * rejects, and the chunk is read here instead.
 */
function runIn(
  w: Worker,
  refs: RefDecoder,
  id: number,
  files: InputFile[],
  opts: ReadOptions,
  early: (string | undefined)[],
  sink: OutcomeSink,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      w.off('message', onMessage);
      w.off('error', onError);
      w.off('exit', onExit);
    };
    const onMessage = (m: {
      id: number;
      refs?: RefTableUpdate;
      part?: [number, ReadOutcome, Severity | undefined][];
      done?: true;
      error?: string;
    }) => {
      if (m.id !== id) return;
      if (m.part) {
        try {
          if (m.refs) refs.add(m.refs);
          for (const [, o] of m.part) refs.decode(o);
        } catch (e) {
          // A table out of step with the worker's (never seen): the chunk is read again, by a new worker or here.
          cleanup();
          reject(e instanceof Error ? e : new Error(String(e)));
          return;
        }
        for (const [j, o, severity] of m.part) sink(j, o, severity);
        return;
      }
      cleanup();
      if (m.done) resolve();
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
    w.postMessage({ id, files, opts, early });
  });
}
