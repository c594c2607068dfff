// The page writer's thread (src/emit/page-writer.ts): makes and writes EPD pages while the main thread writes the rest.
import { parentPort } from 'node:worker_threads';
import { keepBlob } from '../cache/blobs.js';
import { readSpan } from '../util/spool.js';
import { pageBytes } from './epd-page.js';
import { createFile, writeAll } from './files.js';
import type { PageBatch, PageReply } from './page-writer.js';

let blobDirMade = false;
// One batch after the other: one page in memory at a time.
let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (b: PageBatch) => {
  queue = queue.then(async () => {
    const reply: PageReply = { id: b.id, sizes: [], kept: [] };
    const take = b.spool === undefined ? undefined : readSpan.bind(undefined, b.spool);
    for (const j of b.jobs) {
      let size: number | undefined;
      let kept = false;
      try {
        const bytes = await pageBytes(j.d, { cfg: b.cfg, pdf: j.pdf, zip: j.zip }, take);
        size = createFile(j.to, b.file, (fd) => writeAll(fd, bytes));
        if (j.blob) {
          kept = keepBlob(j.to, j.blob.to, size, j.blob.size === size, blobDirMade);
          blobDirMade = true;
        }
      } catch {
        // Not written (a full disk, a document gone): the main thread makes it and reports what fails.
        size = undefined;
      }
      reply.sizes.push(size);
      reply.kept.push(kept);
    }
    parentPort!.postMessage(reply);
  });
});
