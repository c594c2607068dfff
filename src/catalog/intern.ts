import type { DatasetHeader, Ref } from '../parse/extract.js';
import type { ReadOutcome } from './read.js';
import { refKey } from './ref-codec.js';

/**
 * Bounded memory: the index keeps one copy of each repeated value. An EPD holds about 70 references
 * (flows, sources, contacts), and across a corpus their XPaths (`.../exchange[12]/referenceToFlowDataSet`),
 * flow UUIDs, versions and types repeat: without sharing, every EPD's copies (fresh from a worker thread
 * or the cache file) stayed alive, about 20 kB per EPD.
 */
export class Interner {
  private readonly strings = new Map<string, string>();
  private readonly refs = new Map<string, Ref>();
  /** References this interner returned: taken as they are (the cache loader interns them before the outcomes). */
  private readonly own = new WeakSet<Ref>();
  /** Values shared by many headers or findings (the cache stores each once): interned once, then taken as they are. */
  private readonly done = new WeakSet<object>();
  /** Whether `done` holds any: a build without a cache walks every outcome with no lookup per object. */
  private sharing = false;

  str<T extends string | undefined>(s: T): T {
    if (s === undefined) return s;
    const hit = this.strings.get(s);
    if (hit !== undefined) return hit as T;
    // A substring of a whole document (read on this thread) would keep that document alive: keep a copy.
    const own = (s.length > 12 ? ` ${s}`.slice(1) : s) as T;
    this.strings.set(own!, own!);
    return own;
  }

  ref(r: Ref): Ref {
    if (this.own.has(r)) return r;
    // Source references keep their short descriptions (the EPD's PDF is found by them): part of the key.
    const key = refKey(r);
    const hit = this.refs.get(key);
    if (hit) return hit;
    const out: Ref = { descriptions: this.deep(r.descriptions), xpath: this.str(r.xpath) };
    if (r.uuid !== undefined) out.uuid = this.str(r.uuid);
    if (r.version !== undefined) out.version = this.str(r.version);
    if (r.type !== undefined) out.type = this.str(r.type);
    if (r.uri !== undefined) out.uri = this.str(r.uri);
    this.refs.set(key, out);
    this.own.add(out);
    return out;
  }

  header(h: DatasetHeader): DatasetHeader {
    // In place: the array is the header's own (fresh from a worker or the cache file).
    const rs = h.references;
    for (let i = 0; i < rs.length; i++) rs[i] = this.ref(rs[i]!);
    for (const k of Object.keys(h) as (keyof DatasetHeader)[])
      if (k !== 'references') (h as unknown as Record<string, unknown>)[k] = this.deep(h[k]);
    return h;
  }

  /** A value many outcomes hold (the same object): its strings interned now, and the value never walked again. */
  shared<T>(v: T): T {
    this.deep(v);
    if (v !== null && typeof v === 'object') {
      this.done.add(v);
      this.sharing = true;
    }
    return v;
  }

  /** Every string in a tree of plain objects and arrays, shared (language codes, types, XPaths, texts of cloned EPDs). */
  deep<T>(v: T): T {
    if (typeof v === 'string') return this.str(v);
    if (this.sharing && v !== null && typeof v === 'object' && this.done.has(v)) return v;
    if (Array.isArray(v)) {
      const a = v as unknown[];
      for (let i = 0; i < a.length; i++) a[i] = this.deep(a[i]);
    } else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k in o) o[k] = this.deep(o[k]);
    }
    return v;
  }

  outcome(o: ReadOutcome): ReadOutcome {
    if (o.header) this.header(o.header);
    o.findings = o.findings.map((f) => this.deep(f));
    return o;
  }
}
