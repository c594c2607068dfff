/**
 * List documents are written as they are generated (bounded memory: at 100,000 EPDs the lists are
 * hundreds of MB as strings). These helpers give the exact bytes the one-string versions gave.
 */

/** `JSON.stringify(head with items under its last key, null, indent)`, one item at a time. */
export function jsonWithItems(head: Record<string, unknown>, key: string, items: Iterable<unknown>, indent = 0): Generator<string> {
  return jsonWithTexts(
    head,
    key,
    (function* () {
      for (const item of items) yield JSON.stringify(item, null, indent || undefined);
    })(),
    indent,
  );
}

/** The same, with each item already given as `JSON.stringify(item, null, indent)`. */
export function* jsonWithTexts(head: Record<string, unknown>, key: string, texts: Iterable<string>, indent = 0): Generator<string> {
  const keys = Object.keys(head);
  if (keys[keys.length - 1] !== key) throw new Error(`internal: ${key} must be the last key`);
  const empty = JSON.stringify({ ...head, [key]: [] }, null, indent || undefined);
  const at = empty.lastIndexOf('[]');
  yield empty.slice(0, at + 1);
  const pad = indent ? `\n${' '.repeat(2 * indent)}` : '';
  let first = true;
  for (const text of texts) {
    yield `${first ? '' : ','}${pad}${indent ? text.replaceAll('\n', pad) : text}`;
    first = false;
  }
  yield `${!first && indent ? `\n${' '.repeat(indent)}` : ''}${empty.slice(at + 1)}`;
}

/**
 * Encode pieces as UTF-8 straight into one reused buffer of `size` bytes and hand it to `sink` each time it is full
 * (the same bytes as `Buffer.from(pieces.join(''))`, without the joined string: the lists are 130 MB at 10,000 EPDs).
 * `sink` must be done with the buffer when it returns; a piece larger than the buffer goes on its own.
 */
export function encodeParts(parts: Iterable<string>, sink: (bytes: Buffer) => void, size = 1 << 18): void {
  const buf = Buffer.allocUnsafe(size);
  let n = 0;
  for (const p of parts) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
    if (n + 3 * p.length > size) {
      if (n) sink(buf.subarray(0, n));
      n = 0;
      if (3 * p.length > size) {
        sink(Buffer.from(p));
        continue;
      }
    }
    n += buf.write(p, n);
  }
  if (n) sink(buf.subarray(0, n));
}
