import { spawnChild } from '../util/spawner.js';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DATASET_TYPES } from '../parse/ilcd.js';
import { batchTimeoutMs, XmllintOutput, XSD_ENTRY, XSD_ROOT, type XsdReport } from './xsd.js';

/**
 * Level 3 from the start of the build: the system's xmllint reads the input files over their own paths, several
 * processes at once, while the documents are still being read in JavaScript; the catalogue merges each file's
 * report into its outcome (src/catalog/pool.ts). docs/performance.md has the measurements behind the defaults.
 *
 * xmllint sees a file before po-node's own checks, so only files that cannot make it read anything else get there:
 * plain paths (no characters xmllint would escape in its messages), and a prolog read here up to the root element
 * with no DOCTYPE (libxml2 opens the files of external entities even without --noent; without a DOCTYPE nothing
 * can be declared) and no encoding but UTF-8. The root element's name picks the schema; a process is guessed to
 * be an EPD, and the reader validates the file itself where the guess was wrong.
 */
export interface StreamDoc {
  id: number;
  abs: string;
  bytes: number;
  schema: string;
}

/** A document's report; or the time limit stopped it alone (xsd-timeout); or xmllint failed (fall back). */
export type StreamResult = { report: XsdReport } | { timeoutSeconds: number } | { failed: string };

export interface StreamOptions {
  /** xmllint processes at once. */
  processes: number;
  /** Documents per xmllint call (the most, with `remaining`). */
  batchSize: number;
  /**
   * Documents `next()` has still to hand out: batches then shrink as the run nears its end (a share of what is left
   * per process, at least MIN_GUIDED), so no process is left with one long last call while the other idles. Large
   * first batches load the schemas less often: each call loads them again (about 25 ms of CPU).
   */
  remaining?: () => number;
  /** Base time limit of a call in seconds, plus 1 s per MB of its documents (validateXsd's limit). */
  timeoutSeconds?: number;
}

/** Paths handed to xmllint as they are: libxml2 writes others URI-escaped in its messages. */
const PLAIN_PATH = /^\/[\w./+=,@~-]*$/;
const SNIFF_BYTES = 4096;
/** Keeps a command line far below the system's limit. */
const MAX_ARG_CHARS = 200_000;
const MAX_BATCH_BYTES = 100_000_000;
/** The smallest batch `remaining` shrinks them to. */
const MIN_GUIDED = 50;

