import type { Ref } from '../parse/ref.js';
import type { ReadOutcome } from './read.js';

/**
 * A header's references between a read worker and the main thread as numbers into a table both sides keep per worker.
 * An EPD holds 60-70 references and a corpus repeats most of them (flows, XPaths, units): posted as objects, each
 * was copied by the worker, rebuilt by the main thread and interned there again (2,000 bench EPDs, CPU: the main
 * thread's side 790 ms as objects, 210 ms as numbers; the worker's 625 and 280 ms). Each distinct reference now
 * crosses once, is interned once, and an outcome carries only its numbers.
 */
export interface RefTableUpdate {
  /** The table was emptied before these: numbering starts again at 0. */
  reset?: true;
  /** The table's next entries, in number order. */
  refs: Ref[];
}

/** What makes two references the same (Interner.ref): short descriptions only on references to sources, kept whole. */
export function refKey(r: Ref): string {
  const desc = r.descriptions.length ? JSON.stringify(r.descriptions) : '';
  return `${r.type ?? ''}\u0000${r.uuid ?? ''}\u0000${r.version ?? ''}\u0000${r.uri ?? ''}\u0000${r.xpath}\u0000${desc}`;
}

/** References one (UUID, XPath) list holds before it becomes a map by refKey. */
const BUCKET_MAX = 16;

/** The references numbered under one (UUID, XPath): a short list, or a map by refKey once it grows long. */
type Bucket = { ref: Ref; id: number }[] | Map<string, number>;

/** Whether refKey(a) === refKey(b), field by field. */
export function sameRef(a: Ref, b: Ref): boolean {
  return a.xpath === b.xpath && (a.uuid ?? '') === (b.uuid ?? '') && sameRest(a, b);
}

/** sameRef of two references known to share UUID and XPath. */
function sameRest(a: Ref, b: Ref): boolean {
  if ((a.version ?? '') !== (b.version ?? '') || (a.type ?? '') !== (b.type ?? '') || (a.uri ?? '') !== (b.uri ?? '')) return false;
  const da = a.descriptions;
  const db = b.descriptions;
  if (da.length !== db.length) return false;
  return da.length === 0 || JSON.stringify(da) === JSON.stringify(db);
}

/**
 * The worker's side. The table is bounded (a corpus of 100,000 EPDs with references of their own would otherwise
 * hold millions of keys in a worker's limited heap): full, it starts again, after the outcomes that used it are posted.
 */
export class RefEncoder {
  /**
   * Numbered references by UUID, then by XPath: the few under one pair (most often one) compared on the other fields
   * (refKey's sameness), no key string made per reference. Found by UUID alone, a reference was compared with 3.3 others
   * on average, their XPaths character by character (10,000 bench EPDs; 70 us of an EPD's 1 ms read). A pair with
   * more (hostile input: one reference under thousands of versions) gets a map by refKey instead, so a lookup never
   * walks a long list.
   */
  private readonly byUuid = new Map<string, Map<string, Bucket>>();
  private size = 0;
  private fresh: Ref[] = [];
  private reset = false;

  constructor(private readonly limit = 65_536) {}

  /** Whether `o` may not fit: post what is encoded, then clear(). */
  full(o: ReadOutcome): boolean {
    return this.size + (o.header?.references.length ?? 0) > this.limit;
  }

  clear(): void {
    this.byUuid.clear();
    this.size = 0;
    this.fresh = [];
    this.reset = true;
  }

  /** In place (the outcome is the worker's own, posted next): its header's references become their numbers. */
  encode(o: ReadOutcome): void {
    const h = o.header;
    if (!h) return;
    const rs = h.references;
    const ids = new Array<number>(rs.length);
    for (let i = 0; i < rs.length; i++) ids[i] = this.number(rs[i]!);
    (h as unknown as { references: number[] }).references = ids;
  }

  private number(r: Ref): number {
    const uuid = r.uuid ?? '';
    let byXpath = this.byUuid.get(uuid);
    if (byXpath === undefined) this.byUuid.set(uuid, (byXpath = new Map<string, Bucket>()));
    const xpath = r.xpath;
    const bucket = byXpath.get(xpath);
    if (bucket === undefined) return this.add(r, (n) => byXpath.set(xpath, [{ ref: r, id: n }]));
    if (bucket instanceof Map) {
      const key = refKey(r);
      const id = bucket.get(key);
      return id ?? this.add(r, (n) => bucket.set(key, n));
    }
    for (let k = 0; k < bucket.length; k++) if (sameRest(bucket[k]!.ref, r)) return bucket[k]!.id;
    if (bucket.length < BUCKET_MAX) return this.add(r, (n) => bucket.push({ ref: r, id: n }));
    const byKey = new Map(bucket.map((e) => [refKey(e.ref), e.id]));
    byXpath.set(xpath, byKey);
    return this.add(r, (n) => byKey.set(refKey(r), n));
  }

  /** The next number, for a reference not in the table. */
  private add(r: Ref, keep: (n: number) => void): number {
    const n = this.size++;
    keep(n);
    this.fresh.push(r);
    return n;
  }

  /** The table's entries since the last take, to post before (or with) the outcomes encoded since; undefined if none. */
  take(): RefTableUpdate | undefined {
    if (!this.fresh.length && !this.reset) return undefined;
    const update: RefTableUpdate = { refs: this.fresh, ...(this.reset ? { reset: true as const } : {}) };
    this.fresh = [];
    this.reset = false;
    return update;
  }
}

/** The main thread's side, one per worker; `intern` (Interner.ref) is applied once per entry. */
export class RefDecoder {
  private table: Ref[] = [];

  constructor(private readonly intern: (r: Ref) => Ref = (r) => r) {}

  add(update: RefTableUpdate): void {
    if (update.reset) this.table = [];
    for (const r of update.refs) this.table.push(this.intern(r));
  }

  /** In place: the numbers of an outcome's header become the table's references. */
  decode(o: ReadOutcome): ReadOutcome {
    const h = o.header;
    if (!h) return o;
    const ids = h.references as unknown as number[];
    const rs = new Array<Ref>(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const r = this.table[ids[i]!];
      if (r === undefined) throw new Error(`reference ${ids[i]} not in the worker's table`);
      rs[i] = r;
    }
    h.references = rs;
    return o;
  }
}
