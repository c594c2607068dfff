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

/** Join small pieces into writes of about 256 KB. */
export function* coalesce(parts: Iterable<string>, size = 1 << 18): Generator<string> {
  let buf: string[] = [];
  let n = 0;
  for (const p of parts) {
    buf.push(p);
    n += p.length;
    if (n >= size) {
      yield buf.join('');
      buf = [];
      n = 0;
    }
  }
  if (buf.length) yield buf.join('');
}
