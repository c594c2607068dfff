import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where a string was put in a Spool: byte offset and length. */
export type SpoolSpan = readonly [offset: number, length: number];

/** Strings wait in one buffer of this size before they are written: one write for many, no buffer of their own. */
const BUFFER = 1 << 20;

/**
 * Strings kept in a temporary file, not in memory, until they are read back: a build's EPD pages' LCIA tables, made
 * while the inputs are read and used when the pages are written (about 5 KB per EPD: 50 MB at 10,000). The file is
 * unlinked as soon as it is open (where the system allows): nothing is left behind, even by a killed process.
 * Synchronous: a caller reads a string back with no other work in between.
 */
export class Spool {
  private fd: number | undefined;
  private readonly dir: string;
  private removed = false;
  /** Bytes in the file. */
  private flushed = 0;
  /** Bytes put after those, waiting in `buf`. */
  private pending = 0;
  private buf: Buffer | undefined = Buffer.allocUnsafe(BUFFER);

  constructor(parent = tmpdir()) {
    this.dir = mkdtempSync(join(parent, 'po-node-spool-'));
    const file = join(this.dir, 'spool');
    this.fd = openSync(file, 'w+', 0o600);
    try {
      unlinkSync(file);
      rmSync(this.dir, { recursive: true, force: true });
      this.removed = true;
    } catch {
      // Windows: an open file cannot be deleted; close() removes it.
    }
  }

  put(s: string): SpoolSpan {
    const buf = this.buffer();
    // Most strings fit what is left of the buffer (UTF-8 takes at most three bytes per UTF-16 unit).
    if (s.length * 3 > buf.length - this.pending) {
      this.flush();
      if (s.length * 3 > buf.length) {
        const b = Buffer.from(s, 'utf8');
        this.writeAll(b);
        return [this.flushed - b.length, b.length];
      }
    }
    const n = buf.write(s, this.pending, 'utf8');
    const at: SpoolSpan = [this.flushed + this.pending, n];
    this.pending += n;
    return at;
  }

  take(at: SpoolSpan): string {
    this.flush();
    return readSpan(this.open(), at);
  }

  /**
   * The open file, everything put so far written to it: another thread of the process reads it with readSpan (the
   * page writer's, src/emit/page-writer.ts). Valid until close(); nothing may be put meanwhile.
   */
  shared(): number {
    this.flush();
    return this.open();
  }

  /** Never throws: a spool is closed on the way out of a failure too. */
  close(): void {
    try {
      if (this.fd !== undefined) closeSync(this.fd);
    } catch {
      // Closed already (EBADF): nothing to free.
    }
    this.fd = undefined;
    this.buf = undefined;
    this.pending = 0;
    if (!this.removed) rmSync(this.dir, { recursive: true, force: true });
    this.removed = true;
  }

  private open(): number {
    if (this.fd === undefined) throw new Error('internal: spool used after close');
    return this.fd;
  }

  private buffer(): Buffer {
    if (this.buf === undefined) throw new Error('internal: spool used after close');
    return this.buf;
  }

  private flush(): void {
    if (!this.pending) return;
    this.writeAll(this.buffer().subarray(0, this.pending));
    this.pending = 0;
  }

  /** Bytes written at the end of the file, whole. */
  private writeAll(b: Buffer): void {
    for (let n = 0; n < b.length;) n += writeSync(this.open(), b, n, b.length - n, this.flushed + n);
    this.flushed += b.length;
  }
}

/** A string a Spool put at `at`, read from its file by descriptor (positioned reads: any thread of the process). */
export function readSpan(fd: number, [offset, length]: SpoolSpan): string {
  const b = Buffer.allocUnsafe(length);
  for (let n = 0; n < length;) {
    const got = readSync(fd, b, n, length - n, offset + n);
    if (got === 0) throw new Error(`internal: spool ends before ${offset + length} (${offset + n})`);
    n += got;
  }
  return b.toString('utf8');
}
