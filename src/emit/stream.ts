/**
 * List documents are written as they are generated (bounded memory: at 100,000 EPDs the lists are
 * hundreds of MB as strings). These helpers give the exact bytes the one-string versions gave.
 */

/** A piece of a generated document: text, or bytes taken as they are (a list entry kept from the last build). */
export type Part = string | Uint8Array;

/** `JSON.stringify(head with items under its last key, null, indent)`, one item at a time. */
export function jsonWithItems(head: Record<string, unknown>, key: string, items: Iterable<unknown>, indent = 0): Generator<Part> {
  return jsonWithTexts(
    head,
    key,
    (function* () {
      for (const item of items) yield jsonItemText(JSON.stringify(item, null, indent || undefined), indent);
    })(),
    indent,
  );
}

/** One item's `JSON.stringify(item, null, indent)` as it stands in the array of a document of that indent. */
export function jsonItemText(text: string, indent: number): string {
  if (!indent) return text;
  const pad = `\n${' '.repeat(2 * indent)}`;
  return `${pad}${text.replaceAll('\n', pad)}`;
}

/**
 * The same, with each item given as its text in the document (jsonItemText), each yielded as one part: an item is
 * the same bytes wherever it stands, so a list's entries can be kept between builds (src/emit/list-entries.ts).
 */
export function* jsonWithTexts(head: Record<string, unknown>, key: string, texts: Iterable<Part>, indent = 0): Generator<Part> {
  const keys = Object.keys(head);
  if (keys[keys.length - 1] !== key) throw new Error(`internal: ${key} must be the last key`);
  const empty = JSON.stringify({ ...head, [key]: [] }, null, indent || undefined);
  const at = empty.lastIndexOf('[]');
  yield empty.slice(0, at + 1);
  let first = true;
  for (const text of texts) {
    if (!first) yield ',';
    yield text;
    first = false;
  }
  yield `${!first && indent ? `\n${' '.repeat(indent)}` : ''}${empty.slice(at + 1)}`;
}

const utf8 = new TextEncoder();
const ENCODE_BYTES = 1 << 18;
let encodeBuf: Buffer | undefined;

/**
 * Encode pieces as UTF-8 (bytes as they are) straight into one reused buffer of `size` bytes and hand it to `sink` each time it is full
 * (the same bytes as `Buffer.from(pieces.join(''))`, without the joined string: the lists are 130 MB at 10,000 EPDs).
 * `sink` must be done with the buffer when it returns. A text larger than the buffer is encoded into it a part at a
 * time (no buffer of its own size: the catalogue is 5 MB at 10,000 EPDs); bytes larger than the buffer go on their own.
 */
export function encodeParts(parts: Iterable<Part>, sink: (bytes: Buffer) => void, size = ENCODE_BYTES): void {
  // One buffer for every call of the default size (10,000 EPD pages a build are each written through here); safe, as
  // a call runs to its end before the next and the sink is done with the bytes when it returns.
  const buf = size === ENCODE_BYTES ? (encodeBuf ??= Buffer.allocUnsafe(ENCODE_BYTES)) : Buffer.allocUnsafe(size);
  let n = 0;
  for (const p of parts) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
    const most = typeof p === 'string' ? 3 * p.length : p.length;
    if (n + most > size) {
      if (n) sink(buf.subarray(0, n));
      n = 0;
      if (most > size) {
        if (typeof p !== 'string') {
          sink(Buffer.from(p.buffer, p.byteOffset, p.length));
          continue;
        }
        // encodeInto never splits a character (a surrogate pair stays whole) and says how much of the text it took.
        for (let rest = p; rest.length;) {
          const { read, written } = utf8.encodeInto(rest, buf);
          if (!read) throw new Error('internal: an encode buffer smaller than one character');
          sink(buf.subarray(0, written));
          rest = rest.slice(read);
        }
        continue;
      }
    }
    if (typeof p === 'string') n += buf.write(p, n);
    else {
      buf.set(p, n);
      n += p.length;
    }
  }
  if (n) sink(buf.subarray(0, n));
}
