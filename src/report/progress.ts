import type { ProgressEvent } from '../pipeline/read.js';

/**
 * The XSD validation ran in the bundled WebAssembly xmllint: a full build of 10,000 EPDs took 60 s with it and 36 s
 * with libxml2's own (docs/performance.md), so say how to get that one.
 */
const WASM_NOTE =
  "po-node: note: XSD validation used the bundled xmllint-wasm, about 2.5x slower than libxml2's own xmllint, which " +
  'po-node uses when it is on the PATH (Debian, Ubuntu: apt-get install libxml2-utils) and PO_NODE_XSD is not wasm\n';

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
            if (e.xsd === 'wasm') stream.write(WASM_NOTE);
          }
          break;
        }
        const now = Date.now();
        const last = e.done === e.total;
        // Only draw for builds that last: no flicker on small corpora.
        if (now - started >= 1000 && (now - lastDraw >= 100 || last)) {
          lastDraw = now;
          const width = 30;
          const filled = Math.round((e.done / Math.max(1, e.total)) * width);
          stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${e.done}/${e.total} files`);
          if (last) clear();
        }
        if (last && e.xsd === 'wasm') stream.write(WASM_NOTE);
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
