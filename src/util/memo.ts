/**
 * Per-document memo tables of the scanners (src/parse/body.ts, tree.ts, lcia.ts), keyed by a namespace scope (by
 * identity). Made per document and dropped with it, never module-level WeakMaps: an old-space WeakMap kept the entries
 * of every document (and the document text their keys are sliced from) alive through each young-generation GC until
 * a full one, and copying them was most of a read worker's GC time (docs/performance.md).
 */
export function tableOf<K, K2, V>(table: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let t = table.get(key);
  if (!t) table.set(key, (t = new Map<K2, V>()));
  return t;
}
