import { isAscii } from 'node:buffer';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/**
 * JSON with every non-ASCII character escaped (`\u00e4`): the file is then read as latin1, a one-byte string, instead
 * of decoded as UTF-8 into a two-byte one. A no-op rebuild of 10,000 EPDs reads 21 MB of them: the stored result's
 * 15 MB took 0.23 s to decode (names in findings are not ASCII), 0.03 s to read as latin1.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Bytes as text: latin1 when they are ASCII (asciiJson wrote them), else decoded as UTF-8 (an older po-node's). */
function text(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** A JSON file, read as latin1 when it is ASCII (asciiJson wrote it). */
export function readJson(file: string): unknown {
  return JSON.parse(text(readFileSync(file)));
}

/**
 * Each line of a file of JSON lines (UTF-8), parsed, to `each` (return false to stop). Read synchronously in chunks of
 * `chunkBytes` (the incremental-build cache of 100,000 EPDs is about 300 MB: too much for one string); a line longer
 * than a chunk grows the buffer. Throws on a line that is not JSON.
 */
export function eachJsonLine(file: string, each: (value: unknown) => boolean | void, chunkBytes = 8 << 20): void {
  const fd = openSync(file, 'r');
  try {
    let buf = Buffer.allocUnsafe(chunkBytes);
    // Bytes of buf[0, have) not yet parsed: the start of a line the last read cut.
    let have = 0;
    for (;;) {
      if (have === buf.length) {
        const grown = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(grown, 0, 0, have);
        buf = grown;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      const end = have + n;
      // At the end of the file the rest is the last line, with or without its newline.
      const cut = n === 0 ? end : buf.lastIndexOf(10, end - 1) + 1;
      if (cut > 0) {
        // Line by line from the bytes: one string of megabytes costs ten times the small ones (measured on a cache
        // of 30 MB: 8 MB strings 80-160 ms, one string per line 10-24 ms). A short line decodes as fast from UTF-8 as
        // from latin1 (the cache's 30 MB, parsed: 89 and 87 ms), so the cache is written as UTF-8, not escaped.
        for (let i = 0; i < cut;) {
          const j = buf.indexOf(10, i);
          const e = j < 0 || j >= cut ? cut : j;
          if (e > i && each(JSON.parse(buf.toString('utf8', i, e))) === false) return;
          i = e + 1;
        }
      }
      if (n === 0) return;
      buf.copy(buf, 0, cut, end);
      have = end - cut;
    }
  } finally {
    closeSync(fd);
  }
}