/** The schema for the file at `abs` if xmllint may read it before po-node has (see above), else undefined. */
export function sniffSchema(abs: string): string | undefined {
  if (!PLAIN_PATH.test(abs)) return undefined;
  const buf = Buffer.allocUnsafe(SNIFF_BYTES);
  let n: number;
  try {
    // Non-blocking: a file swapped for a FIFO since discovery must not hold the build.
    const fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      n = readSync(fd, buf, 0, SNIFF_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  return rootSchema(buf.subarray(0, n));
}

/** Scan a prolog: BOM, white space, the XML declaration, comments and processing instructions, then the root tag. */
export function rootSchema(b: Buffer): string | undefined {
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  for (;;) {
    while (b[i] === 0x20 || b[i] === 0x09 || b[i] === 0x0a || b[i] === 0x0d) i++;
    if (b[i] !== 0x3c) return undefined;
    if (b[i + 1] === 0x3f) {
      const end = b.indexOf('?>', i + 2);
      if (end < 0) return undefined;
      const pi = b.toString('latin1', i, end);
      const enc = /^<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(pi);
      if (enc && !/^utf-?8$/i.test(enc[1]!)) return undefined;
      i = end + 2;
    } else if (b[i + 1] === 0x21) {
      // A comment, or a DOCTYPE (anything else here is not well-formed).
      if (b.toString('latin1', i, i + 4) !== '<!--') return undefined;
      const end = b.indexOf('-->', i + 4);
      if (end < 0) return undefined;
      i = end + 3;
    } else {
      const m = /^<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/.exec(b.toString('latin1', i, i + 200));
      const t = m && DATASET_TYPES.find((d) => d.root === m[1]);
      if (!t) return undefined;
      return t.type === 'process' ? XSD_ENTRY.epd : XSD_ENTRY[t.type];
    }
  }
}

/**
 * Validate the documents `next()` hands out, in batches per schema, `processes` xmllint calls at once; each
 * document's result goes to `onResult` as soon as xmllint is done with it. A call over its time limit is stopped;
 * the documents it finished keep their reports, the rest are split in halves and retried until the one that holds
 * it up is alone (validateXsd's rule). A document `cancel`led (po-node rejected it first, or needs another schema)
 * is left out, and a call busy with it is stopped at once: libxml2 may need minutes for what po-node refuses at
 * once (one element with a million attributes).
 */
export class XsdStream {
  private readonly retry: StreamDoc[][] = [];
  private readonly open = new Map<string, { docs: StreamDoc[]; bytes: number; chars: number }>();
  private exhausted = false;
  private readonly cancelled = new Set<number>();
  private readonly running = new Set<{ batch: StreamDoc[]; out: XmllintOutput; stop: () => void }>();

  constructor(
    private readonly next: () => StreamDoc | undefined,
    private readonly onResult: (doc: StreamDoc, r: StreamResult) => void,
    private readonly opts: StreamOptions,
  ) {}

  async run(): Promise<void> {
    await Promise.all(
      Array.from({ length: Math.max(1, this.opts.processes) }, async () => {
        for (let b = this.take(); b; b = this.take()) await this.runBatch(b);
      }),
    );
  }

  cancel(id: number): void {
    this.cancelled.add(id);
    for (const r of this.running) if (r.batch[r.out.next]?.id === id) r.stop();
  }

  private take(): StreamDoc[] | undefined {
    const live = (docs: StreamDoc[]) => docs.filter((d) => !this.cancelled.has(d.id));
    while (this.retry.length) {
      const b = live(this.retry.shift()!);
      if (b.length) return b;
    }
    while (!this.exhausted) {
      const d = this.next();
      if (!d) {
        this.exhausted = true;
        break;
      }
      let b = this.open.get(d.schema);
      if (!b) this.open.set(d.schema, (b = { docs: [], bytes: 0, chars: 0 }));
      b.docs.push(d);
      b.bytes += d.bytes;
      b.chars += d.abs.length + 1;
      if (b.docs.length >= this.limit(b.docs.length) || b.bytes >= MAX_BATCH_BYTES || b.chars >= MAX_ARG_CHARS) {
        this.open.delete(d.schema);
        const docs = live(b.docs);
        if (docs.length) return docs;
      }
    }
    for (const [schema, b] of this.open) {
      this.open.delete(schema);
      const docs = live(b.docs);
      if (docs.length) return docs;
    }
    return undefined;
  }

  /** Documents for a batch that holds `n` so far (see StreamOptions.remaining). */
  private limit(n: number): number {
    const { batchSize, remaining, processes } = this.opts;
    if (!remaining) return batchSize;
    return Math.min(batchSize, Math.max(MIN_GUIDED, Math.ceil((remaining() + n) / (2 * Math.max(1, processes)))));
  }

  private async runBatch(batch: StreamDoc[]): Promise<void> {
    const ms = batchTimeoutMs(
      batch.reduce((s, d) => s + d.bytes, 0),
      this.opts.timeoutSeconds,
    );
    const out = new XmllintOutput(batch.map((d) => d.abs));
    const call = { batch, out, stop: () => {} };
    out.onFile = (k, report) => {
      if (!this.cancelled.has(batch[k]!.id)) this.onResult(batch[k]!, { report });
      if (this.cancelled.has(batch[k + 1]?.id ?? -1)) call.stop();
    };
    this.running.add(call);
    const end = await xmllint(batch[0]!.schema, batch, out, ms, (stop) => (call.stop = stop));
    this.running.delete(call);
    if (end === 'done') return out.end();
    const rest = batch.slice(out.next).filter((d) => !this.cancelled.has(d.id));
    if (end === 'stopped') {
      if (rest.length) this.retry.unshift(rest);
    } else if (end === 'timeout' && batch.length === 1) this.onResult(batch[0]!, { timeoutSeconds: Math.round(ms / 1000) });
    else if (end === 'timeout' && rest.length) {
      const half = Math.ceil(rest.length / 2);
      this.retry.unshift(...[rest.slice(0, half), rest.slice(half)].filter((h) => h.length));
    } else if (end !== 'timeout') for (const d of rest) this.onResult(d, { failed: end.message });
  }
}

/** One xmllint call; its stderr goes to `out` as it arrives. `onStart` gets a function that stops it. */
function xmllint(
  schema: string,
  batch: StreamDoc[],
  out: XmllintOutput,
  timeoutMs: number,
  onStart: (stop: () => void) => void,
): Promise<'done' | 'timeout' | 'stopped' | Error> {
  // No --noent, --loaddtd or --xinclude: nothing is read but the schemas and the documents named.
  const args = ['--nonet', '--noout', '--schema', join(fileURLToPath(XSD_ROOT), schema), ...batch.map((d) => d.abs)];
  return new Promise((resolve) => {
    const p = spawnChild('xmllint', args, { stderr: true });
    let ended: 'timeout' | 'stopped' | undefined;
    const kill = (why: 'timeout' | 'stopped') => {
      ended ??= why;
      p.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('timeout'), timeoutMs);
    onStart(() => kill('stopped'));
    p.stderr!.setEncoding('utf8');
    p.stderr!.on('data', (c: string) => {
      if (!ended) out.push(c);
    });
    p.on('error', (e) => {
      clearTimeout(timer);
      resolve(e);
    });
    // Exit 1-4: the documents have errors (reported on stderr); 5 and up: xmllint itself failed.
    p.on('close', (code) => {
      clearTimeout(timer);
      if (ended) resolve(ended);
      else if (code !== null && code < 5) resolve('done');
      else resolve(new Error(`xmllint exited with ${code}`));
    });
  });
}
