import type { Part } from './stream.js';

/**
 * The entries of the whole EPD lists, kept between builds (docs/performance.md, "List entries kept"). A 1% rebuild of
 * 10,000 EPDs rendered all 30,000 entries of the three whole lists again: about 1 s of its main thread. An entry is a
 * function of its entry key (the EPD's sha256 and declared unit, as the list keys hash them) and of the configuration
 * (the incremental-build cache is only read under the same one), so the store (the cache) takes an entry whose key
 * the previous list had from that list's file, when the file is still as that build wrote it.
 */
export interface ListEntryStore {
  /** The previous build's entries of the whole list at `path`, by entry key; undefined: render them all. */
  previous(path: string): EntryReader | undefined;
  /** The list at `path` (content key `key`) as just written: per entry of `entryKeys`, its start and length in bytes. */
  written(path: string, key: string, entryKeys: readonly string[], spans: readonly number[]): void;
}

/**
 * Entries of a previous list, read from its file as asked for. The bytes returned are valid until the next `get`
 * (a window read ahead, reused): a list's writer copies each part before it asks for the next.
 */
export interface EntryReader {
  get(entryKey: string): Uint8Array | undefined;
  close(): void;
}

/** One entry of a list: the EPD at index `i` of the catalogue's EPDs, as `render` makes it or as kept. */
export type Entry = (i: number, render: () => string) => Part;

/** Every entry rendered. */
export const renderEntry: Entry = (_i, render) => render();

/**
 * A list (the whole list at `from`, or a page of it) whose entries come from `store`'s previous `from` where it has
 * them. `make` yields each entry as the one part `entry` returned. With `record` (the whole list at `from` itself),
 * where each entry lands is recorded for the next build (not when the count is off: nothing is kept then).
 */
export function* splicedList(
  from: string,
  entryKeys: readonly string[],
  store: ListEntryStore | undefined,
  make: (entry: Entry) => Iterable<Part>,
  record?: { key: string },
): Generator<Part> {
  const prev = store?.previous(from);
  try {
    if (!record || !store) {
      yield* make(prev ? (i, render) => prev.get(entryKeys[i]!) ?? render() : renderEntry);
      return;
    }
    const spans: number[] = [];
    let at = 0;
    let pending: Part | undefined;
    const entry: Entry = (i, render) => (pending = prev?.get(entryKeys[i]!) ?? render());
    for (const p of make(entry)) {
      const n = typeof p === 'string' ? Buffer.byteLength(p) : p.length;
      if (pending !== undefined && p === pending) {
        spans.push(at, n);
        pending = undefined;
      }
      at += n;
      yield p;
    }
    if (spans.length === 2 * entryKeys.length) store.written(from, record.key, entryKeys, spans);
  } finally {
    prev?.close();
  }
}
