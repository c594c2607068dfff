import { copyFileSync, linkSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Keep an emitted file (`size` bytes) beside the incremental-build cache as the blob `to`, so a runner without the
 * previous site links it instead of making it again (src/cache/build-cache.ts). `had`: the previous build kept one of
 * that size there (it is kept as it is, if still there); `dirMade`: the blob folder exists. True when it is kept.
 * Never throws: a read-only or full cache folder costs only the next build's time. Synchronous, so the page writer's
 * thread keeps its pages itself (src/emit/page-writer.ts).
 */
export function keepBlob(file: string, to: string, size: number, had: boolean, dirMade: boolean, copy = true): boolean {
  try {
    if (had && lstatSync(to, { throwIfNoEntry: false })?.size === size) return true;
    if (!dirMade) mkdirSync(dirname(to), { recursive: true });
    if (!linkOver(file, to, size)) {
      if (!copy) return false;
      copyFileSync(file, to);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Hard-link `from` as `to`; false where no link can be made (another file system, EMLINK). A file already there under
 * that name (a blob named by the same content key, kept by an earlier build whose record this build did not load:
 * --clean, another output) is kept when its size matches, the same trust a recorded blob gets; unlinking and linking
 * it again cost 0.3 ms per EPD page on a clean build over a kept cache. Another file there is replaced.
 */
function linkOver(from: string, to: string, size: number): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  const st = lstatSync(to, { throwIfNoEntry: false });
  if (st?.isFile() && st.size === size) return true;
  unlinkSync(to);
  try {
    linkSync(from, to);
    return true;
  } catch {
    return false;
  }
}
