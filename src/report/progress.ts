import type { ProgressEvent } from '../pipeline/read.js';

/**
 * On a TTY: one self-overwriting line. Elsewhere (CI logs): one line per phase, nothing per file.
 * Progress goes to stderr so stdout stays clean for --json.
 */
export function progressReporter(stream: NodeJS.WriteStream, enabled: boolean): (e: ProgressEvent) => void {
  const tty = Boolean(stream.isTTY);
  const started = Date.now();
  let lastDraw = 0;
  const clear = () => tty && stream.write('\r\x1b[K');
  return (e) => {
    if (!enabled) return;
    switch (e.phase) {
      case 'discover':
        if (!tty) stream.write(`po-node: found ${e.files} files\n`);
        break;
      case 'read': {
        if (!tty) {
          // Inputs the incremental-build cache recognised were not read: say so, or a 1% rebuild seems to read all.
          if (e.done === e.total) {
            const from = e.cached ? `, ${e.cached} unchanged taken from the cache` : '';
            stream.write(`po-node: read and validated ${e.total - e.cached} XML files${from}\n`);
          }
          break;
        }
        const now = Date.now();
        // Only draw for builds that last: no flicker on small corpora.
        if (now - started < 1000 || (now - lastDraw < 100 && e.done !== e.total)) break;
        lastDraw = now;
        const width = 30;
        const filled = Math.round((e.done / Math.max(1, e.total)) * width);
        stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} files`);
        if (e.done === e.total) clear();
        break;
      }
      case 'write':
        clear();
        if (!tty) stream.write(`po-node: writing ${e.files} files\n`);
        break;
      case 'verify':
        if (!tty) stream.write('po-node: verifying the written site\n');
        break;
    }
  };
}
