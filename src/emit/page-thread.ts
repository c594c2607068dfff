// The page writer's thread (src/emit/page-writer.ts): makes and writes EPD pages, copies inputs into the site and makes
// ZIP exports, while the main thread writes the rest.
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { keepBlob } from '../cache/blobs.js';
import { readSpan } from '../util/spool.js';
import { pageHtml } from './epd-page.js';
import { copyInto, createFile, writeMade } from './files.js';
import type { CopyResult, PageBatch, PageReply } from './page-writer.js';
import { zipFromFiles, type ZipEntry } from './zip-writer.js';

let blobDirMade = false;
// The ZIP exports' shared entries, made once in this thread.
const zipEntries = new Map<string, ZipEntry>();
// One batch after the other: one page in memory at a time.
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (b: PageBatch) => {
  queue = queue.then(async () => {
    const reply: PageReply = { id: b.id, sizes: [], kept: [], copies: [] };
    const take = b.spool === undefined ? undefined : readSpan.bind(undefined, b.spool);
    for (const j of b.jobs) {
      let size: number | undefined;
      let kept = false;
      let copied: CopyResult | undefined;
      try {
        if ('copy' in j) {
          // Hashed only where the file is no longer as its stat recorded (then the main thread compares the digest).
          const hash = createHash('sha256');
          let c: ReturnType<typeof copyInto> | undefined;
          size = createFile(j.to, b.file, (fd) => (c = copyInto(j.copy, fd, hash, j.stat)).size);
          copied = c!.hashed ? { asRecorded: c!.asRecorded, digest: hash.digest('hex') } : { asRecorded: c!.asRecorded };
        } else {
          let made: string | Uint8Array | Uint8Array[];
          if ('entries' in j) made = zipFromFiles(j.entries, zipEntries);
          else {
            if (j.dir) makeDir(j.dir, b.dirMode, b.fixDir);
            made = await pageHtml(j.d, { cfg: b.cfg, pdf: j.pdf, zip: j.zip }, take);
          }
          size = createFile(j.to, b.file, (fd) => writeMade(fd, made));
          if (j.blob) {
            kept = keepBlob(j.to, j.blob.to, size, j.blob.size === size, blobDirMade);
            blobDirMade = true;
          }
        }
      } catch {
        // Not written (a full disk, a document gone): the main thread makes it and reports what fails.
        size = undefined;
      }
      reply.sizes.push(size);
      reply.kept.push(kept);
      reply.copies.push(copied);
    }
    parentPort!.postMessage(reply);
  });
});

/** A page's own folder (its parent exists); one there already is taken if it is a folder. */
function makeDir(dir: string, mode: number, fix: boolean): void {
  try {
    mkdirSync(dir, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !lstatSync(dir).isDirectory()) throw e;
    return;
  }
  if (fix) chmodSync(dir, mode);
}
