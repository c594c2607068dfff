import { Worker } from 'node:worker_threads';
import type { PageDataset } from './epd-page.js';
import type { CopyStat, NewFile, PagePlan } from './files.js';
import type { FileEntries } from './zip-writer.js';

/**
 * The EPD pages, made and written in a thread of their own while the main thread writes the rest of the site
 * (docs/performance.md, "The page thread"): a page is a function of plain data (its EPD's index, what it links to,
 * its LCIA table in the spool, whose file the thread reads by descriptor), and after the read the main thread wrote
 * the whole site alone with the other core idle. The thread makes the pages' own folders, and copies the inputs the
 * main thread has not reached from the other end. Any job the thread does not report written is made on the main
 * thread as before: a thread that cannot start or dies costs only time. With --zip-export it makes ZIP exports too,
 * after the copies (the main thread makes them from the other end).
 */

/** One page for the thread: where it goes, what it is made from, where it is kept beside the cache. */
export interface PageJob {
  to: string;
  d: PageDataset;
  pdf: boolean;
  zip: boolean;
  /** Keep it as this blob (BuildCache.blobFor): the size of the one the previous build kept there. */
  blob?: { to: string; size?: number };
  /** Make this folder first (the page's own: no other file of the site is in it). */
  dir?: string;
}

/**
 * One input copied into the site by the thread (an EPD or a dataset it references, keyed by its sha256): copyInto
 * with `stat`, hashed only where the file is no longer as recorded.
 */
export interface CopyJob {
  to: string;
  copy: string;
  stat?: CopyStat;
}

/** One ZIP export made by the thread from plain files (zipFromFiles), kept beside the cache as a page is. */
export interface ZipJob {
  to: string;
  entries: FileEntries;
  blob?: PageJob['blob'];
}

/** One message to the thread: pages and copies of one site, their shared context. */
export interface PageBatch {
  id: number;
  cfg: PagePlan['ctx']['cfg'];
  /** The spool's file descriptor (Spool.shared), when the pages' tables are in it. */
  spool?: number;
  file: NewFile;
  /** The site's folder mode, and whether the umask takes bits from it (a chmod after mkdir). */
  dirMode: number;
  fixDir: boolean;
  jobs: (PageJob | CopyJob | ZipJob)[];
}

/**
 * The thread's answer: per job its size when written (else the main thread makes it), whether it was kept, and for a
 * copy whether its bytes are those recorded or else their sha256 (hex).
 */
export interface PageReply {
  id: number;
  sizes: (number | undefined)[];
  kept: boolean[];
  copies: (CopyResult | undefined)[];
}

export interface CopyResult {
  asRecorded: boolean;
  digest?: string;
}

/**
 * Jobs per message: a quarter of the share of the jobs left that the batches out would take, between PAGE_BATCH_MIN
 * and PAGE_BATCH. Large at first: the thread gets more only between the main thread's files, and the main thread
 * writes the lists first (about 3 s without a break at 10,000 EPDs; with 100 a batch the thread sat idle for 1.3 s of
 * it). Small at the end, so the two threads meet close to it.
 */
export const PAGE_BATCH = 1000;
export const PAGE_BATCH_MIN = 10;
/** Batches sent ahead: the thread's queue (about 0.2 s of pages) outlasts the main thread's longest write (a list). */
export const PAGE_BATCHES_OUT = 6;
/**
 * Below this many pages to make (an incremental build), the main thread makes them: a thread costs its start (its
 * modules loaded, about 0.1 s of a core) and each page its copy into it, and the main thread makes about 5 a ms.
 */
export const PAGE_THREAD_MIN = 400;
/** A page needs one document and its table at a time. */
const HEAP_MB = 256;

export class PageWriter {
  private worker: Worker | undefined;
  private next = 0;
  private readonly waiting = new Map<number, (r: PageReply | undefined) => void>();

  constructor() {
    try {
      const w = new Worker(new URL('./page-thread.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
      // Whatever ends it, the batches still out are answered "not written": the main thread makes those pages.
      const lost = () => {
        this.worker = undefined;
        for (const done of this.waiting.values()) done(undefined);
        this.waiting.clear();
      };
      w.on('error', lost);
      w.on('exit', lost);
      w.on('message', (r: PageReply) => {
        this.waiting.get(r.id)?.(r);
        this.waiting.delete(r.id);
      });
      this.worker = w;
    } catch {
      // No thread (resource limits): every page is made on the main thread.
    }
  }

  /**
   * Make and write one batch of pages (folders made, nothing there): per job its size, or undefined where the main
   * thread must make it, and whether it was kept beside the cache; undefined when the thread is gone. `spool`: the
   * tables' spool file (Spool.shared).
   */
  run(
    cfg: PageBatch['cfg'],
    file: NewFile,
    spool: number | undefined,
    jobs: (PageJob | CopyJob | ZipJob)[],
    dirs: { mode: number; fix: boolean },
  ): Promise<PageReply | undefined> {
    return this.post({ id: this.next++, cfg, ...(spool !== undefined ? { spool } : {}), file, dirMode: dirs.mode, fixDir: dirs.fix, jobs });
  }

  private post(batch: PageBatch): Promise<PageReply | undefined> {
    const w = this.worker;
    if (!w) return Promise.resolve(undefined);
    return new Promise((done) => {
      this.waiting.set(batch.id, done);
      try {
        w.postMessage(batch);
      } catch {
        this.waiting.delete(batch.id);
        done(undefined);
      }
    });
  }

  /** Never throws. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate().catch(() => undefined);
  }
}

/** A page's job: its EPD as plain data, without the references (the page does not show them; most of an index). */
export function pageJob(to: string, plan: PagePlan, blob?: PageJob['blob']): PageJob {
  const { d, ctx } = plan;
  const slim: PageDataset = {
    header: { ...d.header, references: [] },
    file: d.file,
    sha256: d.sha256,
    ...(d.declaredUnit !== undefined ? { declaredUnit: d.declaredUnit } : {}),
    ...(d.lcia ? { lcia: d.lcia } : {}),
    ...(d.table ? { table: d.table } : {}),
  };
  return { to, d: slim, pdf: ctx.pdf, zip: ctx.zip, ...(blob ? { blob } : {}) };
}
